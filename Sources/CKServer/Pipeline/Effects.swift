import CKModel
import CKSchema
import CKStorage

/// The effects stage for record changes in one zone: a request's asset bytes, schema, log lines, index rows and
/// notifications go to the writer from here, as one list of changes per request, whichever operation made them.
package struct RecordEffects {
    package let db: CKDatabase
    package let zone: Zone
    package let path: String
    package private(set) var reader: ZoneReader
    package private(set) var tail: ZoneLogContents
    package var hook: NotificationHook?
    /// Lines appended since the last sync.
    package private(set) var unsynced = false

    package init(db: CKDatabase, zone: Zone, notify: Bool) throws(CKError) {
        self.db = db
        self.zone = zone
        // The zone's own database: a shared zone's log is its owner's (logPath maps shared to private).
        path = db.env.logPath(database: zone.database, zone: zone.zoneID)
        (reader, tail) = try db.env.openZone(path)
        let h = notify ? NotificationHook(db: db, zone: zone) : nil
        hook = h?.isEmpty == false ? h : nil
    }

    /// Hands one request's changes to the writer, in the order it keeps: asset bytes first (a crash after them
    /// leaves bytes with no records), then the lines with what takes effect with them — the notifications they
    /// make and the schema they grew — recorded durably before the lines and applied after them, so a crash
    /// leaves both or neither.
    package mutating func commit(_ entries: [LogEntry], schema: Schema, schemaChanged: Bool, assets: [String: [UInt8]]) throws(CKError) {
        guard !entries.isEmpty else { return }
        var changes: [StoreChange] = []
        for hash in assets.keys.sorted() {
            if let bytes = assets[hash] { changes.append(.asset(sha256: hash, bytes: bytes)) }
        }
        // Read before the log moves on: a change's "before" record is what the reader sees now.
        let found = try hook.map { (h) throws(CKError) -> [NotificationHook.Change] in try h.changes(entries, reader: reader) } ?? []
        var pending: PendingNotifications? = nil
        if !found.isEmpty, var h = hook {
            pending = h.prepare(found, schema: schema, reader: reader, logPath: path, at: tail.validLength, entries: entries)
            hook = h
        }
        if schemaChanged, let first = entries.first {
            if pending == nil {
                pending = PendingNotifications(log: db.env.relative(path), offset: tail.validLength, count: entries.count, firstSeq: first.seq)
            }
            pending?.schema = schema
        }
        changes.append(.records(path: path, entries: entries, tail: tail, notifications: pending))
        let tails = try db.env.apply(changes)
        unsynced = true
        // Without an index, reads fold the log: the reader learns the lines it has not read.
        if !db.env.indexEnabled, let folded = reader as? FoldedZone { reader = folded.applying(entries) }
        tail = tails.last ?? tail
    }

    /// Makes what was appended durable.
    package mutating func sync() throws(CKError) {
        if unsynced { try db.env.apply([.syncLog(path)]) }
        unsynced = false
    }

    /// What was appended, to be made durable after the lock is released (nil: nothing to sync). Call with the
    /// lock held; the caller reports nothing as done before it has synced.
    package mutating func syncAfterUnlock() -> LogSync? {
        defer { unsynced = false }
        return unsynced ? LogSync(path) : nil
    }
}

extension CKDatabase {
    /// The bookkeeping of dropped zones: each leaves the catalog and is recorded as deleted with a fresh
    /// sequence number, so the database change feed reports it. Returns, per zone, its live records when they were
    /// read (for database subscriptions with a type, or a zone that can hold shares), else none. The caller removes
    /// the logs in the same all-or-nothing step.
    @discardableResult
    package func recordDropped(_ zones: [Zone], catalog: inout ZoneCatalog, typesFor file: SubscriptionFile = SubscriptionFile(),
                       purged: Bool = false, encryptedDataReset: Bool = false) throws(CKError) -> [[String: Record]] {
        var seq = try env.highestSeq(catalog: catalog)
        var read: [[String: Record]] = []
        for zone in zones {
            // Database subscriptions with a record type fire only if the zone held such records.
            let typed = file.subscriptions.contains { s in
                if case .database(let t?) = s.kind { return s.ownerRecordName == zone.zoneID.ownerRecordName && s.database == .private && !t.isEmpty }
                return false
            }
            let path = env.logPath(database: zone.database, zone: zone.zoneID)
            // A zone that can hold shares is read for who had accepted them: their shared databases lose it too.
            var sharable = zone.database == .private && zone.capabilities.contains(.sharing)
            if sharable, !typed, let index = try env.index() {
                // The index says whether the zone holds a share, so a zone without one is not read whole.
                try index.sync(path, warnings: &env.warnings)
                sharable = try index.holds(path, recordType: Share.recordType)
            }
            let live = typed || sharable ? CKDatabase.fold(try env.readLog(path).entries) : [:]
            read.append(live)
            var sharedWith = Set<String>()
            for r in live.values where r.isShare {
                for p in r.shareInfo?.participants ?? [] where p.role != .owner && p.acceptance == .accepted { sharedWith.insert(p.userRecordName) }
            }
            seq += 1
            catalog.zones.removeAll { $0.zoneID == zone.zoneID && $0.database == zone.database }
            catalog.deleted.append((zone, store.now(), seq, purged, encryptedDataReset, sharedWith.sorted()))
            catalog.lastSeq = seq
        }
        return read
    }

    /// The change of dropped zones (a zone delete; reset and import drop theirs inside their own swap): the writer
    /// changes the catalog and the logs together in one intent, so a crash leaves each zone whole or deleted; then
    /// the index forgets the logs and the owners' database subscriptions fire. Call with the exclusive lock held.
    /// `purged`: deleted by the user from iCloud settings (devices then see userDeletedZone); `encryptedDataReset`:
    /// gone with the user's encrypted data (devices upload what they hold again).
    package func dropZones(_ zones: [Zone], catalog: inout ZoneCatalog, notify: Bool, purged: Bool = false,
                           encryptedDataReset: Bool = false) throws(CKError) -> StoreChange? {
        guard !zones.isEmpty else { return nil }
        let file = notify ? try SubscriptionFile.read(env.subscriptionsPath) : SubscriptionFile()
        let read = try recordDropped(zones, catalog: &catalog, typesFor: file, purged: purged, encryptedDataReset: encryptedDataReset)
        let paths = zones.map { env.logPath(database: $0.database, zone: $0.zoneID) }
        let names = zones.map(\.zoneID.zoneName).joined(separator: ", ")
        // The owners' notification logs, with the deletions' notifications added, are swapped in by the same
        // intent: a crash leaves the zones and their notifications both in place or both gone.
        var byOwner: [String: [SubscriptionNotification]] = [:]
        for (zone, live) in zip(zones, read) {
            byOwner[zone.zoneID.ownerRecordName, default: []] += zoneDeletedNotifications(zone, recordTypes: Set(live.values.map(\.recordType)), file: file)
            // The zone also leaves the shared database of each participant who accepted one of its shares.
            guard zone.database == .private, zone.capabilities.contains(.sharing),
                  file.subscriptions.contains(where: { $0.database == .shared }) else { continue }
            for (owner, list) in SharedSubscribers.zoneDropped(zone, live: live, file: file, deviceID: deviceID, time: store.now()) {
                byOwner[owner, default: []] += list
            }
        }
        return .dropZones(operation: (purged ? "zone purge " : encryptedDataReset ? "zone reset-encrypted " : "zone delete ") + names, catalog: catalog, logs: paths,
                          notifications: byOwner)
    }
}
