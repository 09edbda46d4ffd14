/// How far a sync has come, for a progress line.
public struct SyncProgress: Sendable {
    public enum Phase: String, Sendable { case push, pull }
    public var phase: Phase
    /// Records done and to do in this phase (for pull: in the zone being applied).
    public var done: Int
    public var total: Int
}

/// Moves changes between a device and the server as CKSyncEngine does: push the device's pending edits,
/// then pull what changed on the server. It uses only `CKDatabase`'s public API, as a remote client would,
/// and writes as the device (its name is stamped as `deviceID` in the records it saves).
public struct SyncEngine {
    public let device: Device
    /// Who wins a key both sides changed differently.
    public var conflicts: ConflictPolicy
    /// Called as records are pushed and pulled.
    public var progress: ((SyncProgress) -> Void)?

    public init(device: Device, conflicts: ConflictPolicy = .local, progress: ((SyncProgress) -> Void)? = nil) {
        self.device = device
        self.conflicts = conflicts
        self.progress = progress
    }

    var db: CKDatabase { device.database }

    /// One sync: push, then pull. Errors of one zone or record stay in the report (their edits stay
    /// pending); an error that stops the whole sync (the device file, the store) is thrown.
    public func sync() throws(CKError) -> SyncReport {
        // One sync of a device at a time: a second waits rather than pushing the same edits twice.
        let lock = try FileLock(path: device.path + ".lock", exclusive: true)
        defer { lock.unlock() }
        db.deviceID = device.name
        var report = SyncReport(device: device.name)
        try checkAccount(&report)
        try push(&report)
        try pull(&report)
        report.syncedAt = db.container.store.now()
        try device.transaction { () throws(CKError) in try device.setMeta("lastSync", String(report.syncedAt)) }
        return report
    }

    /// The account comes first, as CKSyncEngine's accountChange event: a change since the last sync is
    /// reported; an account that can't sync stops the sync with every pending edit kept.
    func checkAccount(_ report: inout SyncReport) throws(CKError) {
        let status = try db.accountStatus()
        let previous = try device.meta("accountStatus").flatMap(AccountStatus.init(rawValue:))
        if previous != status {
            if let previous { report.accountChange = SyncReport.AccountChange(from: previous, to: status) }
            try device.transaction { () throws(CKError) in try device.setMeta("accountStatus", status.rawValue) }
        }
        guard var refusal = status.refusal(for: db.caller, "device \(device.name) can't sync") else { return }
        let pending = try device.pendingEdits(zone: nil).count
        refusal.reason += "; its \(pending) pending edit\(pending == 1 ? " is" : "s are") kept"
        if let previous, previous != status { refusal.reason += " (the account was \(previous.rawValue) at the last sync)" }
        throw refusal
    }

    // MARK: Push

    /// Sends pending edits zone by zone, in requests of at most 200 operations.
    func push(_ report: inout SyncReport) throws(CKError) {
        let edits = try device.pendingEdits(zone: nil)
        var done = 0
        var zones: [String] = []
        var byZone: [String: [PendingEdit]] = [:]
        for e in edits {
            if byZone[e.zone] == nil { zones.append(e.zone) }
            byZone[e.zone, default: []].append(e)
        }
        for zone in zones {
            let list = byZone[zone] ?? []
            for start in stride(from: 0, to: list.count, by: CKDatabase.maxOperationsPerRequest) {
                let chunk = Array(list[start..<min(start + CKDatabase.maxOperationsPerRequest, list.count)])
                try pushChunk(chunk, zone: zone, &report)
                done += chunk.count
                progress?(SyncProgress(phase: .push, done: done, total: edits.count))
            }
        }
    }

    /// The operation that sends an edit: only the changed keys, with the ancestor's tag (ifServerRecordUnchanged).
    func operation(_ e: PendingEdit) -> RecordOperation {
        if e.isDelete {
            return RecordOperation(type: .delete, recordName: e.name, recordType: e.type, changeTag: e.base?.changeTag)
        }
        var fields: [String: FieldInput] = [:]
        for (k, v) in e.fields { fields[k] = v.map { .value($0) } ?? .unset }
        return RecordOperation.save(recordType: e.type, recordName: e.name, fields: fields,
                                    ifTag: e.base?.changeTag, policy: nil)
    }

    func pushChunk(_ chunk: [PendingEdit], zone: String, _ report: inout SyncReport) throws(CKError) {
        let result: ModifyResult
        do { result = try db.modify(chunk.map(operation), zone: zone) } catch {
            // zoneNotFound and the like: nothing was written; the edits wait for a later sync.
            for e in chunk { report.kept.append(.init(zoneName: zone, recordName: e.name, error: error)) }
            return
        }
        var retries: [(edit: PendingEdit, op: RecordOperation, merge: SyncReport.Merge, server: Record)] = []
        // Cascaded deletions follow the operations' own results; the pull brings them.
        for (edit, r) in zip(chunk, result.results) {
            switch r {
            case .saved(let rec):
                try acknowledge(edit, saved: rec)
                report.pushedSaves.append(.init(zoneName: zone, recordName: edit.name))
            case .deleted:
                try acknowledge(edit, saved: nil)
                report.pushedDeletes.append(.init(zoneName: zone, recordName: edit.name))
            case .failed(_, let error):
                switch error.code {
                case .serverRecordChanged:
                    guard let json = error.details["serverRecord"],
                          let server = try? Record(json: json, path: "serverRecord") else {
                        report.kept.append(.init(zoneName: zone, recordName: edit.name, error: error))
                        continue
                    }
                    let (op, merge) = merged(edit, server: server)
                    if let op {
                        retries.append((edit, op, merge, server))
                    } else {
                        // Nothing of the device's is left to send: the server's record is the result.
                        try acknowledge(edit, saved: server)
                        report.merges.append(merge)
                    }
                case .unknownItem where edit.isDelete:
                    // Already gone on the server: what the device wanted.
                    try acknowledge(edit, saved: nil)
                    report.pushedDeletes.append(.init(zoneName: zone, recordName: edit.name))
                case .unknownItem where edit.base != nil:
                    // Deleted on the server while the device edited it: the deletion wins.
                    try acknowledge(edit, saved: nil)
                    report.dropped.append(.init(zoneName: zone, recordName: edit.name,
                                                reason: "deleted on the server; the device's edit of \(edit.fields.keys.sorted().joined(separator: ", ")) was dropped"))
                default:
                    report.kept.append(.init(zoneName: zone, recordName: edit.name, error: error))
                }
            }
        }
        guard !retries.isEmpty else { return }
        let second: ModifyResult
        do { second = try db.modify(retries.map(\.op), zone: zone) } catch {
            for r in retries { report.kept.append(.init(zoneName: zone, recordName: r.edit.name, error: error)) }
            return
        }
        for (retry, r) in zip(retries, second.results) {
            switch r {
            case .saved(let rec):
                try acknowledge(retry.edit, saved: rec)
                report.pushedSaves.append(.init(zoneName: zone, recordName: retry.edit.name))
                report.merges.append(retry.merge)
            case .deleted:
                try acknowledge(retry.edit, saved: nil)
                report.pushedDeletes.append(.init(zoneName: zone, recordName: retry.edit.name))
                report.merges.append(retry.merge)
            case .failed(_, let error):
                // Changed again meanwhile: the edit stays pending and the next sync merges anew.
                report.kept.append(.init(zoneName: zone, recordName: retry.edit.name, error: error))
            }
        }
    }

    /// The server took an edit (or made it moot): the new server copy and the end of the edit, in one transaction.
    /// A newer local edit made during the push stays pending, based on what the server answered.
    func acknowledge(_ edit: PendingEdit, saved: Record?) throws(CKError) {
        try device.transaction { () throws(CKError) in
            if let saved { try device.putServerRecord(saved) } else { try device.removeServerRecord(zone: edit.zone, name: edit.name) }
            try device.clearPending(zone: edit.zone, name: edit.name, version: edit.version)
            if let saved { try device.rebasePending(zone: edit.zone, name: edit.name, on: saved) }
        }
    }

    /// Three-way merge against the server's current record; nil operation when nothing is left to send.
    func merged(_ edit: PendingEdit, server: Record) -> (RecordOperation?, SyncReport.Merge) {
        var merge = SyncReport.Merge(zoneName: edit.zone, recordName: edit.name, mergedKeys: [], conflicts: [], deleteKept: nil)
        if edit.isDelete {
            // The server changed a record the device deleted: a conflict on the whole record.
            let keep = conflicts == .local
            merge.deleteKept = keep
            merge.conflicts = [.init(key: "(record deleted on the device)", winner: conflicts)]
            let op = RecordOperation(type: .delete, recordName: edit.name, recordType: server.recordType, changeTag: server.changeTag)
            return (keep ? op : nil, merge)
        }
        var send: [String: FieldInput] = [:]
        for key in edit.fields.keys.sorted() {
            guard let local = edit.fields[key] else { continue }
            let theirs = server.fields[key]
            if theirs == local { continue }  // both sides agree already
            let ancestor = edit.base?.fields[key]
            if theirs == ancestor {
                merge.mergedKeys.append(key)
                send[key] = local.map { .value($0) } ?? .unset
            } else {
                merge.conflicts.append(.init(key: key, winner: conflicts))
                if conflicts == .local { send[key] = local.map { .value($0) } ?? .unset }
            }
        }
        if send.isEmpty { return (nil, merge) }
        return (RecordOperation(type: .update, recordName: edit.name, recordType: edit.type, changeTag: server.changeTag, fields: send), merge)
    }

    // MARK: Pull

    /// Fetches the database's changed zones, then each zone's changes; each zone's records are applied in one
    /// transaction with its token, and the database token is stored last.
    func pull(_ report: inout SyncReport) throws(CKError) {
        var token = try device.meta("databaseToken")
        var zones: [ZoneChange] = []
        var refetchAll = false
        while true {
            let page: DatabaseChanges
            do { page = try db.databaseChanges(since: token) } catch {
                guard error.code == .changeTokenExpired, token != nil else { throw error }
                report.refetched.append("database")
                refetchAll = true
                token = nil
                zones = []
                continue
            }
            zones += page.zones
            token = page.syncToken
            if !page.moreComing { break }
        }
        if refetchAll {
            // Zones the device knows that the server no longer lists are gone.
            let live = Set(zones.filter { !$0.deleted }.map(\.zoneID.zoneName))
            for z in try device.knownZones() where !live.contains(z) {
                zones.insert(ZoneChange(zoneID: db.zoneID(z), deleted: true, seq: 0), at: 0)
            }
        }
        for z in zones {
            let name = z.zoneID.zoneName
            if z.deleted {
                try zoneDeleted(name, &report)
                continue
            }
            try pullZone(name, refetch: refetchAll, &report)
        }
        if let token {
            let final = token
            try device.transaction { () throws(CKError) in try device.setMeta("databaseToken", final) }
        }
    }

    /// A zone deleted on the server: the device forgets its copy; edits of records that were on the server are
    /// dropped (the deletion wins); records created on the device stay pending.
    func zoneDeleted(_ zone: String, _ report: inout SyncReport) throws(CKError) {
        let dropped = try device.transaction { () throws(CKError) -> [SyncReport.Dropped] in
            var dropped: [SyncReport.Dropped] = []
            for p in try device.pendingEdits(zone: zone) where p.base != nil {
                try device.dropPending(zone: zone, name: p.name)
                if !p.isDelete {
                    dropped.append(.init(zoneName: zone, recordName: p.name, reason: "zone \(zone) was deleted on the server; the device's edit was dropped"))
                }
            }
            try device.wipeZone(zone)
            return dropped
        }
        report.dropped += dropped
        report.pulled.append(.init(zoneName: zone, saved: 0, deleted: 0, zoneDeleted: true))
    }

    func pullZone(_ zone: String, refetch: Bool, _ report: inout SyncReport) throws(CKError) {
        var token = refetch ? nil : try device.zoneToken(zone)
        var full = refetch
        var changes: [RecordChange] = []
        var next: String
        while true {
            let page: ZoneChanges
            do { page = try db.zoneChanges(zone: zone, since: token) } catch {
                switch error.code {
                case .changeTokenExpired where token != nil:
                    // Toss the local copy of the zone (pending edits stay) and fetch it again from the start.
                    report.refetched.append(zone)
                    token = nil
                    full = true
                    changes = []
                    continue
                case .zoneNotFound, .userDeletedZone:
                    try zoneDeleted(zone, &report)
                    return
                default:
                    report.kept.append(.init(zoneName: zone, recordName: nil, error: error))
                    return
                }
            }
            changes += page.changes
            token = page.syncToken
            next = page.syncToken
            if !page.moreComing { break }
        }
        let (pulled, dropped) = try apply(changes, zone: zone, token: next, replacing: full)
        report.pulled.append(pulled)
        report.dropped += dropped
    }

    /// Applies a zone's changes and its new token in one transaction. With `replacing`, the changes are the
    /// whole zone: server copies they lack were deleted.
    func apply(_ changes: [RecordChange], zone: String, token: String, replacing: Bool)
        throws(CKError) -> (SyncReport.ZonePull, [SyncReport.Dropped]) {
        try device.transaction { () throws(CKError) -> (SyncReport.ZonePull, [SyncReport.Dropped]) in
            var pulled = SyncReport.ZonePull(zoneName: zone, saved: 0, deleted: 0, zoneDeleted: false)
            var dropped: [SyncReport.Dropped] = []
            var deletions = changes.filter(\.isDeletion).map(\.recordName)
            if replacing {
                let live = Set(changes.filter { !$0.isDeletion }.map(\.recordName))
                let old = try device.serverRecords(zone: zone).map(\.recordName)
                deletions = old.filter { !live.contains($0) }
                try device.wipeZone(zone)
            }
            let pending = Dictionary(try device.pendingEdits(zone: zone).map { ($0.name, $0) }) { a, _ in a }
            var done = 0
            for c in changes {
                if let r = c.record {
                    try device.putServerRecord(r)
                    pulled.saved += 1
                }
                done += 1
                if done % 200 == 0 { progress?(SyncProgress(phase: .pull, done: done, total: changes.count)) }
            }
            for name in deletions {
                try device.removeServerRecord(zone: zone, name: name)
                pulled.deleted += 1
                // Deleted on the server while the device edited it: the deletion wins.
                if let p = pending[name], p.base != nil {
                    try device.dropPending(zone: zone, name: name)
                    if !p.isDelete {
                        dropped.append(.init(zoneName: zone, recordName: name,
                                             reason: "deleted on the server; the device's edit of \(p.fields.keys.sorted().joined(separator: ", ")) was dropped"))
                    }
                }
            }
            try device.setZoneToken(zone, token)
            progress?(SyncProgress(phase: .pull, done: changes.count, total: changes.count))
            return (pulled, dropped)
        }
    }
}
