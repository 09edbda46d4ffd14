import CKModel

extension CKDatabase {
    /// The share a caller may change, named as `ck share` and the console name it: a share URL or short GUID, the
    /// share record's name, or its root record's name (in `zone`). An accepted administrator changes it through
    /// its shared database (the zone then reads `name:owner`); anyone else but the owner is refused.
    public func ownedShare(_ text: String, zone: String) throws(CKError) -> (db: CKDatabase, zone: String, share: Record) {
        if text.contains("/") {
            let meta = try resolveShare(text)
            if meta.participant.role == .administrator && meta.participant.acceptance == .accepted {
                let z = meta.entry.zone.zoneID
                return (container.database(.shared, environment: environment, caller: caller), z.zoneName + ":" + z.ownerRecordName, meta.entry.share)
            }
            guard meta.participant.role == .owner else {
                throw CKError(.permissionFailure, "\(caller.description) does not own this share", serverErrorCode: "ACCESS_DENIED",
                              hint: "only the owner (or an administrator) changes a share; act as the owner with --as")
            }
            return (self, meta.entry.zone.zoneID.zoneName, meta.entry.share)
        }
        let found = try fetch([text], zone: zone)
        guard case .saved(let record)? = found.first else {
            if let guid = Share.shortGUID(from: text), let meta = try? resolveShare(guid), meta.participant.role == .owner {
                return (self, meta.entry.zone.zoneID.zoneName, meta.entry.share)
            }
            throw found.first?.error ?? CKError(.unknownItem, "Record not found: '\(text)'")
        }
        if record.isShare { return (self, zone, record) }
        guard let shareName = record.share, case .saved(let share)? = try fetch([shareName], zone: zone).first else {
            throw CKError(.unknownItem, "record '\(text)' in zone \(zone) is not shared",
                          hint: "share it with 'ck -z \(zone) share create \(text)'")
        }
        return (self, zone, share)
    }

    /// Saves a share's operations atomically and returns the share saved; the first real failure is thrown.
    public func saveShare(_ ops: [RecordOperation], zone: String) throws(CKError) -> Record {
        let result = try modify(ops, zone: zone, atomic: true)
        let failures = result.results.compactMap(\.error)
        if let e = failures.first(where: { $0.code != .batchRequestFailed }) ?? failures.first { throw e }
        for r in result.results { if case .saved(let s) = r, s.isShare { return s } }
        throw CKError.internalError("the share was saved but not returned")
    }
}
