import CKModel
import CKSchema
import CKStorage

/// The effects stage for record changes in one zone: asset bytes, schema, log lines, index rows and
/// notifications are written here and nowhere else, whichever operation made the changes.
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
        path = db.env.logPath(database: db.scope, zone: zone.zoneID)
        (reader, tail) = try db.env.openZone(path)
        let h = notify ? NotificationHook(db: db, zone: zone) : nil
        hook = h?.isEmpty == false ? h : nil
    }

    /// Writes one request's changes. Schema first: a crash after it leaves a field with no records, never a
    /// record the schema lacks. The lines are synced before notifications name them.
    package mutating func commit(_ entries: [LogEntry], schema: Schema, schemaChanged: Bool, assets: [String: [UInt8]]) throws(CKError) {
        guard !entries.isEmpty else { return }
        for hash in assets.keys.sorted() {
            if let bytes = assets[hash] { try db.env.storeAsset(sha256: hash, bytes: bytes) }
        }
        if schemaChanged { try db.env.writeSchema(schema) }
        // Read before the log moves on: a change's "before" record is what the reader sees now.
        let changes = try hook.map { (h) throws(CKError) -> [NotificationHook.Change] in try h.changes(entries, reader: reader) } ?? []
        // The notifications are recorded durably before the lines they name: a crash between the two is
        // finished by the next writer (delivered, or dropped if the lines never made it).
        var pending: PendingNotifications? = nil
        if !changes.isEmpty, var h = hook {
            pending = try h.prepare(changes, schema: schema, logPath: path, at: tail.validLength, entries: entries)
            hook = h
        }
        let spans = try ZoneLog.append(path, entries, after: tail, sync: false)
        unsynced = true
        if let index = try db.env.index() {
            try index.appended(path, entries, spans: spans, after: tail)
        } else if let folded = reader as? FoldedZone {
            reader = folded.applying(entries)
        }
        tail = ZoneLogContents.after(tail, spans: spans, count: entries.count)
        try pending?.deliver(db.env, checkExisting: false)
    }

    /// Makes what was appended durable.
    package mutating func sync() throws(CKError) {
        if unsynced { try db.env.syncLog(path) }
        unsynced = false
    }
}

extension CKDatabase {
    /// The bookkeeping of dropped zones: each leaves the catalog and is recorded as deleted with a fresh
    /// sequence number, so the database change feed reports it. Returns the record types each held (for
    /// database subscriptions with a type). The caller removes the logs in the same all-or-nothing step.
    @discardableResult
    package func recordDropped(_ zones: [Zone], catalog: inout ZoneCatalog, typesFor file: SubscriptionFile = SubscriptionFile(),
                       purged: Bool = false) throws(CKError) -> [Set<String>] {
        var seq = try env.highestSeq(catalog: catalog)
        var types: [Set<String>] = []
        for zone in zones {
            // Database subscriptions with a record type fire only if the zone held such records.
            let typed = file.subscriptions.contains { s in
                if case .database(let t?) = s.kind { return s.ownerRecordName == zone.zoneID.ownerRecordName && s.database == .private && !t.isEmpty }
                return false
            }
            let path = env.logPath(database: zone.database, zone: zone.zoneID)
            types.append(typed ? Set(CKDatabase.fold(try env.readLog(path).entries).values.map(\.recordType)) : [])
            seq += 1
            catalog.zones.removeAll { $0.zoneID == zone.zoneID && $0.database == zone.database }
            catalog.deleted.append((zone, store.now(), seq, purged))
            catalog.lastSeq = seq
        }
        return types
    }

    /// The effects stage for dropped zones (a zone delete; reset and import drop theirs inside their own swap):
    /// the catalog and the logs change together in one intent, so a crash leaves each zone whole or deleted;
    /// then the index forgets the logs and the owners' database subscriptions fire. Call with the exclusive lock held.
    /// `purged`: deleted by the user from iCloud settings (devices then see userDeletedZone).
    package func dropZones(_ zones: [Zone], catalog: inout ZoneCatalog, notify: Bool, purged: Bool = false) throws(CKError) {
        guard !zones.isEmpty else { return }
        let file = notify ? try SubscriptionFile.read(env.subscriptionsPath) : SubscriptionFile()
        let types = try recordDropped(zones, catalog: &catalog, typesFor: file, purged: purged)
        let paths = zones.map { env.logPath(database: $0.database, zone: $0.zoneID) }
        let names = zones.map(\.zoneID.zoneName).joined(separator: ", ")
        // The owners' notification logs, with the deletions' notifications added, are swapped in by the same
        // intent: a crash leaves the zones and their notifications both in place or both gone.
        var byOwner: [String: [SubscriptionNotification]] = [:]
        for (zone, t) in zip(zones, types) {
            byOwner[zone.zoneID.ownerRecordName, default: []] += zoneDeletedNotifications(zone, recordTypes: t, file: file)
        }
        try env.dropZoneFiles(operation: (purged ? "zone purge " : "zone delete ") + names, catalog: catalog, logs: paths, notifications: byOwner)
    }
}
