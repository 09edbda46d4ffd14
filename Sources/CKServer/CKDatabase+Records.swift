import Foundation
import CKModel
import CKSchema
import CKStorage

/// The outcome of a modify request.
public struct ModifyResult: Sendable {
    /// One result per operation, in order, then cascaded deletions.
    public var results: [RecordResult]
    /// True when the zone applied the request atomically.
    public var atomic: Bool
    /// Records a DELETE_SELF cascade removed after the request, in the default zone (not in `results`: the request's
    /// answer does not list them, as CloudKit runs that cascade asynchronously).
    public var removedAfter: [RecordResult] = []

    public var failures: [CKError.ItemFailure] {
        results.compactMap { r in r.error.map { CKError.ItemFailure(id: r.recordName, error: $0) } }
    }
}

extension CKDatabase {
    /// Applies up to 200 operations to one zone in order, as records/modify does.
    /// With `atomic` in a zone with the atomic capability, one failure fails them all and nothing is written.
    public func modify(_ operations: [RecordOperation], zone zoneName: String = Names.defaultZoneName,
                       atomic: Bool = false, stagedAssets: [String: [UInt8]] = [:]) throws(CKError) -> ModifyResult {
        var out: ModifyResult? = nil
        try modify(requests: [operations], zone: zoneName, atomic: atomic, stagedAssets: stagedAssets) { out = $0 }
        return out ?? ModifyResult(results: [], atomic: false)
    }

    /// Applies several requests (each at most 200 operations, each atomic on its own as CloudKit applies
    /// them) under one lock. The log is synced every `syncEvery` requests and at the end; `durable` is called
    /// after each sync. `each` sees every request's result in order; what it was told is durable once
    /// `durable` has been called after it (or this returns).
    /// Inlinable so the sequence is walked specialised in the caller's module: a generic body run unspecialised
    /// looks up `S.Iterator` at run time, a scan of every conformance in the static binary (docs/performance.md).
    @inlinable
    public func modify<S: Sequence>(requests: S, zone zoneName: String = Names.defaultZoneName, atomic: Bool = false,
                                    stagedAssets: [String: [UInt8]] = [:], syncEvery: Int = 25,
                                    durable: () -> Void = {},
                                    each: (ModifyResult) throws(CKError) -> Void) throws(CKError) where S.Element == [RecordOperation] {
        var iterator = requests.makeIterator()
        try modify(nextRequest: { iterator.next() }, all: requests as? [[RecordOperation]], zone: zoneName, atomic: atomic,
                   stagedAssets: stagedAssets, syncEvery: syncEvery, durable: durable, each: each)
    }

    /// The body of `modify(requests:)`, one request at a time from `nextRequest`; `all` is the whole list when the
    /// caller has it, so its `@file` values can be read before the lock.
    @usableFromInline
    package func modify(nextRequest: () -> [RecordOperation]?, all: [[RecordOperation]]?, zone zoneName: String, atomic: Bool,
                        stagedAssets: [String: [UInt8]], syncEvery: Int, durable: () -> Void,
                        each: (ModifyResult) throws(CKError) -> Void) throws(CKError) {
        // The caller's `@file` values are read here, before the lock (a lazy stream of requests is read under it,
        // so its files are read at parse time). A closure, not `\.fields.values`: a key path is built at run time.
        let files = all.map { all in self.files.prefetching(all.flatMap { $0.flatMap { $0.fields.values } }) } ?? self.files
        var lastSync: LogSync? = nil
        var lost: CKError? = nil
        try perform(.recordModify, zone: zoneName) { (state) throws(CKError) in
            guard let zone = state.zone else { return }
            var effects = try RecordEffects(db: self, zone: zone, notify: true)
            var seq = try env.highestSeq(catalog: state.catalog)
            var schema = try env.readSchema()
            var sinceSync = 0
            var committed = false
            // Field and type names found valid, kept from request to request (a bulk load checks each once).
            var checked = (keys: Set<String>(), types: Set<String>())
            while let operations = nextRequest() {
                guard operations.count <= CKDatabase.maxOperationsPerRequest else {
                    throw CKError(.limitExceeded, "\(operations.count) operations in one request; CloudKit allows \(CKDatabase.maxOperationsPerRequest)",
                                  hint: "split the request in smaller batches")
                }
                // The fault stage of a record modify: per request (save and/or delete), then per record in the session.
                let ops = Set(operations.map { $0.type.isDelete ? FaultRule.Op.delete : .save })
                if let lost = try injectFaults(state.faults, faultPoint(state.context, ops: ops)) { state.lostResponse = lost }
                var session = ModifySession(db: self, zone: zone, logPath: effects.path, reader: effects.reader, schema: schema,
                                            seq: seq, stagedAssets: stagedAssets, gate: state.gate, files: files)
                session.quota = state.quota
                (session.checkedKeys, session.checkedTypes) = checked
                let result = applyRequest(operations, session: &session, atomic: atomic && zone.capabilities.contains(.atomic))
                try session.checkRequestSize()
                if let lost = session.lostResponse { state.lostResponse = lost }
                if !result.atomic || !result.results.contains(where: { $0.error != nil }), !session.entries.isEmpty {
                    let assets = session.usedAssets.reduce(into: [String: [UInt8]]()) { $0[$1] = session.stagedAssets[$1] }
                    try effects.commit(session.entries, schema: session.schema, schemaChanged: session.schemaChanged, assets: assets)
                    // Bytes given with the save are this caller's upload: a receipt for later saves in this process.
                    for hash in assets.keys { store.assetReceipts.grant(hash, in: self) }
                    committed = true
                    seq = session.seq
                    schema = session.schema
                    state.quota = session.quota
                }
                checked = (session.checkedKeys, session.checkedTypes)
                try each(result)
                sinceSync += 1
                if sinceSync >= syncEvery {
                    try effects.sync()
                    sinceSync = 0
                    durable()
                }
            }
            // The last sync runs once the lock is released: writers waiting for it append meanwhile, and one flush
            // covers several requests (group commit). Nothing is reported as done before it.
            lastSync = effects.syncAfterUnlock()
            state.wroteNothing = !committed
            lost = state.lostResponse
            state.lostResponse = nil
        }
        try lastSync?.sync()
        // A lost response: applied and durable, but the client never hears so.
        if let lost { throw lost }
        durable()
    }

    /// Applies one request's operations to a session; failed operations leave no trace in it.
    package func applyRequest(_ operations: [RecordOperation], session: inout ModifySession, atomic: Bool) -> ModifyResult {
        var results: [RecordResult] = []
        var cascaded: [RecordResult] = []
        var seen = Set<String>()
        session.requestSaves = Set(operations.filter { !$0.type.isDelete }.compactMap(\.recordName))
        // Which of the request's names exist, asked once (a failed lookup leaves each record to its own).
        if operations.count > 1 {
            let names = operations.compactMap(\.recordName)
            if let found = try? session.reader.existing(names) {
                session.lookedUp = Set(names)
                session.existingNames = found
            }
        }
        for op in operations {
            let mark = session.mark()
            do throws(CKError) {
                let (result, extra) = try session.apply(op, seen: &seen)
                results.append(result)
                cascaded += extra
            } catch {
                session.rollback(to: mark)
                results.append(.failed(recordName: op.recordName ?? "", error))
            }
        }
        let removedAfter = session.applyPendingCascades()
        if atomic && results.contains(where: { $0.error != nil }) {
            let failed = results.map { r -> RecordResult in
                if r.error != nil { return r }
                return .failed(recordName: r.recordName, CKError(.batchRequestFailed,
                    "Batch Request Failed: another operation in this atomic request failed, so none was applied"))
            }
            return ModifyResult(results: failed, atomic: true)
        }
        // A record the server changed again later in the request (a root linked to its share) is reported as it ends.
        let latest = results.map { r -> RecordResult in
            if case .saved(let saved) = r, case .some(.some(let now)) = session.overlay[saved.recordName], now != saved {
                return .saved(now)
            }
            return r
        }
        return ModifyResult(results: latest + cascaded, atomic: atomic, removedAfter: removedAfter)
    }

    /// Fetches records by name; a missing name gives unknownItem for that name.
    public func fetch(_ names: [String], zone zoneName: String = Names.defaultZoneName) throws(CKError) -> [RecordResult] {
        try perform(.recordFetch, zone: zoneName) { (state) throws(CKError) -> [RecordResult] in
            guard let zone = state.zone else { return [] }
            let reader = try env.openZone(env.logPath(database: scope, zone: zone.zoneID)).reader
            let schema = scope == .public ? try env.readSchema() : Schema()
            var results: [RecordResult] = []
            for name in names {
                do throws(CKError) { try Names.validateRecordName(name) } catch { results.append(.failed(recordName: name, error)); continue }
                var found = try reader.record(name)
                if found == nil { found = try userRecord(name, zone: zone) }
                guard let r = found else {
                    results.append(.failed(recordName: name, CKError(.unknownItem, "Record not found: '\(name)' in zone \(zoneName)")))
                    continue
                }
                do throws(CKError) { try state.gate.read(r, schema: schema) } catch {
                    results.append(.failed(recordName: name, error)); continue
                }
                results.append(.saved(r))
            }
            return results
        }
    }

    /// All live records of a zone that the caller may read, by name (for listing and completion).
    public func records(zone zoneName: String = Names.defaultZoneName) throws(CKError) -> [Record] {
        try perform(.recordList, zone: zoneName) { (state) throws(CKError) -> [Record] in
            guard let zone = state.zone else { return [] }
            let schema = scope == .public ? try env.readSchema() : Schema()
            let live = CKDatabase.fold(try env.readLog(env.logPath(database: scope, zone: zone.zoneID)).entries)
            return live.values.filter { state.gate.mayRead($0, schema: schema) }
                .sorted { $0.recordName < $1.recordName }
        }
    }
}

/// The working state of one modify request: applied in memory, written only when it succeeds.
package struct ModifySession {
    package let db: CKDatabase
    /// Where the request's `@file` values come from: the caller's files, read before the lock where they could be.
    package let files: FileSource
    package let zone: Zone
    package let logPath: String
    package let reader: ZoneReader
    /// Records this request saved (or deleted: nil) so far, over what the reader sees.
    package var overlay: [String: Record?] = [:]
    /// What `overlay` held before each change, so a failed operation can be undone without copying the session.
    package var undo: [(name: String, previous: Record??)] = []
    package var schema: Schema
    package var schemaChanged = false
    package var seq: Int64
    package var stagedAssets: [String: [UInt8]]
    package var usedAssets = Set<String>()
    package var entries: [LogEntry] = []
    /// The permission stage: each record the request writes passes it (its fault point, then its grants).
    package let gate: RecordGate
    /// Names this request saves: a parent may be one of them (CloudKit: "or is part of the same operation").
    package var requestSaves = Set<String>()
    /// The quota stage's budget; nil when the database has no quota.
    package var quota: QuotaBudget?
    /// An after-commit rule fired for one of the records.
    package var lostResponse: CKError?
    /// Records this request deleted in the default zone, whose DELETE_SELF cascades run after its operations.
    package var pendingCascades: [String] = []
    /// Names whose existence in the zone was asked at once for the request, and those of them that exist.
    package var lookedUp = Set<String>()
    package var existingNames = Set<String>()
    /// Field names and record type names found valid (the check's answer does not change).
    package var checkedKeys = Set<String>()
    package var checkedTypes = Set<String>()

    package init(db: CKDatabase, zone: Zone, logPath: String, reader: ZoneReader, schema: Schema, seq: Int64,
         stagedAssets: [String: [UInt8]], gate: RecordGate, files: FileSource) {
        self.files = files
        self.db = db
        self.gate = gate
        self.zone = zone
        self.logPath = logPath
        self.reader = reader
        self.schema = schema
        self.seq = seq
        self.stagedAssets = stagedAssets
        now = db.store.now()
    }

    /// The request's time, read once when it starts: its records are stamped with one server time, as CloudKit
    /// stamps a request (reading the store's clock is a look at clock.json each time).
    package let now: Int64

    package var stamp: RecordStamp { RecordStamp(timestamp: now, userRecordName: db.userRecordName, deviceID: db.deviceID) }

    /// The state to return to when an operation fails.
    package struct Mark {
        package var entries: Int, undo: Int, seq: Int64, schema: Schema, schemaChanged: Bool, usedAssets: Set<String>, quota: QuotaBudget?
    }

    package func mark() -> Mark {
        Mark(entries: entries.count, undo: undo.count, seq: seq, schema: schema, schemaChanged: schemaChanged, usedAssets: usedAssets,
             quota: quota)
    }

    package mutating func rollback(to m: Mark) {
        entries.removeLast(entries.count - m.entries)
        while undo.count > m.undo, let u = undo.popLast() { overlay[u.name] = u.previous }
        seq = m.seq
        schema = m.schema
        schemaChanged = m.schemaChanged
        usedAssets = m.usedAssets
        quota = m.quota
    }

    package mutating func setOverlay(_ name: String, _ record: Record?) {
        undo.append((name, overlay[name]))
        overlay[name] = .some(record)
    }

    /// The record as this request sees it: its own changes first, then the zone.
    package func current(_ name: String) throws(CKError) -> Record? {
        try ModifySession.current(name, overlay: overlay, lookedUp: lookedUp, existingNames: existingNames, reader: reader, db: db, zone: zone)
    }

    /// `current` on the parts it reads: `apply` (mutating) calls this, as a non-mutating call from a mutating one
    /// loads a copy of the whole session first (about 1.7 k instructions a record).
    package static func current(_ name: String, overlay: [String: Record?], lookedUp: Set<String>, existingNames: Set<String>,
                                reader: ZoneReader, db: CKDatabase, zone: Zone) throws(CKError) -> Record? {
        if let o = overlay[name] { return o }
        // Known absent from the zone: no lookup (a user record is made, not read).
        if lookedUp.contains(name) && !existingNames.contains(name) { return try db.userRecord(name, zone: zone) }
        if let r = try reader.record(name) { return r }
        return try db.userRecord(name, zone: zone)
    }

    /// Live records (as this request sees them) whose references with `action` point at `target`.
    package func referrers(to target: String, action: Reference.Action) throws(CKError) -> [Record] {
        var names = Set(try reader.referrers(to: target, action: action))
        for (n, r) in overlay where r?.refers(to: target, action: action) == true { names.insert(n) }
        var out: [Record] = []
        for n in names.sorted() {
            if let r = try current(n), r.refers(to: target, action: action) { out.append(r) }
        }
        return out
    }

    package mutating func apply(_ op: RecordOperation, seen: inout Set<String>) throws(CKError) -> (RecordResult, [RecordResult]) {
        if let e = op.inputError { throw e }
        let name = op.recordName ?? UUID().uuidString
        try Names.validateRecordName(name)
        guard seen.insert(name).inserted else {
            throw CKError.invalid("only one operation per record is allowed in a request; '\(name)' appears twice")
        }
        if op.type.needsTag && (op.changeTag ?? "").isEmpty {
            throw CKError.invalid("\(op.type.rawValue) of '\(name)' needs the record's change tag (recordChangeTag)",
                                  hint: "fetch the record for its tag, or use a force operation / --policy changed-keys")
        }
        let found = try ModifySession.current(name, overlay: overlay, lookedUp: lookedUp, existingNames: existingNames,
                                              reader: reader, db: db, zone: zone)
        // Only the shared database has a view to apply (asked first: the call would copy the session).
        let existing = db.scope == .shared ? try sharedView(name, found, op: op) : found
        // One call of the gate per record: its fault point (rules see the type the operation names), this
        // request's own refusals, then the grants.
        var lost: CKError? = nil
        defer { if let lost { lostResponse = lost } }
        if op.type.isDelete {
            // A participant deleting a share from its shared database leaves it.
            if db.scope == .shared, let existing, existing.isShare, gate.shares?.access(existing) != nil {
                return (try leave(existing), [])
            }
            let target = try gate.write(name, .delete, type: op.recordType ?? existing?.recordType, schema: schema, lostResponse: &lost) {
                () throws(CKError) -> RecordGate.Write<Record> in
                let r = try deletable(name, existing: existing)
                try checkSharedDelete(r)
                return .init(.write, type: r.recordType, record: r, value: r)
            }
            return try delete(name, existing: target, op: op)
        }
        let recordType = try gate.write(name, .save, type: op.recordType ?? existing?.recordType, schema: schema, lostResponse: &lost) {
            () throws(CKError) -> RecordGate.Write<String> in
            let type = try savable(name, existing: existing, op: op)
            if type == Share.recordType { try checkShareSave(name, existing: existing, op: op) }
            var parent: String? = nil
            if case .set(let p, _) = op.parent { parent = p }
            return .init(existing == nil ? .create : .write, type: type, record: existing, value: type, parent: parent)
        }
        return (.saved(try save(name, recordType: recordType, existing: existing, op: op)), [])
    }

    /// A save's refusals before the grants are asked: the operation against the record as it is, and the type.
    /// Mutating though it changes nothing: the gate's closure in `apply` calls it, and a non-mutating call there
    /// loaded a copy of the whole session per record.
    package mutating func savable(_ name: String, existing: Record?, op: RecordOperation) throws(CKError) -> String {
        switch op.type {
        case .create:
            if let existing {
                throw CKError(.serverRecordChanged, "record to insert already exists", serverErrorCode: "EXISTS",
                              hint: "to overwrite it, pass --if-tag \(existing.changeTag) or --policy changed-keys",
                              details: ["serverRecord": existing.json(), "clientRecord": clientRecord(existing, op: op)])
            }
        case .update, .replace:
            guard let existing else {
                throw CKError(.unknownItem, "Record not found: '\(name)' (an update needs an existing record)")
            }
            if existing.changeTag != op.changeTag { throw conflict(existing, op: op, verb: "updating") }
        default: break
        }
        guard let recordType = op.recordType ?? existing?.recordType else {
            throw CKError.invalid("record '\(name)' does not exist, so its recordType is required")
        }
        if !checkedTypes.contains(recordType) { try Names.validateRecordType(recordType) }
        if let existing, existing.recordType != recordType {
            throw CKError.invalid("record '\(name)' exists with type '\(existing.recordType)'; a record's type can't change to '\(recordType)'")
        }
        if existing == nil, Names.isUserRecordName(name) || recordType == Names.userRecordType {
            let why = recordType == Names.userRecordType
                ? "records of type Users are CloudKit's own user records, one per user, and can't be created"
                : "'\(name)' has the shape of a user record name (_ and 32 hex digits), which a record you create can't take"
            throw CKError.invalid(why, hint: "a user adds fields to its own user record: ck record save Users --name <its userRecordName> --if-tag <tag> key=value")
        }
        return recordType
    }

    /// Saves a record the gate let through.
    package mutating func save(_ name: String, recordType: String, existing: Record?, op: RecordOperation) throws(CKError) -> Record {
        let startsEmpty = existing == nil || op.type.replacesFields
        var fields = startsEmpty ? [:] : existing?.fields ?? [:]
        // A record that starts empty ends with exactly the values set: `fields` stands for them, not built twice.
        var setValues: [String: FieldValue] = [:]
        // A record that starts empty from values typed as they were read (a bulk load's lines), of names already
        // checked, holding no reference, asset or empty list, has those values as its fields: mapped in the
        // operation's own hash table (no sort, no hashing, no insert), as the loop below would set them.
        var plain = startsEmpty
        let mapped = !startsEmpty ? [:] : op.fields.mapValues { input -> FieldValue in
            // Any other input makes the record not plain; the value returned here is never used (the table is dropped).
            guard let v = input.plainValue else { plain = false; return .int64(0) }
            return v
        }
        if plain, op.fields.keys.allSatisfy({ checkedKeys.contains($0) }) { fields = mapped } else { plain = false }
        if startsEmpty && !plain { fields.reserveCapacity(op.fields.count) }
        // In key order (the first bad key is the one named), each with its input: no second lookup by key.
        for (key, input) in plain ? [] : op.fields.sorted(by: { $0.key < $1.key }) {
            if !(recordType == Share.recordType && Share.systemFieldKeys.contains(key)) && !checkedKeys.contains(key) {
                try Names.validateFieldName(key)
                checkedKeys.insert(key)
            }
            if case .unset = input { fields[key] = nil; continue }
            guard let v = try resolve(input, recordType: recordType, key: key) else { fields[key] = nil; continue }
            // Only values holding a reference or an asset have anything to check; asking first also spares a copy
            // of the whole session per field (a non-mutating call on `self` from this mutating one copies it).
            if v.holdsReferenceOrAsset {
                try checkReferences(v, key: key, held: existing?.fields[key])
                try checkDeleteSelfLimit(v, key: key, source: name, existing: existing?.fields[key])
            }
            if !startsEmpty { setValues[key] = v }
            fields[key] = v
        }
        if startsEmpty { setValues = fields }
        // Values of fields the schema already declares so admit nothing: no copy of the schema to admit them.
        if !schema.declaresAll(recordType, setValues) {
            var s = schema
            if try s.admit(recordType: recordType, values: setValues, environment: db.environment) {
                schema = s
                schemaChanged = true
            }
        }
        checkedTypes.insert(recordType)
        seq += 1
        let now = stamp
        let parent = try resolveParent(op.parent, name: name, existing: existing, replaces: op.type.replacesFields)
        var record = Record(recordName: name, recordType: recordType, zoneID: zone.zoneID,
                            changeTag: CKDatabase.changeTag(seq: seq), fields: fields,
                            created: existing?.created ?? now, modified: now, parent: parent,
                            share: existing?.share, shortGUID: existing?.shortGUID, shareInfo: existing?.shareInfo)
        if recordType == Share.recordType {
            (record.shareInfo, record.shortGUID) = try shareKeys(name, existing: existing, op: op)
        } else if parent != existing?.parent, let parent, record.share != nil {
            // A shared root moved under another share's hierarchy would take part in two shares.
            for s in try zoneShares() where s.recordName != record.share {
                var seen = Set<String>()
                var up: String? = parent
                while let n = up, seen.insert(n).inserted {
                    if s.shareInfo?.rootRecordName == n {
                        throw CKError(.alreadyShared, "record '\(name)' is the root of share '\(record.share ?? "")'; under '\(parent)' it would also take part in share '\(s.recordName)'",
                                      serverErrorCode: "BAD_REQUEST", hint: "a record takes part in one share only: delete one of the shares first")
                    }
                    up = try current(n)?.parent
                }
            }
        }
        let size = record.sizeBound > CKDatabase.maxRecordSize ? record.size : 0
        if size > CKDatabase.maxRecordSize {
            throw CKError(.limitExceeded, "record '\(name)' is \(size) bytes; CloudKit's limit is \(CKDatabase.maxRecordSize) bytes (assets excluded)",
                          hint: "store large data in an asset field (field:asset=@file)")
        }
        if var q = quota {
            try q.admit(record, replacing: existing)
            quota = q
        }
        for v in fields.values { collectAssets(v) }
        setOverlay(name, record)
        entries.append(.save(seq: seq, record: record))
        if record.isShare { try linkRoot(of: record) }
        return record
    }

    /// Types a client value by the schema (declared type), else its explicit or inferred type.
    package mutating func resolve(_ input: FieldInput, recordType: String, key: String) throws(CKError) -> FieldValue? {
        switch input {
        case .unset: return nil
        // A value typed as it was read needs the schema only when it is an empty list (typed by the declared list).
        case .value(let v):
            if case .list(_, let items) = v, items.isEmpty { return Schema.coerceEmptyList(v, schema.declaredType(recordType, key)) }
            return v
        case .json(let j): return try schema.value(fieldJSON: j, recordType: recordType, key: key, path: "fields.\(key)")
        case .text(let text, let explicit, let action, let encrypted):
            let declared = schema.declaredType(recordType, key)
            let path = "fields.\(key)"
            var parser = ValueParser(files: files)
            parser.now = db.store.now
            var v = try parser.parse(text, as: explicit ?? declared ?? ValueParser.inferType(text), path: path)
            if let action { v = CKDatabase.withAction(v, action) }
            // Text for a field the schema encrypts is encrypted, as encryptedValues[key] = value would be.
            if encrypted || (explicit == nil && schema.recordTypes[recordType]?.fields[key]?.encrypted == true) {
                v = try v.encrypting(path: path)
            }
            stagedAssets.merge(parser.stagedAssets) { a, _ in a }
            return v
        }
    }

    package mutating func collectAssets(_ v: FieldValue) {
        switch v {
        case .asset(let a):
            if stagedAssets[a.sha256] == nil && !db.env.hasAsset(a.sha256) { return }
            usedAssets.insert(a.sha256)
        case .list(_, let items): items.forEach { collectAssets($0) }
        default: break
        }
    }

    /// References stay in their zone; VALIDATE references need their target; assets need a receipt unless `held`
    /// (the field's value before this save) already names them.
    package func checkReferences(_ v: FieldValue, key: String, held: FieldValue? = nil) throws(CKError) {
        switch v {
        case .reference(let r):
            try CKDatabase.checkReferenceZone(r, key: key, zone: zone.zoneID.zoneName)
            if r.action == .validate, try current(r.recordName) == nil {
                throw CKError(.referenceViolation, "field '\(key)': the VALIDATE reference's target '\(r.recordName)' does not exist")
            }
        case .asset(let a): try checkAsset(a, key: key, held: held)
        case .list(_, let items): for i in items { try checkReferences(i, key: key, held: held) }
        default: break
        }
    }

    package func conflict(_ server: Record, op: RecordOperation, verb: String) -> CKError {
        var details: [String: JSON] = ["serverRecord": server.json(), "clientRecord": clientRecord(server, op: op)]
        // The version the client started from, if the log still has it (read only on a conflict).
        for e in (try? ZoneLog.read(logPath))?.entries ?? [] {
            if case .save(_, let r) = e, r.recordName == server.recordName, r.changeTag == op.changeTag {
                details["ancestorRecord"] = r.json()
            }
        }
        let next = op.type.isDelete ? "delete with --if-tag \(server.changeTag)" : "merge, and save with --if-tag \(server.changeTag)"
        return CKError(.serverRecordChanged, "client oplock error \(verb) record",
                       hint: "the server has change tag \(server.changeTag); fetch the record, \(next)",
                       details: details)
    }

    /// The record a refused save or delete sent (CKRecordChangedErrorClientRecordKey): its fields as given, and
    /// the change tag it named (none for a create).
    package func clientRecord(_ server: Record, op: RecordOperation) -> JSON {
        var client: [String: JSON] = ["recordName": .string(server.recordName)]
        // A new record has no change tag yet; a stale update or delete shows the one it named.
        if op.type != .create { client["recordChangeTag"] = .string(op.changeTag ?? "") }
        var fields: [String: JSON] = [:]
        for (k, input) in op.fields {
            switch input {
            case .value(let v): fields[k] = v.fieldJSON
            case .json(let j): fields[k] = j
            case .text(let t, let type, _, let encrypted):
                var f: [String: JSON] = ["value": .string(t)]
                if let type { f["type"] = .string(type.wsName) }
                if encrypted { f["isEncrypted"] = .bool(true) }
                fields[k] = .object(f)
            case .unset: fields[k] = .null
            }
        }
        client["fields"] = .object(fields)
        client["recordType"] = .string(op.recordType ?? server.recordType)
        return .object(client)
    }

    /// A delete's refusals before the grants are asked: the record must exist and not be a user record.
    package func deletable(_ name: String, existing: Record?) throws(CKError) -> Record {
        guard let existing else { throw CKError(.unknownItem, "Record not found: '\(name)'") }
        if existing.recordType == Names.userRecordType {
            throw CKError(.permissionFailure, "user records can't be deleted", serverErrorCode: "ACCESS_DENIED",
                          hint: "a user record lasts as long as its user; change its fields instead")
        }
        return existing
    }

    /// Deletes a record the gate let through, and what its DELETE_SELF references take with it.
    package mutating func delete(_ name: String, existing: Record, op: RecordOperation) throws(CKError) -> (RecordResult, [RecordResult]) {
        if op.type == .delete, existing.changeTag != op.changeTag { throw conflict(existing, op: op, verb: "deleting") }
        try checkNotValidated(name)
        removeRecord(existing)
        var cascaded: [RecordResult] = try shareCascade(existing)
        let deleted = RecordResult.deleted(recordName: name, recordType: existing.recordType, cascade: false)
        if zone.zoneID.zoneName == Names.defaultZoneName {
            // CloudKit runs DELETE_SELF "asynchronously in the default zone": the request goes on seeing the owned
            // records and its answer does not list them; `applyPendingCascades` removes them after its last
            // operation, in the same write, so the next read no longer finds them. A cascade that would be refused
            // refuses the delete now, as in a custom zone: tried here, undone, redone at the end.
            let m = mark()
            do throws(CKError) { _ = try cascade(from: name) } catch { rollback(to: m); throw error }
            rollback(to: m)
            pendingCascades.append(name)
            return (deleted, cascaded)
        }
        cascaded += try cascade(from: name)
        return (deleted, cascaded)
    }

    /// DELETE_SELF references: the records pointing at a deleted record go too, chained.
    package mutating func cascade(from name: String) throws(CKError) -> [RecordResult] {
        var cascaded: [RecordResult] = []
        var queue = [name]
        while let target = queue.popLast() {
            for r in try referrers(to: target, action: .deleteSelf) {
                try checkNotValidated(r.recordName)
                removeRecord(r)
                cascaded.append(.deleted(recordName: r.recordName, recordType: r.recordType, cascade: true))
                queue.append(r.recordName)
            }
        }
        return cascaded
    }

    /// The default zone's cascades of this request's deletes, once its operations are done (in the same write).
    /// A cascade refused by what a later operation of the request did (a new VALIDATE reference) is dropped.
    package mutating func applyPendingCascades() -> [RecordResult] {
        var removed: [RecordResult] = []
        for name in pendingCascades {
            let m = mark()
            do throws(CKError) { removed += try cascade(from: name) } catch { rollback(to: m) }
        }
        pendingCascades = []
        return removed
    }

    /// VALIDATE: a target is deleted only after every record pointing at it is gone.
    package func checkNotValidated(_ name: String) throws(CKError) {
        if let source = try referrers(to: name, action: .validate).first(where: { $0.recordName != name }) {
            throw CKError(.referenceViolation, "record '\(name)' is the target of a VALIDATE reference from '\(source.recordName)'",
                          hint: "delete '\(source.recordName)' first, or change its reference action")
        }
    }

    package mutating func removeRecord(_ r: Record) {
        quota?.remove(r)
        seq += 1
        setOverlay(r.recordName, nil)
        entries.append(.delete(seq: seq, recordName: r.recordName, recordType: r.recordType, at: now,
                               userRecordName: db.userRecordName))
    }
}

extension CKDatabase {
    package static func withAction(_ v: FieldValue, _ action: Reference.Action) -> FieldValue {
        switch v {
        case .reference(var r): r.action = action; return .reference(r)
        case .list(let b, let items): return .list(b, items.map { withAction($0, action) })
        default: return v
        }
    }
}

extension CKDatabase {
    /// References stay in their record's zone.
    package static func checkReferenceZone(_ r: Reference, key: String, zone: String) throws(CKError) {
        if let z = r.zoneName, z != zone {
            throw CKError.invalid("field '\(key)': a reference must point into the record's own zone (\(zone)), not '\(z)'")
        }
    }
}
