import CKModel

/// `zones.json`: the custom zones of one environment, deleted zones, and the sequence high-water mark.
package struct ZoneCatalog {
    package var lastSeq: Int64 = 0
    package var zones: [Zone] = []
    /// Deleted zones; `purged` when the user deleted the zone from iCloud settings (devices must not just re-fetch it);
    /// `encryptedDataReset` when it went with a reset of the user's encrypted data (devices upload theirs again).
    /// `sharedWith`: the participants (user record names) who had accepted a share of the zone when it went, so
    /// their shared databases report it deleted.
    package var deleted: [(zone: Zone, deletedAt: Int64, seq: Int64, purged: Bool, encryptedDataReset: Bool, sharedWith: [String])] = []

    package var json: JSON {
        .object([
            "format": .int(1), "lastSeq": .int(lastSeq), "zones": .array(zones.map(\.json)),
            "deletedZones": .array(deleted.map { d in
                var o = d.zone.json.objectValue ?? [:]
                o["deletedAt"] = .int(d.deletedAt)
                o["deletedSeq"] = .int(d.seq)
                if d.purged { o["purged"] = .bool(true) }
                if d.encryptedDataReset { o["encryptedDataReset"] = .bool(true) }
                if !d.sharedWith.isEmpty { o["sharedWith"] = .array(d.sharedWith.map { .string($0) }) }
                return .object(o)
            }),
        ])
    }

    package init() {}

    package init(json: [String: JSON], path: String) throws(CKError) {
        lastSeq = json["lastSeq"]?.int64Value ?? 0
        do throws(CKError) {
            for (i, z) in (json["zones"]?.arrayValue ?? []).enumerated() {
                let zone = try Zone(json: z, path: "zones[\(i)]")
                // Names become file names: a hand-edited catalog must not point outside the store.
                do throws(CKError) { try Names.validateZoneName(zone.zoneID.zoneName) } catch {
                    throw CKError.invalid("zones[\(i)].zoneName: \(error.reason)")
                }
                guard Names.isUserRecordName(zone.zoneID.ownerRecordName) else {
                    throw CKError.invalid("zones[\(i)].ownerRecordName: '\(Names.describe(zone.zoneID.ownerRecordName))' is not a user record name")
                }
                zones.append(zone)
            }
            for (i, z) in (json["deletedZones"]?.arrayValue ?? []).enumerated() {
                deleted.append((try Zone(json: z, path: "deletedZones[\(i)]"), z["deletedAt"]?.int64Value ?? 0, z["deletedSeq"]?.int64Value ?? 0,
                                z["purged"]?.boolValue ?? false, z["encryptedDataReset"]?.boolValue ?? false,
                                (z["sharedWith"]?.arrayValue ?? []).compactMap(\.stringValue)))
            }
        } catch {
            throw CKError.corrupt(path: path, error.reason)
        }
    }

    package func zone(_ id: ZoneID, in db: DatabaseScope) -> Zone? {
        zones.first { $0.zoneID == id && $0.database == db }
    }

    /// Whether the zone's last deletion was a purge by the user.
    package func wasPurged(_ id: ZoneID, in db: DatabaseScope) -> Bool {
        deleted.filter { $0.zone.zoneID == id && $0.zone.database == db }.max { $0.seq < $1.seq }?.purged ?? false
    }
}
