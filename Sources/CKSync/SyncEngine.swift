import Foundation
import CKFiles
import CKModel
import CKSQLite
import CKServer

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
    /// What a failed save (the record changed or was deleted on the server) becomes: `--on-conflict`.
    public var onConflict: ConflictHandling = .merge
    /// Whether conflicts held by an earlier sync are handed to `onConflict` (sent again) rather than kept held:
    /// `ck sync` sets it when `--on-conflict` is given and is not `manual`.
    public var retryConflicts = false
    /// The most seconds a conflict program may run before its process group is killed.
    public var conflictTimeout: Double = SyncEngine.defaultConflictTimeout
    /// Called as records are pushed and pulled.
    public var progress: ((SyncProgress) -> Void)?
    /// Whether retryable errors (throttling, a busy zone or service, the network) are retried after their retryAfter.
    public var retry = true
    /// The most a sync waits in all for retries, in seconds; a wait beyond it stops the sync (exit 5).
    public var maxWait: Double = SyncEngine.defaultMaxWait
    /// How the engine waits (tests may record instead of sleeping).
    public var sleep: (Double) -> Void = { s in if s > 0 { Thread.sleep(forTimeInterval: s) } }
    /// Called with each CKSyncEngine event as it happens (`ck sync --events`).
    public var events: ((SyncEvent) -> Void)?

    /// `--max-wait`'s default: a few seconds, as an interactive sync would bear.
    public static let defaultMaxWait = 5.0
    /// `--conflict-timeout`'s default.
    public static let defaultConflictTimeout = 10.0
    /// Attempts of one call at most, so a rule that always fires with no wait can't loop.
    package static let maxAttempts = 5
    /// Errors worth trying again as they are; the first four carry retryAfter.
    package static let retryable: Set<CKError.Code> = [.requestRateLimited, .zoneBusy, .serviceUnavailable, .networkFailure, .networkUnavailable]

    public init(device: Device, conflicts: ConflictPolicy = .local, progress: ((SyncProgress) -> Void)? = nil) {
        self.device = device
        self.conflicts = conflicts
        self.progress = progress
    }

    package var db: CKDatabase { device.database }

    /// One sync: push, then pull. Errors of one zone or record stay in the report (their edits stay
    /// pending). A server refusal that stops the sync (a retry beyond --max-wait, an account that can't sync)
    /// ends it early with `report.stopped` set and every unsent edit kept; other errors (the device file,
    /// the store) are thrown.
    public func sync() throws(CKError) -> SyncReport {
        // One sync of a device at a time: a second waits rather than pushing the same edits twice.
        let lock = try FileLock(path: device.path + ".lock", exclusive: true)
        defer { lock.unlock() }
        try device.checkNotMoved()
        var report = SyncReport(device: device.name)
        try checkAccount(&report)
        do {
            try push(&report)
            try pull(&report)
        } catch {
            guard report.stopped != nil else { throw error }
            return report
        }
        report.syncedAt = db.container.store.now()
        try device.transaction { () throws(CKError) in
            try device.setMeta("lastSync", String(report.syncedAt))
            try device.recordFetch(at: report.syncedAt)
        }
        return report
    }

    /// The account comes first, as CKSyncEngine's accountChange event: a device switched to another user, a
    /// sign-out (the account went noAccount) or a sign-in (first sync, or back from noAccount). A switch and a
    /// sign-out clear the pending edits and remove the previous account's data from the device, as CKSyncEngine
    /// resets its state and an app deletes its local data; an account that can't sync then stops the sync.
    package func checkAccount(_ report: inout SyncReport) throws(CKError) {
        let status = try db.accountStatus()
        let previous = try device.meta("accountStatus").flatMap(AccountStatus.init(rawValue:))
        let switchedFrom = try device.switchedFrom()
        var cleared = false
        if switchedFrom != nil || previous != status {
            let type = SyncEngine.accountChangeType(from: previous, to: status, switched: switchedFrom != nil)
            let clear = type == .signOut || type == .switchAccounts
            let counts = try device.transaction { () throws(CKError) -> (pending: Int, records: Int) in
                let counts = clear ? try device.clearAccountData() : (0, 0)
                if switchedFrom != nil { try device.adoptCurrentUser() }
                try device.setMeta("accountStatus", status.rawValue)
                return counts
            }
            cleared = clear
            // A device's first sync has no change to report; CKSyncEngine still posts signIn, in the event stream.
            if let previous {
                report.accountChange = SyncReport.AccountChange(from: previous, to: status, type: type,
                                                                clearedPendingChanges: counts.pending, removedRecords: counts.records)
            }
            if let type {
                emit(.accountChange(SyncEvent.AccountChange(type: type, previousUser: clear ? switchedFrom ?? db.userRecordName : nil,
                                                            currentUser: type == .signOut ? nil : db.userRecordName,
                                                            clearedPendingChanges: counts.pending, removedRecords: counts.records)))
            }
            if clear { try emitState() }
        }
        guard var refusal = status.refusal(for: db.caller, "device \(device.name) can't sync") else { return }
        let pending = try device.pendingEdits(zone: nil).count
        if cleared {
            refusal.reason += "; the account was signed out, so its pending edits were cleared and its data removed from the device"
        } else {
            refusal.reason += "; its \(pending) pending edit\(pending == 1 ? " is" : "s are") kept"
            if let previous, previous != status { refusal.reason += " (the account was \(previous.rawValue) at the last sync)" }
        }
        throw refusal
    }

    // MARK: Server calls

    /// One server call with the engine's error handling: retryable errors are retried after their retryAfter
    /// while the waits stay within `maxWait`; an error that ends the sync is recorded as `report.stopped`.
    package func call<T>(_ operation: String, zone: String?, _ report: inout SyncReport,
                 _ body: () throws(CKError) -> T) throws(CKError) -> T {
        var attempts = 0
        while true {
            do { return try body() } catch {
                report.errors.append(.init(operation: operation, zoneName: zone, error: error))
                attempts += 1
                if SyncEngine.retryable.contains(error.code) {
                    let wait = error.retryAfter ?? 0
                    // When to retry, on the store's clock: throttling windows end on it, not on the wall clock.
                    let store = db.container.store
                    let due = store.now() + Int64((wait * 1000).rounded(.up))
                    let retryAt = "retry at \(ISO8601.format(milliseconds: due)) on the store's clock"
                    if retry && attempts < SyncEngine.maxAttempts && report.waited + wait <= maxWait {
                        // A fixed clock (ck clock set, CK_NOW) does not move while the engine sleeps: retrying
                        // would only meet the same window, so the sync stops and says when to come back.
                        if wait > 0 && store.clockIsFixed {
                            throw try stop(error, report: &report, why: "the store's clock is fixed, so waiting would not pass retryAfter; \(retryAt), after 'ck clock advance'")
                        }
                        sleep(wait)
                        report.waited += wait
                        report.retries.append(.init(operation: operation, zoneName: zone, code: error.code, wait: wait))
                        continue
                    }
                    throw try stop(error, report: &report, why: (!retry ? "--no-retry" :
                        attempts >= SyncEngine.maxAttempts ? "\(attempts) attempts failed" :
                        "waiting \(wait) more seconds would pass --max-wait \(maxWait)") + "; " + retryAt)
                }
                if error.code == .notAuthenticated || error.code == .accountTemporarilyUnavailable {
                    throw try stop(error, report: &report, why: "the account can't sync")
                }
                throw error
            }
        }
    }

    /// Ends the sync with `error`, saying what stays pending.
    package func stop(_ error: CKError, report: inout SyncReport, why: String) throws(CKError) -> CKError {
        var e = error
        let pending = try device.pendingEdits(zone: nil).count
        e.reason += "; sync of \(device.name) stopped (\(why)); its \(pending) pending edit\(pending == 1 ? " is" : "s are") kept"
        report.stopped = e
        return e
    }

    // MARK: Push

    /// Sends pending edits zone by zone, in requests of at most 200 operations.
    package func push(_ report: inout SyncReport) throws(CKError) {
        if retryConflicts && onConflict != .manual { try device.releaseConflicts() }
        // Edits of records in conflict wait for the app to resolve them.
        let edits = try device.sendable(try device.pendingEdits(zone: nil))
        var done = 0
        var zones: [String] = []
        var byZone: [String: [PendingEdit]] = [:]
        for e in edits {
            if byZone[e.zone] == nil { zones.append(e.zone) }
            byZone[e.zone, default: []].append(e)
        }
        // CKSyncEngine sends only when changes are pending.
        guard !zones.isEmpty else { return }
        emit(.willSendChanges(zoneNames: zones))
        for zone in zones {
            try pushZone(byZone[zone] ?? [], zone: zone, &report) { n in
                done += n
                progress?(SyncProgress(phase: .push, done: done, total: edits.count))
            }
        }
        emit(.didSendChanges)
    }

    /// Sends one zone's edits in requests of at most 200. Once the quota is exceeded, saves stay pending and
    /// only deletions are sent (they free space). A zone the user deleted is recreated and uploaded again.
    package func pushZone(_ edits: [PendingEdit], zone: String, _ report: inout SyncReport, done: (Int) -> Void = { _ in }) throws(CKError) {
        let list = try device.sendable(edits)
        for start in stride(from: 0, to: list.count, by: CKDatabase.maxOperationsPerRequest) {
            var chunk = Array(list[start..<min(start + CKDatabase.maxOperationsPerRequest, list.count)])
            if report.quotaExceeded {
                for e in chunk where !e.isDelete { report.kept.append(.init(zoneName: zone, recordName: e.name, error: quotaKept)) }
                chunk = chunk.filter(\.isDelete)
            }
            if !chunk.isEmpty {
                let missing = try pushChunk(chunk, zone: zone, &report)
                // A purged zone was wiped with its pending edits: nothing of it is sent again.
                if report.purged.contains(zone) { return }
                if missing, !report.recreated.contains(zone) {
                    try reupload(zone, &report)
                    try pushZone(try device.pendingEdits(zone: zone), zone: zone, &report)
                    return
                }
            }
            done(chunk.count)
        }
    }

    package var quotaKept: CKError {
        CKError(.quotaExceeded, "not sent: the quota was exceeded earlier in this sync; the save stays pending",
                hint: "free space (deleting is always allowed) or raise the quota ('ck quota set'), then sync again")
    }

    /// The zone is gone from the server (an encrypted-data reset, or it was never made): create it and turn
    /// everything the device holds of it into pending creates, so the push sends it all again.
    package func reupload(_ zone: String, _ report: inout SyncReport) throws(CKError) {
        _ = try call("zoneCreate", zone: zone, &report) { () throws(CKError) in try db.createZone(zone) }
        emit(.sentDatabaseChanges(savedZones: [zone], failedZoneSaves: []))
        report.recreated.append(zone)
        try device.transaction { () throws(CKError) in
            let pending = Dictionary(try device.pendingEdits(zone: zone).map { ($0.name, $0) }) { a, _ in a }
            for r in try device.serverRecords(zone: zone) {
                var p = pending[r.recordName] ?? PendingEdit(zone: zone, name: r.recordName, type: r.recordType, isDelete: false,
                                                             fields: [:], base: nil, version: 0)
                try device.removeServerRecord(zone: zone, name: r.recordName)
                if p.isDelete { try device.dropPending(zone: zone, name: p.name); continue }
                var fields: [String: FieldValue?] = r.fields.mapValues { .some($0) }
                for (k, v) in p.fields { fields[k] = v }
                p.fields = fields.filter { $0.value != nil }
                p.base = nil
                p.version += 1
                try device.putPending(p)
            }
            // Edits made on server copies that are gone now create their records.
            for p in pending.values where p.base != nil && !p.isDelete {
                var q = p
                q.base = nil
                q.version += 1
                try device.putPending(q)
            }
            for p in pending.values where p.isDelete { try device.dropPending(zone: zone, name: p.name) }
            try device.setZoneToken(zone, nil)
        }
    }

    /// The operation that sends an edit: only the changed keys, with the ancestor's tag (ifServerRecordUnchanged).
    package func operation(_ e: PendingEdit) -> RecordOperation {
        if e.isDelete {
            return RecordOperation(type: .delete, recordName: e.name, recordType: e.type, changeTag: e.base?.changeTag)
        }
        var fields: [String: FieldInput] = [:]
        for (k, v) in e.fields { fields[k] = v.map { .value($0) } ?? .unset }
        return RecordOperation.save(recordType: e.type, recordName: e.name, fields: fields,
                                    ifTag: e.base?.changeTag, policy: nil)
    }

    /// Sends one request; returns true when the zone is missing and should be recreated (zoneNotFound for a zone
    /// the server never reported deleted, or reported gone in an encrypted-data reset). userDeletedZone (a purged
    /// zone) wipes the zone and its pending edits instead.
    package func pushChunk(_ chunk: [PendingEdit], zone: String, _ report: inout SyncReport) throws(CKError) -> Bool {
        let result: ModifyResult
        do { result = try call("modify", zone: zone, &report) { () throws(CKError) in try db.modify(chunk.map(operation), zone: zone) } } catch {
            if report.stopped != nil { throw error }
            emitSent(chunk, refused: error)
            if error.code == .userDeletedZone {
                try zonePurged(zone, &report)
                return false
            }
            if error.code == .zoneNotFound, try !deletedOnServer(zone, &report) { return true }
            if error.code == .quotaExceeded {
                // The whole request was refused: deletions go on their own, saves wait for space.
                report.quotaExceeded = true
                for e in chunk where !e.isDelete { report.kept.append(.init(zoneName: zone, recordName: e.name, error: error)) }
                let deletes = chunk.filter(\.isDelete)
                if !deletes.isEmpty { return try pushChunk(deletes, zone: zone, &report) }
                return false
            }
            // Nothing was written; the edits wait for a later sync (a zone deleted on the server: the pull drops them).
            for e in chunk { report.kept.append(.init(zoneName: zone, recordName: e.name, error: error)) }
            return false
        }
        var retries: [(edit: PendingEdit, op: RecordOperation, merge: SyncReport.Merge?)] = []
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
                    if let (op, merge) = try failedSave(edit, server: server, &report) { retries.append((edit, op, merge)) }
                case .unknownItem where edit.isDelete:
                    // Already gone on the server: what the device wanted.
                    try acknowledge(edit, saved: nil)
                    report.pushedDeletes.append(.init(zoneName: zone, recordName: edit.name))
                case .quotaExceeded:
                    report.quotaExceeded = true
                    report.kept.append(.init(zoneName: zone, recordName: edit.name, error: error))
                case .unknownItem where edit.base != nil:
                    // Deleted on the server while the device edited it (merge: the deletion wins).
                    if let (op, merge) = try failedSave(edit, server: nil, &report) { retries.append((edit, op, merge)) }
                default:
                    report.kept.append(.init(zoneName: zone, recordName: edit.name, error: error))
                }
            }
        }
        emitSent(chunk, result.results)
        try emitState()
        guard !retries.isEmpty else { return false }
        let second: ModifyResult
        do { second = try call("modify", zone: zone, &report) { () throws(CKError) in try db.modify(retries.map(\.op), zone: zone) } } catch {
            if report.stopped != nil { throw error }
            emitSent(retries.map(\.edit), refused: error)
            for r in retries { report.kept.append(.init(zoneName: zone, recordName: r.edit.name, error: error)) }
            return false
        }
        emitSent(retries.map(\.edit), second.results)
        for (retry, r) in zip(retries, second.results) {
            switch r {
            case .saved(let rec):
                try acknowledge(retry.edit, saved: rec)
                report.pushedSaves.append(.init(zoneName: zone, recordName: retry.edit.name))
                if let merge = retry.merge { report.merges.append(merge) }
            case .deleted:
                try acknowledge(retry.edit, saved: nil)
                report.pushedDeletes.append(.init(zoneName: zone, recordName: retry.edit.name))
                if let merge = retry.merge { report.merges.append(merge) }
            case .failed(_, let error):
                // Changed again meanwhile: the edit stays pending and the next sync merges anew.
                report.kept.append(.init(zoneName: zone, recordName: retry.edit.name, error: error))
            }
        }
        try emitState()
        return false
    }

    /// Whether the database change feed since the device's token reports the zone deleted (not purged, not reset):
    /// then the deletion wins and the pull drops the device's copy.
    package func deletedOnServer(_ zone: String, _ report: inout SyncReport) throws(CKError) -> Bool {
        let token = try device.meta("databaseToken")
        let changes = try call("databaseChanges", zone: nil, &report) { () throws(CKError) in try db.databaseChanges(since: token) }
        return changes.zones.contains { $0.zoneID.zoneName == zone && $0.deleted && SyncEngine.deletionReason($0) == .deleted }
    }

    /// The server took an edit (or made it moot): the new server copy and the end of the edit, in one transaction.
    /// A newer local edit made during the push stays pending, based on what the server answered.
    package func acknowledge(_ edit: PendingEdit, saved: Record?) throws(CKError) {
        try device.transaction { () throws(CKError) in
            if let saved { try device.putServerRecord(saved) } else { try device.removeServerRecord(zone: edit.zone, name: edit.name) }
            try device.clearPending(zone: edit.zone, name: edit.name, version: edit.version)
            if let saved { try device.rebasePending(zone: edit.zone, name: edit.name, on: saved) }
        }
    }

    // MARK: Pull

    /// Fetches the database's changed zones, then each zone's changes; each zone's records are applied in one
    /// transaction with its token, and the database token is stored last.
    package func pull(_ report: inout SyncReport) throws(CKError) {
        emit(.willFetchChanges)
        var token = try device.meta("databaseToken")
        var zones: [ZoneChange] = []
        var refetchAll = false
        while true {
            let page: DatabaseChanges
            do {
                let since = token
                page = try call("databaseChanges", zone: nil, &report) { () throws(CKError) in try db.databaseChanges(since: since) }
            } catch {
                guard error.code == .changeTokenExpired, token != nil, report.stopped == nil else { throw error }
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
        emit(.fetchedDatabaseChanges(modifications: zones.filter { !$0.deleted }.map(\.zoneID.zoneName),
                                     deletions: zones.filter(\.deleted).map { ($0.zoneID.zoneName, SyncEngine.deletionReason($0)) }))
        for z in zones {
            let name = z.zoneID.zoneName
            if z.deleted {
                switch SyncEngine.deletionReason(z) {
                case .purged:
                    // The user deleted the zone from settings: wipe it and never send its edits again.
                    if !report.purged.contains(name) { try zonePurged(name, &report) }
                case .encryptedDataReset:
                    // The data went with the user's encryption keys: recreate the zone and upload what the device holds.
                    if !report.recreated.contains(name) {
                        try reupload(name, &report)
                        try pushZone(try device.pendingEdits(zone: name), zone: name, &report)
                    }
                case .deleted:
                    try zoneDeleted(name, &report)
                }
                continue
            }
            try pullZone(name, refetch: refetchAll || report.recreated.contains(name), &report)
        }
        // A recreated zone the feed did not list again (recreated by this sync) is fetched whole.
        for name in report.recreated where !zones.contains(where: { !$0.deleted && $0.zoneID.zoneName == name }) {
            try pullZone(name, refetch: true, &report)
        }
        if let token {
            let final = token
            try device.transaction { () throws(CKError) in try device.setMeta("databaseToken", final) }
        }
        try emitState()
        emit(.didFetchChanges)
    }

    /// A zone deleted on the server: the device forgets its copy; edits of records that were on the server are
    /// dropped (the deletion wins); records created on the device stay pending.
    package func zoneDeleted(_ zone: String, _ report: inout SyncReport) throws(CKError) {
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
        report.pulled.append(.init(zoneName: zone, saved: 0, deleted: 0, zoneDeleted: true, deletionReason: .deleted))
    }

    /// Changes fetched per zoneChanges call while pulling: memory holds one page, whatever the zone's size. A page
    /// costs the same wherever it starts (the index reads it by sequence number), so pages can be small.
    package static let pullPageSize = 400

    /// Fetches a zone's changes page by page and applies them, with the zone's new token, in one transaction.
    /// A refusal from the server rolls the transaction back; the zone is then fetched again, recreated,
    /// forgotten or kept as it was, as the refusal says.
    package func pullZone(_ zone: String, refetch: Bool, _ report: inout SyncReport) throws(CKError) {
        var full = refetch
        emit(.willFetchRecordZoneChanges(zoneName: zone))
        while true {
            var refused: CKError? = nil
            do {
                let (pulled, dropped) = try device.transaction { () throws(CKError) -> (SyncReport.ZonePull, [SyncReport.Dropped]) in
                    try pullPages(zone, replacing: full, &report) { (error) throws(CKError) in
                        refused = error
                        throw error
                    }
                }
                report.pulled.append(pulled)
                report.dropped += dropped
                try emitState()
                emit(.didFetchRecordZoneChanges(zoneName: zone, error: nil))
                return
            } catch {
                guard let error = refused, report.stopped == nil else { throw error }
                switch error.code {
                case .changeTokenExpired where !full:
                    // Toss the local copy of the zone (pending edits stay) and fetch it again from the start.
                    report.refetched.append(zone)
                    full = true
                case .userDeletedZone:
                    emit(.didFetchRecordZoneChanges(zoneName: zone, error: error))
                    if !report.purged.contains(zone) { try zonePurged(zone, &report) }
                    return
                case .zoneNotFound:
                    emit(.didFetchRecordZoneChanges(zoneName: zone, error: error))
                    try zoneDeleted(zone, &report)
                    return
                default:
                    emit(.didFetchRecordZoneChanges(zoneName: zone, error: error))
                    report.kept.append(.init(zoneName: zone, recordName: nil, error: error))
                    return
                }
            }
        }
    }

    /// Applies a zone's changes page by page (inside the caller's transaction) and stores its new token. With
    /// `replacing`, the changes are the whole zone: server copies they lack were deleted. `refuse` is called
    /// with an error of the server and throws it.
    package func pullPages(_ zone: String, replacing: Bool, _ report: inout SyncReport,
                   refuse: (CKError) throws(CKError) -> Never) throws(CKError) -> (SyncReport.ZonePull, [SyncReport.Dropped]) {
        var pulled = SyncReport.ZonePull(zoneName: zone, saved: 0, deleted: 0, zoneDeleted: false)
        var dropped: [SyncReport.Dropped] = []
        var token = replacing ? nil : try device.zoneToken(zone)
        var old: [(name: String, type: String)] = []
        var live = Set<String>()
        if replacing {
            old = try device.serverRecordTypes(zone: zone)
            try device.wipeZone(zone)
        }
        let pending = Dictionary(try device.pendingEdits(zone: zone).map { ($0.name, $0) }) { a, _ in a }
        /// Deleted on the server: the device forgets its copy, and the deletion wins over the device's edit.
        func deleted(_ name: String, type: String) throws(CKError) {
            try device.removeServerRecord(zone: zone, name: name)
            pulled.deleted += 1
            pulled.deletedRecordIDs.append(SyncEvent.DeletedRecord(zoneName: zone, recordName: name, recordType: type))
            if let p = pending[name], p.base != nil {
                try device.dropPending(zone: zone, name: name)
                if !p.isDelete {
                    dropped.append(.init(zoneName: zone, recordName: name,
                                         reason: "deleted on the server; the device's edit of \(p.fields.keys.sorted().joined(separator: ", ")) was dropped"))
                }
            }
        }
        var done = 0, total = 0
        // Saves come as their log lines' bytes and are stored as they are, unless the events need whole records.
        let stored = events == nil
        while true {
            let page: StoredZoneChanges
            do {
                let since = token, first = done == 0
                // What is left is counted once, for progress; later pages only take their part off it.
                page = try call("zoneChanges", zone: zone, &report) { () throws(CKError) in
                    try db.storedZoneChangesPage(zone: zone, since: since, limit: SyncEngine.pullPageSize, countingPending: first,
                                                 stored: stored)
                }
            } catch {
                try refuse(error)
            }
            total = max(total, done + page.pending)
            let deletedBefore = pulled.deletedRecordIDs.count
            var modifications: [Record] = []
            let insert = try device.statement(Device.putServerRecordSQL)
            for c in page.changes {
                switch c {
                case .stored(let r):
                    let name = try device.putServerRecord(zone: zone, stored: r, with: insert)
                    pulled.saved += 1
                    pulled.modifiedRecordNames.append(name)
                    if replacing { live.insert(name) }
                case .change(let ch):
                    if let r = ch.record {
                        try device.putServerRecord(r, with: insert)
                        pulled.saved += 1
                        pulled.modifiedRecordNames.append(r.recordName)
                        if replacing { live.insert(r.recordName) }
                        if !stored { modifications.append(r) }
                    } else if replacing {
                        live.remove(ch.recordName)
                    } else {
                        try deleted(ch.recordName, type: ch.recordType)
                    }
                }
                done += 1
                if done % 200 == 0 { progress?(SyncProgress(phase: .pull, done: done, total: total)) }
            }
            // Each batch as CKSyncEngine hands it over (a refused zone's batches come again when it is fetched anew).
            emit(.fetchedRecordZoneChanges(modifications: modifications, deletions: Array(pulled.deletedRecordIDs[deletedBefore...])))
            token = page.syncToken
            if !page.moreComing { break }
        }
        if replacing {
            let deletedBefore = pulled.deletedRecordIDs.count
            for (name, type) in old where !live.contains(name) { try deleted(name, type: type) }
            if pulled.deletedRecordIDs.count > deletedBefore {
                emit(.fetchedRecordZoneChanges(modifications: [], deletions: Array(pulled.deletedRecordIDs[deletedBefore...])))
            }
        }
        try device.setZoneToken(zone, token)
        progress?(SyncProgress(phase: .pull, done: done, total: max(total, done)))
        return (pulled, dropped)
    }
}
