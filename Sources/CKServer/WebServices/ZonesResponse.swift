import CKModel

/// A zones/list or zones/lookup response (`{"zones": […]}`) and the zone dictionaries ck prints.
public struct ZonesResponse: Sendable {
    public var zones: [Zone]

    public init(zones: [Zone]) { self.zones = zones }

    /// A Web Services zone dictionary: `zoneID`, plus ck's `capabilities` and `atomic`.
    public static func json(_ z: Zone) -> JSON {
        .object(["zoneID": z.zoneID.json, "capabilities": .array(z.capabilities.sorted().map { .string($0.rawValue) }),
                 "atomic": .bool(z.capabilities.contains(.atomic))])
    }

    public var json: JSON { .object(["zones": .array(zones.map(ZonesResponse.json))]) }
    public var jsonLines: [JSON] { zones.map(ZonesResponse.json) }
}

/// One zone as `ck zone show` prints it: the zone dictionary with its database, record count and creation time.
public struct ZoneDescription: Sendable {
    public var zone: Zone
    public var recordCount: Int

    public init(zone: Zone, recordCount: Int) {
        self.zone = zone
        self.recordCount = recordCount
    }

    public var json: JSON {
        var o = ZonesResponse.json(zone).objectValue ?? [:]
        o["recordCount"] = .int(Int64(recordCount))
        o["database"] = .string(zone.database.rawValue)
        if zone.created > 0 { o["created"] = .int(zone.created) }
        return .object(o)
    }
}

/// A deleted (or purged) zone and how many records went with it.
public struct ZoneDeletion: Sendable {
    public var zoneID: ZoneID
    public var recordCount: Int
    public var purged: Bool
    /// Deleted as a reset of the user's encrypted data does (`ck zone reset-encrypted`).
    public var encryptedDataReset = false

    public init(zoneID: ZoneID, recordCount: Int, purged: Bool, encryptedDataReset: Bool = false) {
        self.zoneID = zoneID
        self.recordCount = recordCount
        self.purged = purged
        self.encryptedDataReset = encryptedDataReset
    }

    public var json: JSON {
        var o: [String: JSON] = ["zoneID": zoneID.json, "deleted": .bool(true), "recordCount": .int(Int64(recordCount))]
        if purged { o["purged"] = .bool(true) }
        if encryptedDataReset { o["encryptedDataReset"] = .bool(true) }
        return .object(o)
    }
}
