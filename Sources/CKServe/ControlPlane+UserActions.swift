import CKModel
import CKServer

/// `POST /_ck/zones/purge` and `POST /_ck/notifications/read`: the two actions of `ck zone` and `ck notification`
/// that Web Services has no route for, done as the named user through the same core calls as the command line.
extension ControlPlane {
    /// `{user, zone}` → `{user, zone, purged: records}`, as `ck --as USER zone purge ZONE -y`: the zone goes as
    /// when its user deletes it from iCloud settings (devices are told it was purged, not deleted).
    static func purgeZone(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["user", "zone"])
        let (_, _, db) = try actingDatabase(request, body: body, server: server)
        let zone = try required("zone", body)
        let count = try db.purgeZone(zone)
        return .object(["user": .string(db.user), "zone": .string(zone), "purged": .int(Int64(count))])
    }

    /// `{user, ids: [id…]}` or `{user, all: true}` → `{user, read: [id…]}`, as `ck --as USER notification read`.
    static func markRead(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["user", "ids", "all"])
        let (_, _, db) = try actingDatabase(request, body: body, server: server)
        var ids: [String]? = nil
        if let list = body["ids"], !list.isNull {
            guard let items = list.arrayValue else { throw CKError(.invalidArguments, "ids: expected an array of notification IDs, got \(list.kindName)") }
            ids = []
            for (i, item) in items.enumerated() {
                guard let id = item.stringValue, !id.isEmpty else { throw CKError(.invalidArguments, "ids[\(i)]: expected a notification ID (a string)") }
                ids?.append(id)
            }
        }
        let all: Bool
        switch body["all"] {
        case nil, .null?: all = false
        case .bool(let b)?: all = b
        case let v?: throw CKError(.invalidArguments, "all: expected true or false, got \(v.kindName)")
        }
        guard all != (ids != nil) else { throw CKError(.invalidArguments, "give ids or all: true (not both)") }
        let read = try db.markNotificationsRead(all ? nil : ids)
        return .object(["user": .string(db.user), "read": .array(read.map { .string($0) })])
    }
}
