import CKModel

/// A changes/zone response: `zoneID`, `records` (a deletion as the record's name, type and zone with `deleted: true`), `syncToken`, `moreComing`.
public struct ZoneChangesResponse: Sendable {
    public var changes: ZoneChanges

    public init(_ changes: ZoneChanges) { self.changes = changes }

    /// One change: the record dictionary (with asset `downloadURL`s when a database is given), or a deletion (name, type, zone, `deleted: true`).
    public func json(_ ch: RecordChange, database: CKDatabase?) -> JSON {
        if let r = ch.record { return database?.responseJSON(r) ?? r.json() }
        return .object(["recordName": .string(ch.recordName), "recordType": .string(ch.recordType),
                        "zoneID": changes.zoneID.json, "deleted": .bool(true)])
    }

    public func json(database: CKDatabase?) -> JSON {
        .object(["zoneID": changes.zoneID.json, "records": .array(changes.changes.map { json($0, database: database) }),
                 "syncToken": .string(changes.syncToken), "moreComing": .bool(changes.moreComing)])
    }

    /// One line per change, then a last line `{"syncToken", "moreComing"}`.
    public func jsonLines(database: CKDatabase?) -> [JSON] {
        changes.changes.map { json($0, database: database) }
            + [.object(["syncToken": .string(changes.syncToken), "moreComing": .bool(changes.moreComing)])]
    }
}

/// A changes/database response: `zones` (each a `zoneID`, with `deleted`, and `purged` or `encryptedDataReset` when so),
/// `syncToken`, `moreComing`. The last two are ck's (the CLI's JSON); the Web Services wire sends `deleted` only.
public struct DatabaseChangesResponse: Sendable {
    public var changes: DatabaseChanges

    public init(_ changes: DatabaseChanges) { self.changes = changes }

    package static func json(_ z: ZoneChange) -> JSON {
        var o: [String: JSON] = ["zoneID": z.zoneID.json]
        if z.deleted { o["deleted"] = .bool(true) }
        if z.purged { o["purged"] = .bool(true) }
        if z.encryptedDataReset { o["encryptedDataReset"] = .bool(true) }
        return .object(o)
    }

    public var json: JSON {
        .object(["zones": .array(changes.zones.map(DatabaseChangesResponse.json)), "syncToken": .string(changes.syncToken),
                 "moreComing": .bool(changes.moreComing)])
    }

    /// One line per zone, then a last line `{"syncToken", "moreComing"}`.
    public var jsonLines: [JSON] {
        changes.zones.map(DatabaseChangesResponse.json)
            + [.object(["syncToken": .string(changes.syncToken), "moreComing": .bool(changes.moreComing)])]
    }
}
