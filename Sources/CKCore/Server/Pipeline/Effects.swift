/// The effects stage for record changes in one zone: asset bytes, schema, log lines, index rows and
/// notifications are written here and nowhere else, whichever operation made the changes.
struct RecordEffects {
    let db: CKDatabase
    let zone: Zone
    let path: String
    private(set) var reader: ZoneReader
    private(set) var tail: ZoneLogContents
    var hook: NotificationHook?
    /// Lines appended since the last sync.
    private(set) var unsynced = false

    init(db: CKDatabase, zone: Zone, notify: Bool) throws(CKError) {
        self.db = db
        self.zone = zone
        path = db.env.logPath(database: db.scope, zone: zone.zoneID)
        (reader, tail) = try db.env.openZone(path)
        let h = notify ? try NotificationHook(db: db, zone: zone) : nil
        hook = h?.isEmpty == false ? h : nil
    }

    /// Writes one request's changes. Schema first: a crash after it leaves a field with no records, never a
    /// record the schema lacks. The lines are synced before notifications name them.
    mutating func commit(_ entries: [LogEntry], schema: Schema, schemaChanged: Bool, assets: [String: [UInt8]]) throws(CKError) {
        guard !entries.isEmpty else { return }
        for hash in assets.keys.sorted() {
            if let bytes = assets[hash] { try db.env.storeAsset(sha256: hash, bytes: bytes) }
        }
        if schemaChanged { try db.env.writeSchema(schema) }
        // Read before the log moves on: a change's "before" record is what the reader sees now.
        let changes = try hook.map { (h) throws(CKError) -> [NotificationHook.Change] in try h.changes(entries, reader: reader) } ?? []
        let spans = try ZoneLog.append(path, entries, after: tail, sync: false)
        unsynced = true
        if let index = try db.env.index() {
            try index.appended(path, entries, spans: spans, after: tail)
        } else if let folded = reader as? FoldedZone {
            reader = folded.applying(entries)
        }
        tail = ZoneLogContents.after(tail, spans: spans, count: entries.count)
        if !changes.isEmpty, var h = hook {
            try h.deliver(changes, schema: schema, logPath: path)
            hook = h
        }
    }

    /// Makes what was appended durable.
    mutating func sync() throws(CKError) {
        if unsynced { try FileIO.sync(path) }
        unsynced = false
    }
}

extension CKDatabase {
    /// The effects stage for dropped zones (a zone delete, a schema reset, an import that replaces): each log
    /// goes, the zone is recorded as deleted in the database change feed with a fresh sequence number, the
    /// index forgets it, and the owner's database subscriptions fire. Call with the exclusive lock held.
    func dropZones(_ zones: [Zone], catalog: inout ZoneCatalog, notify: Bool, purged: Bool = false) throws(CKError) {
        guard !zones.isEmpty else { return }
        let file = notify ? try SubscriptionFile.read(env.subscriptionsPath) : SubscriptionFile()
        var seq = try env.highestSeq(catalog: catalog)
        for zone in zones {
            let path = env.logPath(database: zone.database, zone: zone.zoneID)
            // Database subscriptions with a record type fire only if the zone held such records.
            let typed = file.subscriptions.contains { s in
                if case .database(let t?) = s.kind { return s.ownerRecordName == zone.zoneID.ownerRecordName && s.database == .private && !t.isEmpty }
                return false
            }
            let types = typed ? Set(CKDatabase.fold(try env.readLog(path).entries).values.map(\.recordType)) : []
            seq += 1
            // The log goes first: a crash then leaves an empty zone, never a deleted zone whose records return.
            if FileIO.exists(path) { try FileIO.removeTree(path) }
            catalog.zones.removeAll { $0.zoneID == zone.zoneID && $0.database == zone.database }
            catalog.deleted.append((zone, store.now(), seq, purged))
            catalog.lastSeq = seq
            try env.writeCatalog(catalog)
            try env.index()?.sync(path, warnings: &env.warnings)
            if !file.subscriptions.isEmpty { try notifyZoneDeleted(zone, recordTypes: types, file: file) }
        }
    }
}
