import CKModel
import CKServer

/// `GET /_ck/notifications`: every notification ck made in an environment, for every user, each with the push
/// payload it stands for (`push`, also the web-courier frame), so a test can assert what would have been pushed.
extension ControlPlane {
    /// `?since=<notification id or ISO 8601 time>&user=<name>` → `{container, environment, notifications: [{user,
    /// userRecordName, database, subscriptionID, notificationID, notificationType, reason?, record?, zone?, time, read,
    /// notification, push}]}`, oldest first. `since` an ID: the ones after it; a time: the ones made after it.
    static func notifications(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let (container, environment) = try target(request, body: [:], server: server)
        var list = try container.allNotifications(environment: environment)
        if let user = request.query["user"] {
            list = list.filter { $0.userName == user || $0.userRecordName == user }
        }
        if let since = request.query["since"], !since.isEmpty {
            if let i = list.lastIndex(where: { $0.notification.notificationID == since }) {
                list.removeFirst(i + 1)
            } else if let t = ISO8601.parse(since) {
                list = list.filter { $0.notification.time > t }
            } else {
                throw CKError(.unknownItem, "since: no notification '\(since)' in \(environment.rawValue) of \(container.identifier), and not an ISO 8601 time",
                              serverErrorCode: "NOT_FOUND")
            }
        }
        let items = list.map { item -> JSON in
            let n = item.notification
            var o: [String: JSON] = ["user": .string(item.userName), "userRecordName": .string(item.userRecordName),
                                     "database": .string(n.databaseScope.rawValue), "subscriptionID": .string(n.subscriptionID),
                                     "notificationID": .string(n.notificationID), "notificationType": .string(n.kind.rawValue),
                                     "time": .string(ISO8601.format(milliseconds: n.time)), "read": .bool(n.read),
                                     "notification": n.json(),
                                     "push": CourierFrame.make(n, container: container.identifier, environment: environment, userRecordName: item.userRecordName)]
            if let reason = n.reason { o["reason"] = .string(reason.rawValue) }
            if let name = n.recordName {
                var r: [String: JSON] = ["recordName": .string(name)]
                if let type = n.recordType { r["recordType"] = .string(type) }
                o["record"] = .object(r)
            }
            if let z = n.zoneID { o["zone"] = z.json }
            return .object(o)
        }
        return .object(["container": .string(container.identifier), "environment": .string(environment.rawValue),
                        "notifications": .array(items)])
    }
}
