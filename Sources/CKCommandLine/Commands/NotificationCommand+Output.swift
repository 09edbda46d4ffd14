import CKCore

extension NotificationCommand {
    /// `notification list`: `{"notifications": [notification]}` (NotificationsResponse, with `read` and `payload`); jsonl a
    /// notification a line; plain `id<TAB>type<TAB>what<TAB>from<TAB>subscription<TAB>read|unread`; names the IDs.
    struct List: CommandOutput {
        var notifications: [SubscriptionNotification]
        var width: Int?
        /// Where they were made, for each one's push payload in JSON.
        var database: CKDatabase?

        var json: JSON { NotificationsResponse(notifications: notifications, database: database).json }
        var jsonLines: [JSON] { NotificationsResponse(notifications: notifications, database: database).jsonLines }
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

extension NotificationCommand {
    /// `notification show`: the notification with `read` and `payload` in JSON; `name value` rows otherwise.
    struct Show: RowsOutput {
        var notification: SubscriptionNotification
        var response: NotificationsResponse

        var json: JSON { response.item(notification) }
        var jsonLines: [JSON] { [json] }
        var rows: [(String, String)] {
            let n = notification
            var rows: [(String, String)] = [("id", n.notificationID), ("time", ISO8601.format(milliseconds: n.time)),
                                            ("type", n.kind.rawValue), ("what", what(n)), ("from", n.deviceID),
                                            ("subscription", n.subscriptionID), ("database", n.databaseScope.rawValue)]
            if !n.recordFields.isEmpty {
                rows.append(("fields", n.recordFields.keys.sorted().map { "\($0)=\(n.recordFields[$0]?.valueJSON.serialized() ?? "")" }.joined(separator: ", ")))
            }
            if let a = n.alertBody { rows.append(("alert", a)) }
            rows.append(("pruned", n.isPruned ? "yes" : "no"))
            rows.append(("read", n.read ? "yes" : "no"))
            return rows
        }
    }
}
