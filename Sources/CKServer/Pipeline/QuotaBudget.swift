import CKModel

/// The quota stage's view of one database's storage: its limit, what its live records use, and the assets
/// they refer to. A modify request spends it record by record; deletions give space back at once.
package struct QuotaBudget {
    package let limit: Int64
    package private(set) var used: Int64
    /// Live records referring to each asset: an asset's bytes count once per owner, as CloudKit stores them once.
    package private(set) var assetRefs: [String: Int]
    /// Whose storage this is, for messages.
    package let owner: String
    /// How to raise the limit.
    package let raise: String

    package init(limit: Int64, owner: String, raise: String, records: [Record]) {
        self.limit = limit
        self.owner = owner
        self.raise = raise
        used = 0
        assetRefs = [:]
        for r in records { add(r) }
    }

    /// Bytes a record counts (its stored size; asset bytes are added per asset).
    package static func size(_ r: Record) -> Int64 { Int64(r.size) }

    package mutating func add(_ r: Record) {
        used += QuotaBudget.size(r)
        for a in Set(r.assets.map(\.sha256)) {
            if assetRefs[a, default: 0] == 0 { used += r.assets.first { $0.sha256 == a }?.size ?? 0 }
            assetRefs[a, default: 0] += 1
        }
    }

    package mutating func remove(_ r: Record) {
        used -= QuotaBudget.size(r)
        for a in Set(r.assets.map(\.sha256)) {
            let n = assetRefs[a, default: 0] - 1
            assetRefs[a] = n > 0 ? n : nil
            if n <= 0 { used -= r.assets.first { $0.sha256 == a }?.size ?? 0 }
        }
    }

    /// Admits a save of `new` over `old`; a save that would end above the limit (and grows) is refused.
    package mutating func admit(_ new: Record, replacing old: Record?) throws(CKError) {
        var next = self
        if let old { next.remove(old) }
        next.add(new)
        if next.used > limit && next.used > used {
            throw CKError(.quotaExceeded,
                          "saving '\(new.recordName)' needs \(next.used - used) bytes, and \(owner) has used \(used) of its \(limit) bytes",
                          hint: "delete records to free space (deletes are always allowed), or raise the quota: \(raise)",
                          details: ["quota": .int(limit), "used": .int(used), "needed": .int(next.used - used)])
        }
        self = next
    }
}

extension QuotaBudget {
    /// Admits replacing the database's records by `records` (a fixtures import): refused, as a save would be,
    /// when they would end above the limit and use more than the database does now.
    package func admitReplacement(by records: [Record]) throws(CKError) {
        try admitReplacement(using: QuotaBudget(limit: limit, owner: owner, raise: raise, records: records))
    }

    /// The same, with the new records' use already summed in `next` (added a record at a time as an import reads them).
    package func admitReplacement(using next: QuotaBudget) throws(CKError) {
        if next.used > limit && next.used > used {
            throw CKError(.quotaExceeded,
                          "the import needs \(next.used) bytes in \(owner), which has used \(used) of its \(limit) bytes; nothing was imported",
                          hint: "import less, or raise the quota: \(raise)",
                          details: ["quota": .int(limit), "used": .int(used), "needed": .int(next.used - used)])
        }
    }
}

extension Record {
    /// The assets the record's fields refer to, lists included.
    package var assets: [Asset] {
        func collect(_ v: FieldValue) -> [Asset] {
            switch v {
            case .asset(let a): return [a]
            case .list(_, let items): return items.flatMap(collect)
            default: return []
            }
        }
        return fields.values.flatMap(collect)
    }
}
