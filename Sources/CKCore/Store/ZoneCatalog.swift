/// `zones.json`: the custom zones of one environment, deleted zones, and the sequence high-water mark.
struct ZoneCatalog {
    var lastSeq: Int64 = 0
    var zones: [Zone] = []
    var deleted: [(zone: Zone, deletedAt: Int64, seq: Int64)] = []

    var json: JSON {
        .object([
            "format": .int(1), "lastSeq": .int(lastSeq), "zones": .array(zones.map(\.json)),
            "deletedZones": .array(deleted.map { d in
                var o = d.zone.json.objectValue ?? [:]
                o["deletedAt"] = .int(d.deletedAt)
                o["deletedSeq"] = .int(d.seq)
                return .object(o)
            }),
        ])
    }

    init() {}

    init(json: [String: JSON], path: String) throws(CKError) {
        lastSeq = json["lastSeq"]?.int64Value ?? 0
        do {
            for (i, z) in (json["zones"]?.arrayValue ?? []).enumerated() {
                zones.append(try Zone(json: z, path: "zones[\(i)]"))
            }
            for (i, z) in (json["deletedZones"]?.arrayValue ?? []).enumerated() {
                deleted.append((try Zone(json: z, path: "deletedZones[\(i)]"), z["deletedAt"]?.int64Value ?? 0, z["deletedSeq"]?.int64Value ?? 0))
            }
        } catch {
            throw CKError.corrupt(path: path, error.reason)
        }
    }

    func zone(_ id: ZoneID, in db: DatabaseScope) -> Zone? {
        zones.first { $0.zoneID == id && $0.database == db }
    }
}
