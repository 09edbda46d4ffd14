import CKModel
import CKStorage

/// A notification ck made for a user, as the developer sees it: whose it is, and the notification.
public struct UserNotification: Sendable {
    /// The user record name of the user it was made for.
    public var userRecordName: String
    /// That user's name.
    public var userName: String
    public var notification: SubscriptionNotification
}

/// Every user's notifications of an environment, for the control plane's `/_ck/notifications` (test assertions
/// about what ck would have pushed): developer work, through the store's door.
extension CKContainer {
    /// Every user's notifications, oldest first, with read flags applied.
    public func allNotifications(environment: Environment) throws(CKError) -> [UserNotification] {
        // A read over the container's users: the developer's, as listing users is (no fault rule reaches it).
        try store.perform(.userList, container: identifier, environment: environment) { () throws(CKError) in
            try allNotificationsBody(environment: environment)
        }
    }

    /// The notification logs of an environment, read under its shared lock.
    package func allNotificationsBody(environment: Environment) throws(CKError) -> [UserNotification] {
        // Notifications are made for subscription owners, and every owner is a user the container has met.
        let users = try usersBody()
        let env = environmentStore(environment)
        return try env.locked(exclusive: false) { () throws(CKError) -> [UserNotification] in
            var out: [UserNotification] = []
            for user in users {
                let owner = user.userRecordName
                let contents = try NotificationLog.read(env.notificationsPath(owner))
                var list: [UserNotification] = []
                var index: [String: Int] = [:]
                for e in contents.entries {
                    switch e {
                    case .notify(let n):
                        index[n.notificationID] = list.count
                        list.append(UserNotification(userRecordName: owner, userName: user.name, notification: n))
                    case .read(let ids, _):
                        for id in ids { if let i = index[id] { list[i].notification.read = true } }
                    }
                }
                out += list
            }
            // Stable: notifications made at the same moment keep each log's order.
            return out.enumerated().sorted { ($0.element.notification.time, $0.offset) < ($1.element.notification.time, $1.offset) }.map(\.element)
        }
    }
}
