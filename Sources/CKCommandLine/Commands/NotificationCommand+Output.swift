import CKCore

extension NotificationCommand {
    /// `notification list`: `{"notifications": [notification]}` (NotificationsResponse, with `read`); jsonl a
    /// notification a line; plain `id<TAB>type<TAB>what<TAB>from<TAB>subscription<TAB>read|unread`; names the IDs.
    struct List: CommandOutput {
        var notifications: [SubscriptionNotification]
        var width: Int?

        var json: JSON { NotificationsResponse(notifications: notifications).json }
        var jsonLines: [JSON] { NotificationsResponse(notifications: notifications).jsonLines }
        var names: [String] { notifications.map(\.notificationID) }
        var plain: [String] {
            var t = Table([])
            for n in notifications { t.add([n.notificationID, n.kind.rawValue, what(n), n.deviceID, n.subscriptionID, n.read ? "read" : "unread"]) }
            return t.plainLines
        }
        var table: String {
            if notifications.isEmpty { return "" }
            var t = Table(["ID", "TIME", "TYPE", "WHAT", "FROM", "SUBSCRIPTION", "READ"])
            for n in notifications {
                t.add([n.notificationID, ISO8601.format(milliseconds: n.time), n.kind.rawValue, what(n), n.deviceID, n.subscriptionID,
                       n.read ? "yes" : "no"])
            }
            return t.aligned(width: width)
        }
        var notes: [String] { notifications.isEmpty ? ["no notifications"] : [] }
    }

    /// `notification read`: `{"marked": [id]}`; jsonl `{"notificationID", "read": true}` a line; plain and names the IDs.
    struct MarkedRead: CommandOutput {
        var ids: [String]

        var json: JSON { NotificationsMarkedRead(notificationIDs: ids).json }
        var jsonLines: [JSON] { NotificationsMarkedRead(notificationIDs: ids).jsonLines }
        var plain: [String] { ids }
        var table: String { "Marked \(ids.count) notification\(ids.count == 1 ? "" : "s") read\n" }
    }
}
