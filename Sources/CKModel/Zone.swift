
/// What a custom zone can do (CKRecordZone.Capabilities).
public enum ZoneCapability: String, Sendable, CaseIterable, Comparable {
    case fetchChanges, atomic, sharing, zoneWideSharing

    public static func < (a: ZoneCapability, b: ZoneCapability) -> Bool {
        allCases.firstIndex(of: a) ?? 0 < allCases.firstIndex(of: b) ?? 0
    }

    /// What a zone created without a capability list gets: what a CKRecordZone saved to the server reports.
    public static let defaults: Set<ZoneCapability> = [.fetchChanges, .atomic, .sharing]
}

/// A record zone of one database and owner.
public struct Zone: Equatable, Sendable {
    public var zoneID: ZoneID
    public var database: DatabaseScope
    public var capabilities: Set<ZoneCapability>
    /// Creation time, ms since 1970 (0 for default zones).
    public var created: Int64
    /// Sequence number of the zone's creation.
    public var seq: Int64
    /// Changes up to this sequence number were compacted away: older change tokens have expired.
    public var compactedSeq: Int64 = 0

    public init(zoneID: ZoneID, database: DatabaseScope, capabilities: Set<ZoneCapability>, created: Int64, seq: Int64) {
        self.zoneID = zoneID
        self.database = database
        self.capabilities = capabilities
        self.created = created
        self.seq = seq
    }

    package var json: JSON {
        var o: [String: JSON] = [
            "database": .string(database.rawValue), "zoneName": .string(zoneID.zoneName),
            "ownerRecordName": .string(zoneID.ownerRecordName),
            "capabilities": .array(capabilities.sorted().map { .string($0.rawValue) }),
            "created": .int(created), "seq": .int(seq),
        ]
        if compactedSeq > 0 { o["compactedSeq"] = .int(compactedSeq) }
        return .object(o)
    }

    package init(json: JSON, path: String) throws(CKError) {
        guard let db = json["database"]?.stringValue.flatMap(DatabaseScope.init(rawValue:)),
              let name = json["zoneName"]?.stringValue, let owner = json["ownerRecordName"]?.stringValue,
              let caps = json["capabilities"]?.arrayValue else {
            throw CKError.invalid("\(path): a zone needs database, zoneName, ownerRecordName and capabilities")
        }
        var set = Set<ZoneCapability>()
        for c in caps {
            guard let cap = c.stringValue.flatMap(ZoneCapability.init(rawValue:)) else {
                throw CKError.invalid("\(path).capabilities: unknown capability \(c.serialized())")
            }
            set.insert(cap)
        }
        self.init(zoneID: ZoneID(zoneName: name, ownerRecordName: owner), database: db, capabilities: set,
                  created: json["created"]?.int64Value ?? 0, seq: json["seq"]?.int64Value ?? 0)
        compactedSeq = json["compactedSeq"]?.int64Value ?? 0
    }
}
