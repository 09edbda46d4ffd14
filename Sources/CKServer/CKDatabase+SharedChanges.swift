import CKModel
import CKStorage

/// The change feeds of a participant's shared database, computed from the owners' zone logs.
extension CKDatabase {
    /// A page of a shared zone's changes as the participant sees it: saves of records its shares reach, and
    /// deletions of records they reached when last saved.
    package func sharedChanges(_ entries: [LogEntry], view: ShareView, zone: Zone) throws(CKError) -> [LogEntry] {
        var lastSaved: [String: Record]? = nil
        var out: [LogEntry] = []
        for e in entries {
            switch e {
            case .save(_, let r):
                if view.access(r) != nil { out.append(e) }
            case .delete(_, let name, let type, _, _):
                if type == Share.recordType { continue }
                if lastSaved == nil {
                    // Deleted records are looked up as they were last saved, so a deleted parent still leads up.
                    var saved: [String: Record] = [:]
                    for h in try env.readLog(env.logPath(database: .private, zone: zone.zoneID)).entries {
                        if case .save(_, let r) = h { saved[r.recordName] = r }
                    }
                    lastSaved = saved
                    let current = view.lookup
                    view.lookup = { (n) throws(CKError) -> Record? in try current(n) ?? saved[n] }
                    view.forget()
                }
                if let was = lastSaved?[name], view.access(name: name, parent: was.parent) != nil { out.append(e) }
            }
        }
        return out
    }

    /// The zones of the caller's shared database that appeared, changed or went away since `since`: a zone is there
    /// while one of its shares lists the caller as accepted; the entry that ended that (a removal, leaving, the
    /// share or its root deleted) is the zone's deletion.
    package func sharedDatabaseChanges(catalog: ZoneCatalog, since: Int64) throws(CKError) -> ([ZoneChange], Int64) {
        var zones: [ZoneChange] = []
        var high = since
        for z in catalog.zones where z.database == .private && z.capabilities.contains(.sharing) && z.zoneID.ownerRecordName != userRecordName {
            var accepted: [String: Bool] = [:]
            var present = false
            var ended: Int64 = 0
            var last: Int64 = z.seq
            for e in try env.readLog(env.logPath(database: .private, zone: z.zoneID)).entries {
                last = max(last, e.seq)
                switch e {
                case .save(let seq, let r) where r.isShare:
                    accepted[r.recordName] = r.shareInfo?.access(for: userRecordName) != nil
                    let now = accepted.values.contains(true)
                    if present && !now { ended = seq }
                    present = now
                case .delete(let seq, let name, let type, _, _) where type == Share.recordType:
                    accepted[name] = false
                    let now = accepted.values.contains(true)
                    if present && !now { ended = seq }
                    present = now
                default: break
                }
            }
            if present {
                high = max(high, last)
                if last > since { zones.append(ZoneChange(zoneID: z.zoneID, deleted: false, seq: last)) }
            } else if ended > 0 {
                high = max(high, ended)
                if ended > since { zones.append(ZoneChange(zoneID: z.zoneID, deleted: true, seq: ended)) }
            }
        }
        // Zones their owner deleted while the caller had accepted a share of them.
        var reported = Set<ZoneID>()
        for d in catalog.deleted.sorted(by: { $0.seq > $1.seq }) where d.sharedWith.contains(userRecordName) {
            guard !zones.contains(where: { $0.zoneID == d.zone.zoneID }), reported.insert(d.zone.zoneID).inserted else { continue }
            high = max(high, d.seq)
            if d.seq > since { zones.append(ZoneChange(zoneID: d.zone.zoneID, deleted: true, seq: d.seq)) }
        }
        return (zones, high)
    }
}
