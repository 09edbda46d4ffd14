import CKModel
import CKSchema
import CKStorage

/// A JSON Lines file of record operations (`ck record save --batch`). It is checked whole — syntax, shape and
/// field types against the schema — before anything is written. The check keeps the operations it read up to a
/// memory budget (`keptBytes` of lines); the rest are read again operation by operation while writing, so a
/// large file never sits in memory as records.
public struct RecordBatch: Sendable {
    /// Most problems one refusal lists (all of them are counted).
    public static let maxReported = 20

    /// The file's name in messages (`<stdin>` for standard input).
    public let label: String
    package let bytes: [UInt8]
    /// Each line that is not blank: its bytes and its 1-based number in the file.
    package let spans: [(range: Range<Int>, number: Int)]
    /// Lines of this many bytes in all have their operations kept by `check` (an operation takes a few times
    /// its line's size in memory), so the writing pass need not read them again.
    public static let keptBytes = 16 << 20
    /// The operations `check` read, for the first lines, with the policy and zone it read them for.
    package var kept: (operations: [RecordOperation], policy: SavePolicy?, zone: String) = ([], nil, "")

    public init(bytes: [UInt8], label: String) {
        self.bytes = bytes
        self.label = label
        var spans: [(range: Range<Int>, number: Int)] = []
        let all = bytes[...]
        var start = 0, number = 0
        while start < all.count {
            number += 1
            let end = ByteSearch.first(0x0A, in: all, from: start) ?? all.count
            if !all[start..<end].allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { spans.append((start..<end, number)) }
            start = end + 1
        }
        self.spans = spans
    }

    /// Operations in the file (its lines that are not blank).
    public var count: Int { spans.count }

    /// The length in bytes of operation `i`'s line (requests are sized by it).
    public func length(_ i: Int) -> Int { spans[i].range.count }

    /// Where operation `i` comes from, `file:line`: failures of its operation are named so.
    public func place(_ i: Int) -> String { "\(label):\(spans[i].number)" }

    /// Operation `i`: a Web Services operation or a bare record (which `policy` turns into a forceUpdate).
    /// Errors say `file:line:column`, the JSON path and why.
    public func operation(_ i: Int, policy: SavePolicy?, zone: String) throws(CKError) -> RecordOperation {
        if i < kept.operations.count, kept.policy == policy, kept.zone == zone { return kept.operations[i] }
        return try decode(i, policy: policy, zone: zone).operation
    }

    /// Operation `i` and the JSON path of its record (`$`, or `$.record` in an operation).
    package func decode(_ i: Int, policy: SavePolicy?, zone: String) throws(CKError) -> (operation: RecordOperation, record: String) {
        // Lines of the usual shape are read straight from their bytes; the rest (and every error) go the generic way.
        if let fast = RecordOperation.decode(batchLine: bytes[spans[i].range], policy: policy) { return fast }
        let json: JSON
        do { json = try JSON.parse(utf8: bytes[spans[i].range]) } catch {
            throw at(i, column: error.column, CKError(.invalidArguments, "invalid JSON: \(error.message)", hint: RecordBatch.hint))
        }
        let record = json["operationType"] == nil ? "$" : "$.record"
        return try located(i) { () throws(CKError) -> (operation: RecordOperation, record: String) in
            if let z = RecordOperation.zoneName(in: json), z != zone {
                throw CKError.invalid("\(record).zoneID.zoneName: the record is in zone '\(z)' but the request goes to '\(zone)'",
                                      hint: "pass -z \(z), or split the file by zone")
            }
            return (try RecordOperation(json: json, path: "$", policy: policy), record)
        }
    }

    /// Checks every line before anything is written: JSON syntax, the shape of an operation or record, and each
    /// field's value against its type and the schema's (as development's just-in-time schema grows from earlier
    /// lines). Throws one error naming the first `maxReported` problems by `file:line:column` and JSON path.
    /// Keeps the operations of the first lines (up to `keptBytes`) for `operation(_:policy:zone:)`.
    public mutating func check(for db: CKDatabase, zone: String, policy: SavePolicy?) throws(CKError) {
        var schema = try db.container.schema(db.environment)
        var problems: [CKError] = []
        var total = 0
        var kept: [RecordOperation] = []
        var keptBytes = 0
        // Field and type names found valid: each is checked once, not once a line.
        var checked = (keys: Set<String>(), types: Set<String>())
        self.kept = ([], nil, "")
        for i in spans.indices {
            do throws(CKError) {
                let (op, record) = try decode(i, policy: policy, zone: zone)
                keptBytes += spans[i].range.count
                if problems.isEmpty, kept.count == i, keptBytes <= RecordBatch.keptBytes { kept.append(op) }
                try located(i) { () throws(CKError) in
                    try RecordBatch.checkTypes(op, record: record, zone: zone, schema: &schema, environment: db.environment,
                                               checked: &checked)
                }
            } catch {
                total += 1
                if problems.count < RecordBatch.maxReported { problems.append(error) }
            }
        }
        guard let first = problems.first else {
            self.kept = (kept, policy, zone)
            return
        }
        if total == 1 { throw first }
        let listed = total > problems.count ? "the first \(problems.count) of \(total) problems" : "\(total) problems"
        throw CKError(.invalidArguments, "\(label): \(total) lines are invalid; nothing was saved (\(listed) below)",
                      hint: "fix them and run the command again: it saves nothing until every line is valid",
                      items: problems.map { e in
                          // Each item is named by its place; its reason is what follows the place.
                          let place = e.details["place"]?.stringValue ?? ""
                          var item = e
                          if e.reason.hasPrefix(place + ": ") { item.reason = String(e.reason.dropFirst(place.count + 2)) }
                          return CKError.ItemFailure(id: place, error: item)
                      })
    }

    package static let hint = "each line must be one JSON object (a record or an operation); nothing was saved"

    /// The types of an operation's fields as a save would check them, growing `schema` as the save would.
    package static func checkTypes(_ op: RecordOperation, record: String, zone: String, schema: inout Schema,
                           environment: Environment, checked: inout (keys: Set<String>, types: Set<String>)) throws(CKError) {
        if let name = op.recordName {
            do { try Names.validateRecordName(name) } catch { throw CKError.invalid("\(record).recordName: \(error.reason)", hint: error.hint) }
        }
        guard !op.type.isDelete, let type = op.recordType else { return }
        if !checked.types.contains(type) {
            do { try Names.validateRecordType(type) } catch { throw CKError.invalid("\(record).recordType: \(error.reason)") }
            checked.types.insert(type)
        }
        // A bulk load's usual line: every field a value typed as it was read, of a field the schema declares with that
        // type, named by a key already checked, holding no reference. Nothing to check or admit: no sorting, no
        // dictionary of values (an empty list, typed by the schema, goes the long way).
        if let declared = schema.recordTypes[type]?.fields, op.fields.allSatisfy({ key, input in
            guard let v = input.plainValue, checked.keys.contains(key), let field = declared[key] else { return false }
            return field.encrypted == v.isEncrypted && field.accepts(v.type)
        }) { return }
        let keys = op.fields.keys.sorted()
        // Usually every field is valid: type them all and admit them at once; any failure repeats the check key
        // by key, which says which key failed first.
        var named: [String] = []
        if let values = try? typedValues(op, keys: keys, type: type, zone: zone, schema: schema, checked: checked.keys, named: &named) {
            // The keys that passed the name check now (a share's system keys are not field names: left out).
            for key in named { checked.keys.insert(key) }
            // Fields the schema declares with these types admit nothing: no copy of the schema to admit them.
            if values.isEmpty || schema.declaresAll(type, values) { return }
            var s = schema
            if (try? s.admit(recordType: type, values: values, environment: environment)) != nil {
                schema = s
                return
            }
        }
        for key in keys {
            let path = "\(record).fields.\(key)"
            do { if !(type == Share.recordType && Share.systemFieldKeys.contains(key)) { try Names.validateFieldName(key) } } catch { throw CKError.invalid("\(path): \(error.reason)", hint: error.hint) }
            guard let value = try value(op.fields[key], type: type, key: key, path: path, schema: schema) else { continue }
            do {
                for r in RecordIndex.references(value) { try CKDatabase.checkReferenceZone(r, key: key, zone: zone) }
                _ = try schema.admit(recordType: type, values: [key: value], environment: environment)
            } catch {
                throw CKError(error.code, "\(path).value: \(error.reason)", hint: error.hint)
            }
        }
    }

    /// The typed values of an operation's fields, or an error if any of them is not valid.
    /// Keys not in `checked` that pass the name check are added to `named`.
    package static func typedValues(_ op: RecordOperation, keys: [String], type: String, zone: String,
                            schema: Schema, checked: Set<String> = [], named: inout [String]) throws(CKError) -> [String: FieldValue] {
        var values: [String: FieldValue] = [:]
        values.reserveCapacity(keys.count)
        for key in keys {
            // A share's system keys (cloudkit.title, …) are fields of cloudkit.share records only.
            if !(type == Share.recordType && Share.systemFieldKeys.contains(key)) && !checked.contains(key) {
                try Names.validateFieldName(key)
                named.append(key)
            }
            guard let v = try value(op.fields[key], type: type, key: key, path: "", schema: schema) else { continue }
            // Only a value holding a reference has a zone to check (most hold none: no array of them is made).
            if v.holdsReferenceOrAsset {
                for r in RecordIndex.references(v) { try CKDatabase.checkReferenceZone(r, key: key, zone: zone) }
            }
            values[key] = v
        }
        return values
    }

    /// A field input typed as the save will type it (`ModifySession.resolve`); nil for none to check.
    package static func value(_ input: FieldInput?, type: String, key: String, path: String,
                      schema: Schema) throws(CKError) -> FieldValue? {
        switch input {
        case .json(let j)?: return try schema.value(fieldJSON: j, recordType: type, key: key, path: path)
        case .value(let v)?:
            // Only an empty list takes its type from the schema.
            if case .list(_, let items) = v, items.isEmpty { return Schema.coerceEmptyList(v, schema.declaredType(type, key)) }
            return v
        default: return nil
        }
    }

    /// Runs `body` for line `i`, turning an error whose reason starts with a JSON path (`$.fields.x: …`) into
    /// one that starts with `file:line:column:` pointing at that value.
    package func located<T>(_ i: Int, _ body: () throws(CKError) -> T) throws(CKError) -> T {
        do { return try body() } catch {
            guard error.reason.hasPrefix("$") else { throw error }
            let path = error.reason.range(of: ": ").map { String(error.reason[..<$0.lowerBound]) } ?? "$"
            throw at(i, column: JSON.position(of: path, in: bytes[spans[i].range]).column, error)
        }
    }

    /// `error` placed at `file:line:column` of line `i` (also kept in its details as `place`).
    package func at(_ i: Int, column: Int, _ error: CKError) -> CKError {
        var e = error
        let place = "\(place(i)):\(column)"
        e.reason = "\(place): \(e.reason)"
        e.details["place"] = .string(place)
        // Not the JSON-syntax hint (given with syntax errors only): a wrong-typed value is valid JSON.
        if e.hint == nil { e.hint = "nothing was saved: fix line \(spans[i].number) and run the command again" }
        return e
    }
}
