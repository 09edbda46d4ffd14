import CKModel
import CKStorage

/// What a database's storage holds, against its quota (`ck quota show`).
public struct QuotaUsage: Sendable {
    /// The quota in bytes; nil when none is set.
    public var limit: Int64?
    public var used: Int64
    /// Bytes by zone name and by record type (records' own sizes plus the assets first counted in each).
    public var byZone: [String: Int64]
    public var byType: [String: Int64]
}

extension CKDatabase {
    /// The live records of the database's zones this caller owns: the default zone, then custom zones.
    package func ownedRecords(catalog: ZoneCatalog) throws(CKError) -> [(zone: String, records: [Record])] {
        var zones = [zoneID(Names.defaultZoneName)]
        if scope == .private {
            zones += catalog.zones.filter { $0.database == .private && $0.zoneID.ownerRecordName == userRecordName }
                .map(\.zoneID).sorted { $0.zoneName < $1.zoneName }
        }
        var out: [(zone: String, records: [Record])] = []
        for z in zones {
            let live = CKDatabase.fold(try env.readLog(env.logPath(database: scope, zone: z)).entries)
            out.append((z.zoneName, live.keys.sorted().compactMap { live[$0] }))
        }
        return out
    }

    /// The quota stage: the budget saves spend, when the database has a quota (none: no cost at all).
    package func quotaBudget(catalog: ZoneCatalog, info: JSON, zone: Zone? = nil) throws(CKError) -> QuotaBudget? {
        if scope == .shared {
            // A participant's writes count against the owner's iCloud storage.
            guard let owner = zone?.zoneID.ownerRecordName,
                  let name = (info["users"]?.objectValue ?? [:]).keys.first(where: { Caller.userRecordName(for: $0) == owner }),
                  let limit = CKContainer.quota(user: name, in: info) else { return nil }
            let records = try container.database(.private, environment: environment, caller: Caller(userName: name, deviceID: deviceID))
                .ownedRecords(catalog: catalog).flatMap(\.records)
            return QuotaBudget(limit: limit, owner: "the iCloud storage of the share's owner, user \(name)", raise: "ck quota set <size> --as \(name)",
                               records: records)
        }
        guard let limit = quotaLimit(info: info) else { return nil }
        let records = try ownedRecords(catalog: catalog).flatMap(\.records)
        return QuotaBudget(limit: limit, owner: quotaOwner, raise: quotaRaise, records: records)
    }

    /// The database's quota as container.json `info` (read once by the pipeline) has it.
    package func quotaLimit(info: JSON) -> Int64? {
        if scope == .public { return CKContainer.quota(user: nil, in: info) }
        guard let name = caller.userName else { return nil }
        return CKContainer.quota(user: name, in: info)
    }

    package var quotaOwner: String { scope == .public ? "the public database" : "the iCloud storage of \(caller.description)" }
    package var quotaRaise: String { scope == .public ? "ck quota set <size> --public" : "ck quota set <size> --as \(user)" }

    /// The database's quota and what uses it, by zone and by record type.
    public func quotaUsage() throws(CKError) -> QuotaUsage {
        try perform(.quotaUsage) { (state) throws(CKError) -> QuotaUsage in
            var usage = QuotaUsage(limit: quotaLimit(info: state.info), used: 0, byZone: [:], byType: [:])
            var budget = QuotaBudget(limit: 0, owner: "", raise: "", records: [])
            for (zone, records) in try ownedRecords(catalog: state.catalog) {
                for r in records {
                    let before = budget.used
                    budget.add(r)
                    usage.byZone[zone, default: 0] += budget.used - before
                    usage.byType[r.recordType, default: 0] += budget.used - before
                }
            }
            usage.used = budget.used
            return usage
        }
    }
}
