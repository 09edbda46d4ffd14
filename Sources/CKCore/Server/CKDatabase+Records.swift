import Foundation

/// The outcome of a modify request.
public struct ModifyResult: Sendable {
    /// One result per operation, in order, then cascaded deletions.
    public var results: [RecordResult]
    /// True when the zone applied the request atomically.
    public var atomic: Bool

    public var failures: [CKError.ItemFailure] {
        results.compactMap { r in r.error.map { CKError.ItemFailure(id: r.recordName, error: $0) } }
    }
}

extension CKDatabase {
    /// Applies up to 200 operations to one zone in order, as records/modify does.
    /// With `atomic` in a zone with the atomic capability, one failure fails them all and nothing is written.
    public func modify(_ operations: [RecordOperation], zone zoneName: String = Names.defaultZoneName,
                       atomic: Bool = false, stagedAssets: [String: [UInt8]] = [:]) throws(CKError) -> ModifyResult {
        guard operations.count <= CKDatabase.maxOperationsPerRequest else {
            throw CKError(.limitExceeded, "\(operations.count) operations in one request; CloudKit allows \(CKDatabase.maxOperationsPerRequest)",
                          hint: "split the request in smaller batches")
        }
        let result = try env.locked(exclusive: true) { () throws(CKError) -> ModifyResult in
            let catalog = try env.readCatalog()
            let zone = try resolveZone(zoneName, catalog: catalog)
            let path = env.logPath(database: scope, zone: zone.zoneID)
            let log = try env.readLog(path)
            var session = ModifySession(db: self, zone: zone, history: log.entries,
                                        live: CKDatabase.fold(log.entries), schema: try env.readSchema(),
                                        seq: try env.highestSeq(catalog: catalog), stagedAssets: stagedAssets)
            let useAtomic = atomic && zone.capabilities.contains(.atomic)
            var results: [RecordResult] = []
            var cascaded: [RecordResult] = []
            var seen = Set<String>()
            for op in operations {
                let snapshot = session
                do throws(CKError) {
                    let (result, extra) = try session.apply(op, seen: &seen)
                    results.append(result)
                    cascaded += extra
                } catch {
                    session = snapshot
                    results.append(.failed(recordName: op.recordName ?? "", error))
                }
            }
            if useAtomic && results.contains(where: { $0.error != nil }) {
                let failed = results.map { r -> RecordResult in
                    if r.error != nil { return r }
                    return .failed(recordName: r.recordName, CKError(.batchRequestFailed,
                        "Batch Request Failed: another operation in this atomic request failed, so none was applied"))
                }
                return ModifyResult(results: failed, atomic: true)
            }
            if !session.entries.isEmpty {
                for hash in session.usedAssets.sorted() {
                    if let bytes = session.stagedAssets[hash] { try env.storeAsset(sha256: hash, bytes: bytes) }
                }
                // Schema first: a crash after it leaves a field with no records, never a record the schema lacks.
                if session.schemaChanged { try env.writeSchema(session.schema) }
                try ZoneLog.append(path, session.entries, after: log)
            }
            return ModifyResult(results: results + cascaded, atomic: useAtomic)
        }
        // The user is listed in container.json once something was written (root lock, after the env lock).
        if result.results.contains(where: { $0.error == nil }) { registerAfterWrite() }
        return result
    }

    /// Fetches records by name; a missing name gives unknownItem for that name.
    public func fetch(_ names: [String], zone zoneName: String = Names.defaultZoneName) throws(CKError) -> [RecordResult] {
        try env.locked(exclusive: false) { () throws(CKError) -> [RecordResult] in
            let zone = try resolveZone(zoneName, catalog: try env.readCatalog())
            let live = CKDatabase.fold(try env.readLog(env.logPath(database: scope, zone: zone.zoneID)).entries)
            return names.map { name in
                do throws(CKError) { try Names.validateRecordName(name) } catch { return .failed(recordName: name, error) }
                guard let r = live[name] else {
                    return .failed(recordName: name, CKError(.unknownItem, "Record not found: '\(name)' in zone \(zoneName)"))
                }
                return .saved(r)
            }
        }
    }

    /// All live records of a zone, by name (for listing and export).
    public func records(zone zoneName: String = Names.defaultZoneName) throws(CKError) -> [Record] {
        try env.locked(exclusive: false) { () throws(CKError) -> [Record] in
            let zone = try resolveZone(zoneName, catalog: try env.readCatalog())
            let live = CKDatabase.fold(try env.readLog(env.logPath(database: scope, zone: zone.zoneID)).entries)
            return live.values.sorted { $0.recordName < $1.recordName }
        }
    }
}

/// The working state of one modify request: applied in memory, written only when it succeeds.
struct ModifySession {
    let db: CKDatabase
    let zone: Zone
    let history: [LogEntry]
    var live: [String: Record]
    var schema: Schema
    var schemaChanged = false
    var seq: Int64
    var stagedAssets: [String: [UInt8]]
    var usedAssets = Set<String>()
    var entries: [LogEntry] = []

    init(db: CKDatabase, zone: Zone, history: [LogEntry], live: [String: Record], schema: Schema, seq: Int64,
         stagedAssets: [String: [UInt8]]) {
        self.db = db
        self.zone = zone
        self.history = history
        self.live = live
        self.schema = schema
        self.seq = seq
        self.stagedAssets = stagedAssets
    }

    var stamp: RecordStamp { RecordStamp(timestamp: db.store.now(), userRecordName: db.userRecordName) }

    mutating func apply(_ op: RecordOperation, seen: inout Set<String>) throws(CKError) -> (RecordResult, [RecordResult]) {
        let name = op.recordName ?? UUID().uuidString
        try Names.validateRecordName(name)
        guard seen.insert(name).inserted else {
            throw CKError.invalid("only one operation per record is allowed in a request; '\(name)' appears twice")
        }
        if op.type.needsTag && (op.changeTag ?? "").isEmpty {
            throw CKError.invalid("\(op.type.rawValue) of '\(name)' needs the record's change tag (recordChangeTag)",
                                  hint: "fetch the record for its tag, or use a force operation / --policy changed-keys")
        }
        let existing = live[name]
        if op.type.isDelete { return try delete(name, existing: existing, op: op) }
        return (.saved(try save(name, existing: existing, op: op)), [])
    }

    mutating func save(_ name: String, existing: Record?, op: RecordOperation) throws(CKError) -> Record {
        switch op.type {
        case .create:
            if let existing {
                throw CKError(.serverRecordChanged, "record to insert already exists", serverErrorCode: "EXISTS",
                              hint: "to overwrite it, pass --if-tag \(existing.changeTag) or --policy changed-keys",
                              details: ["serverRecord": existing.json()])
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
        try Names.validateRecordType(recordType)
        if let existing, existing.recordType != recordType {
            throw CKError.invalid("record '\(name)' exists with type '\(existing.recordType)'; a record's type can't change to '\(recordType)'")
        }
        var fields = (existing != nil && !op.type.replacesFields) ? existing?.fields ?? [:] : [:]
        var setValues: [String: FieldValue] = [:]
        for key in op.fields.keys.sorted() {
            guard let input = op.fields[key] else { continue }
            try Names.validateFieldName(key)
            if case .unset = input { fields[key] = nil; continue }
            guard let v = try resolve(input, recordType: recordType, key: key) else { fields[key] = nil; continue }
            try checkReferences(v, key: key)
            setValues[key] = v
            fields[key] = v
        }
        var s = schema
        if try s.admit(recordType: recordType, values: setValues, environment: db.environment) {
            schema = s
            schemaChanged = true
        }
        seq += 1
        let now = stamp
        let record = Record(recordName: name, recordType: recordType, zoneID: zone.zoneID,
                            changeTag: CKDatabase.changeTag(seq: seq), fields: fields,
                            created: existing?.created ?? now, modified: now)
        let size = record.size
        if size > CKDatabase.maxRecordSize {
            throw CKError(.limitExceeded, "record '\(name)' is \(size) bytes; CloudKit's limit is \(CKDatabase.maxRecordSize) bytes (assets excluded)",
                          hint: "store large data in an asset field (field:asset=@file)")
        }
        for v in fields.values { collectAssets(v) }
        live[name] = record
        entries.append(.save(seq: seq, record: record))
        return record
    }

    /// Types a client value by the schema (declared type), else its explicit or inferred type.
    mutating func resolve(_ input: FieldInput, recordType: String, key: String) throws(CKError) -> FieldValue? {
        let declared = schema.declaredType(recordType, key)
        let path = "fields.\(key)"
        switch input {
        case .unset: return nil
        case .value(let v): return coerceEmptyList(v, declared)
        case .json(let j): return try FieldValue.from(fieldJSON: j, declared: declared, path: path).map { coerceEmptyList($0, declared) }
        case .text(let text, let explicit, let action):
            var parser = ValueParser(baseDirectory: db.fileBaseDirectory)
            var v = try parser.parse(text, as: explicit ?? declared ?? ValueParser.inferType(text), path: path)
            if let action { v = CKDatabase.withAction(v, action) }
            stagedAssets.merge(parser.stagedAssets) { a, _ in a }
            return v
        }
    }

    func coerceEmptyList(_ v: FieldValue, _ declared: FieldType?) -> FieldValue {
        if case .list(_, let items) = v, items.isEmpty, let d = declared, d.isList { return .list(d.base, []) }
        return v
    }

    mutating func collectAssets(_ v: FieldValue) {
        switch v {
        case .asset(let a):
            if stagedAssets[a.sha256] == nil && !FileIO.exists(db.env.assetPath(a.sha256)) { return }
            usedAssets.insert(a.sha256)
        case .list(_, let items): items.forEach { collectAssets($0) }
        default: break
        }
    }

    /// References stay in their zone; VALIDATE references need their target.
    func checkReferences(_ v: FieldValue, key: String) throws(CKError) {
        switch v {
        case .reference(let r):
            if let z = r.zoneName, z != zone.zoneID.zoneName {
                throw CKError.invalid("field '\(key)': a reference must point into the record's own zone (\(zone.zoneID.zoneName)), not '\(z)'")
            }
            if r.action == .validate && live[r.recordName] == nil {
                throw CKError(.referenceViolation, "field '\(key)': the VALIDATE reference's target '\(r.recordName)' does not exist")
            }
        case .asset(let a):
            if stagedAssets[a.sha256] == nil && !FileIO.exists(db.env.assetPath(a.sha256)) {
                throw CKError(.assetFileNotFound, "field '\(key)': no asset with sha256 \(a.sha256) in the store",
                              hint: "give the file itself with \(key):asset=@path")
            }
        case .list(_, let items): for i in items { try checkReferences(i, key: key) }
        default: break
        }
    }

    func conflict(_ server: Record, op: RecordOperation, verb: String) -> CKError {
        var client: [String: JSON] = ["recordName": .string(server.recordName),
                                      "recordChangeTag": .string(op.changeTag ?? "")]
        var fields: [String: JSON] = [:]
        for (k, input) in op.fields {
            switch input {
            case .value(let v): fields[k] = v.fieldJSON
            case .json(let j): fields[k] = j
            case .text(let t, let type, _):
                var f: [String: JSON] = ["value": .string(t)]
                if let type { f["type"] = .string(type.wsName) }
                fields[k] = .object(f)
            case .unset: fields[k] = .null
            }
        }
        client["fields"] = .object(fields)
        client["recordType"] = .string(op.recordType ?? server.recordType)
        var details: [String: JSON] = ["serverRecord": server.json(), "clientRecord": .object(client)]
        for e in history {
            if case .save(_, let r) = e, r.recordName == server.recordName, r.changeTag == op.changeTag {
                details["ancestorRecord"] = r.json()
            }
        }
        let next = op.type.isDelete ? "delete with --if-tag \(server.changeTag)" : "merge, and save with --if-tag \(server.changeTag)"
        return CKError(.serverRecordChanged, "client oplock error \(verb) record",
                       hint: "the server has change tag \(server.changeTag); fetch the record, \(next)",
                       details: details)
    }

    mutating func delete(_ name: String, existing: Record?, op: RecordOperation) throws(CKError) -> (RecordResult, [RecordResult]) {
        guard let existing else { throw CKError(.unknownItem, "Record not found: '\(name)'") }
        if op.type == .delete, existing.changeTag != op.changeTag { throw conflict(existing, op: op, verb: "deleting") }
        try checkNotValidated(name)
        removeRecord(existing)
        // DELETE_SELF references: records pointing at a deleted record go too, chained.
        var cascaded: [RecordResult] = []
        var queue = [name]
        while let target = queue.popLast() {
            for r in live.values.sorted(by: { $0.recordName < $1.recordName }) where r.ownsDeletion(of: target) {
                try checkNotValidated(r.recordName)
                removeRecord(r)
                cascaded.append(.deleted(recordName: r.recordName, recordType: r.recordType, cascade: true))
                queue.append(r.recordName)
            }
        }
        return (.deleted(recordName: name, recordType: existing.recordType, cascade: false), cascaded)
    }

    /// VALIDATE: a target is deleted only after every record pointing at it is gone.
    func checkNotValidated(_ name: String) throws(CKError) {
        if let source = live.values.sorted(by: { $0.recordName < $1.recordName }).first(where: { $0.validates(name) && $0.recordName != name }) {
            throw CKError(.referenceViolation, "record '\(name)' is the target of a VALIDATE reference from '\(source.recordName)'",
                          hint: "delete '\(source.recordName)' first, or change its reference action")
        }
    }

    mutating func removeRecord(_ r: Record) {
        seq += 1
        live[r.recordName] = nil
        entries.append(.delete(seq: seq, recordName: r.recordName, recordType: r.recordType, at: db.store.now(),
                               userRecordName: db.userRecordName))
    }
}

extension Record {
    /// True when one of this record's references with `action` points at `target`.
    func refers(to target: String, action: Reference.Action) -> Bool {
        func refers(_ v: FieldValue) -> Bool {
            switch v {
            case .reference(let r): return r.action == action && r.recordName == target
            case .list(_, let items): return items.contains(where: refers)
            default: return false
            }
        }
        return fields.values.contains(where: refers)
    }

    /// True when one of this record's DELETE_SELF references points at `target`.
    func ownsDeletion(of target: String) -> Bool { refers(to: target, action: .deleteSelf) }

    /// True when one of this record's VALIDATE references points at `target`.
    func validates(_ target: String) -> Bool { refers(to: target, action: .validate) }
}

extension CKDatabase {
    static func withAction(_ v: FieldValue, _ action: Reference.Action) -> FieldValue {
        switch v {
        case .reference(var r): r.action = action; return .reference(r)
        case .list(let b, let items): return .list(b, items.map { withAction($0, action) })
        default: return v
        }
    }
}
