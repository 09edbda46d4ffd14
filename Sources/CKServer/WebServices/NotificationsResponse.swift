import CKModel

/// The acting user's notifications (`{"notifications": […]}`), each with whether it was marked read.
public struct NotificationsResponse: Sendable {
    public var notifications: [SubscriptionNotification]
    /// The container, environment and user they were made in, for each one's push `payload` (nil: no payload).
    public var origin: (container: String, environment: Environment, userRecordName: String)?

    /// The notifications; with the database they were read from, each answers its push `payload` too.
    public init(notifications: [SubscriptionNotification], database: CKDatabase? = nil) {
        self.notifications = notifications
        origin = database.map { ($0.container.identifier, $0.environment, $0.userRecordName) }
    }

    public var json: JSON { .object(["notifications": .array(jsonLines)]) }
    public var jsonLines: [JSON] { notifications.map(item) }

    /// One notification with `read`, and `payload` when the database is known.
    public func item(_ n: SubscriptionNotification) -> JSON {
        var j = n.json(withRead: true)
        if let origin, case .object(var o) = j {
            o["payload"] = n.payload(container: origin.container, environment: origin.environment, userRecordName: origin.userRecordName)
            j = .object(o)
        }
        return j
    }
}

/// Notifications marked read (CKMarkNotificationsReadOperation's answer).
public struct NotificationsMarkedRead: Sendable {
    public var notificationIDs: [String]

    public init(notificationIDs: [String]) { self.notificationIDs = notificationIDs }

    public var json: JSON { .object(["marked": .array(notificationIDs.map { .string($0) })]) }
    public var jsonLines: [JSON] { notificationIDs.map { .object(["notificationID": .string($0), "read": .bool(true)]) } }
}
