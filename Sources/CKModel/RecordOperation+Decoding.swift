
/// Reads a batch line straight into a `RecordOperation` from its bytes: a generic `JSON` tree of the line,
/// then `RecordOperation(json:)`, then typing each field dictionary dominated bulk loads.
extension RecordOperation {
    /// Decodes one batch line (a Web Services operation or a bare record) and the JSON path of its record
    /// (`$` or `$.record`); nil when the line is not in a shape this reader handles (a zoneID, parent or other
    /// rarer key, a duplicate key, a value of an unexpected kind, an operation that would fail), which the
    /// caller then reads with the generic parser and `RecordOperation(json:path:policy:)`, so results and
    /// errors stay theirs. Field dictionaries with a value the schema can't change (an explicit STRING, INT64,
    /// DOUBLE or TIMESTAMP type, or a list of one, with a value of the canonical JSON kind) are typed here;
    /// the others are kept as their JSON dictionary, as the generic reader keeps them.
    package static func decode(batchLine line: ArraySlice<UInt8>, policy: SavePolicy?) -> (operation: RecordOperation, record: String)? {
        line.withUnsafeBufferPointer { buf in
            var r = BatchLineReader(p: JSONParser(buf))
            guard let result = try? r.line(policy: policy) else { return nil }
            r.p.skipSpace()
            return r.p.i == buf.count ? result : nil
        }
    }
}

/// Thrown inside the fast reader when a line has a shape it does not handle; the caller falls back.
private struct NotFastBatchShape: Error {}

/// A scanner over one batch line. White space between tokens is allowed, as the generic parser allows it.
private struct BatchLineReader {
    package var p: JSONParser

    /// The next byte after white space, not consumed.
    package mutating func peek() throws(NotFastBatchShape) -> UInt8 {
        p.skipSpace()
        guard p.i < p.b.count else { throw NotFastBatchShape() }
        return p.b[p.i]
    }

    package mutating func expect(_ c: UInt8) throws(NotFastBatchShape) {
        guard try peek() == c else { throw NotFastBatchShape() }
        p.i += 1
    }

    /// Consumes `c` if it comes next (after white space).
    package mutating func accept(_ c: UInt8) throws(NotFastBatchShape) -> Bool {
        guard try peek() == c else { return false }
        p.i += 1
        return true
    }

    package mutating func string() throws(NotFastBatchShape) -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw NotFastBatchShape() }
        do { return try p.string() } catch { throw NotFastBatchShape() }
    }

    /// A key and its colon.
    package mutating func key() throws(NotFastBatchShape) -> String {
        let k = try string()
        try expect(UInt8(ascii: ":"))
        return k
    }

    package mutating func value(depth: Int) throws(NotFastBatchShape) -> JSON {
        _ = try peek()
        do { return try p.value(depth: depth) } catch { throw NotFastBatchShape() }
    }

    /// A field's value: a string or a number of the usual spellings read straight from its bytes (no `String`
    /// of a number's text, no trip through `Int64(_:)` or `Double(_:)`), anything else by the generic parser.
    /// Either way the result is the `JSON` scalar the generic parser gives for the same bytes.
    package mutating func scalarOrValue(depth: Int) throws(NotFastBatchShape) -> JSON {
        let c = try peek()
        if c == UInt8(ascii: "\"") {
            do { return .string(try p.string()) } catch { throw NotFastBatchShape() }
        }
        if c == UInt8(ascii: "-") || (c >= 48 && c <= 57) {
            let start = p.i
            if let n = BatchLineReader.number(p.b, &p.i) { return n }
            p.i = start
        }
        return try value(depth: depth)
    }

    /// Powers of ten a `Double` holds exactly (10^0 to 10^22).
    private static let exactPowersOfTen: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
                                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// The number at `i` when it is spelled as most are: an integer of at most 18 digits (no overflow can
    /// happen), or a decimal of at most 15 digits in all with no exponent. Such a decimal is its digits as an
    /// integer (exact in a `Double`, being under 2^53) divided by a power of ten (exact up to 10^22): one
    /// correctly rounded division, so the same `Double` as `Double(text)` (Clinger's fast path). Anything else
    /// (an exponent, more digits, a malformed number) is nil with `i` left anywhere; the caller reads it again.
    package static func number(_ b: UnsafeBufferPointer<UInt8>, _ i: inout Int) -> JSON? {
        let n = b.count
        let negative = b[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard i < n, b[i] >= 48, b[i] <= 57 else { return nil }
        var m: Int64 = 0
        var digits = 0
        if b[i] == 48 {
            i += 1
            digits = 1
        } else {
            while i < n, b[i] >= 48, b[i] <= 57 {
                digits += 1
                guard digits <= 18 else { return nil }
                m = m * 10 + Int64(b[i] - 48)
                i += 1
            }
        }
        let isFraction = i < n && b[i] == UInt8(ascii: ".")
        if !isFraction {
            if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") { return nil }
            return .int(negative ? -m : m)
        }
        i += 1
        var fraction = 0
        while i < n, b[i] >= 48, b[i] <= 57 {
            digits += 1
            fraction += 1
            guard digits <= 15 else { return nil }
            m = m * 10 + Int64(b[i] - 48)
            i += 1
        }
        guard fraction > 0 else { return nil }
        if i < n, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") { return nil }
        let d = Double(m) / exactPowersOfTen[fraction]
        return .double(negative ? -d : d)
    }

    package mutating func line(policy: SavePolicy?) throws(NotFastBatchShape) -> (operation: RecordOperation, record: String) {
        try expect(UInt8(ascii: "{"))
        let first = try recordKey()
        if first == "operationType" || first == "record" {
            var opType: RecordOperationType? = nil
            var record: RecordShape? = nil
            var k = first
            while true {
                switch k {
                case "operationType" where opType == nil:
                    guard let t = RecordOperationType(rawValue: try string()) else { throw NotFastBatchShape() }
                    opType = t
                case "record" where record == nil:
                    record = try self.record(depth: 1)
                default:
                    throw NotFastBatchShape()
                }
                if try accept(UInt8(ascii: "}")) { break }
                try expect(UInt8(ascii: ","))
                k = try key()
            }
            guard let opType, let r = record else { throw NotFastBatchShape() }
            let op = RecordOperation(type: opType, recordName: r.name, recordType: r.type, changeTag: r.tag, fields: r.fields)
            try BatchLineReader.checkComplete(op, type: r.type)
            return (op, "$.record")
        }
        let r = try record(depth: 0, firstKey: first)
        var op = RecordOperation.save(recordType: r.type ?? "", recordName: r.name, fields: r.fields, ifTag: r.tag, policy: policy)
        if r.type == nil { op.recordType = nil }
        try BatchLineReader.checkComplete(op, type: r.type)
        return (op, "$")
    }

    /// Operations the generic reader refuses are left to it, for its message.
    package static func checkComplete(_ op: RecordOperation, type: String?) throws(NotFastBatchShape) {
        if (op.type.isDelete || op.type == .update || op.type == .replace) && op.recordName == nil { throw NotFastBatchShape() }
        if op.type == .create && type == nil { throw NotFastBatchShape() }
    }

    package struct RecordShape {
        package var name: String?, type: String?, tag: String?
        package var fields: [String: FieldInput] = [:]
    }

    /// A record dictionary at `depth` (0 for a bare record); its opening brace and, for a bare record, its
    /// first key are already read when `firstKey` is given.
    package mutating func record(depth: Int, firstKey: String? = nil) throws(NotFastBatchShape) -> RecordShape {
        var k: String
        if let firstKey { k = firstKey } else {
            try expect(UInt8(ascii: "{"))
            if try accept(UInt8(ascii: "}")) { return RecordShape() }
            k = try recordKey()
        }
        var r = RecordShape()
        var seen: (name: Bool, type: Bool, tag: Bool, fields: Bool) = (false, false, false, false)
        while true {
            switch k {
            case "recordName" where !seen.name: seen.name = true; r.name = try string()
            case "recordType" where !seen.type: seen.type = true; r.type = try string()
            case "recordChangeTag" where !seen.tag: seen.tag = true; r.tag = try string()
            case "fields" where !seen.fields: seen.fields = true; r.fields = try fields(depth: depth + 1)
            default: throw NotFastBatchShape()
            }
            if try accept(UInt8(ascii: "}")) { return r }
            try expect(UInt8(ascii: ","))
            k = try recordKey()
        }
    }

    /// A record dictionary's key and its colon; its usual keys are matched as bytes, with no `String` made.
    package mutating func recordKey() throws(NotFastBatchShape) -> String {
        _ = try peek()
        if p.accept("\"recordName\"") { try expect(UInt8(ascii: ":")); return "recordName" }
        if p.accept("\"recordType\"") { try expect(UInt8(ascii: ":")); return "recordType" }
        if p.accept("\"fields\"") { try expect(UInt8(ascii: ":")); return "fields" }
        return try key()
    }

    /// The object of field dictionaries at `depth`.
    package mutating func fields(depth: Int) throws(NotFastBatchShape) -> [String: FieldInput] {
        try expect(UInt8(ascii: "{"))
        if try accept(UInt8(ascii: "}")) { return [:] }
        // Room for a usual record's fields at once, rather than growing (and rehashing) field by field; made with
        // its capacity (specialised), as `reserveCapacity` on an empty one went through the generic entry point.
        var out = [String: FieldInput](minimumCapacity: 8)
        repeat {
            let k = try key()
            // A duplicate name is left to the generic parser (one hash of the name: the insert tells).
            guard out.updateValue(try field(depth: depth + 1), forKey: k) == nil else { throw NotFastBatchShape() }
        } while try accept(UInt8(ascii: ","))
        try expect(UInt8(ascii: "}"))
        return out
    }

    /// A field dictionary `{"value": …, "type": "…"}` (either order, "type" optional) at `depth`.
    package mutating func field(depth: Int) throws(NotFastBatchShape) -> FieldInput {
        try expect(UInt8(ascii: "{"))
        var value: JSON? = nil
        var typeName: String? = nil
        var plain: FieldType? = nil
        if !(try accept(UInt8(ascii: "}"))) {
            repeat {
                // The two keys, and the usual type names, are matched as bytes: no `String` is made for them.
                _ = try peek()
                let k: String
                if p.accept("\"value\"") { k = "value" } else if p.accept("\"type\"") { k = "type" } else { k = try string() }
                try expect(UInt8(ascii: ":"))
                switch k {
                case "value" where value == nil: value = try scalarOrValue(depth: depth + 1)
                case "type" where typeName == nil:
                    if try peek() == UInt8(ascii: "\""), let known = acceptPlainType() {
                        (typeName, plain) = (known.name, known.type)
                    } else {
                        typeName = try string()
                        plain = typeName.flatMap(BatchLineReader.plainType)
                    }
                default: throw NotFastBatchShape()
                }
            } while try accept(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        }
        // As RecordOperation(json:) reads it: no value, or null, unsets the field.
        guard let value, !value.isNull else { return .unset }
        guard let typeName else { return .json(.object(["value": value])) }
        // The usual scalars of their canonical kind, typed as `FieldValue.from` types them (a TIMESTAMP within
        // years 0001 to 9999), without its call; anything else takes the general route below.
        if let type = plain, !type.isList {
            switch (type.base, value) {
            case (.string, .string(let s)): return .value(.string(s))
            case (.int64, .int(let i)): return .value(.int64(i))
            case (.double, .double(let d)): return .value(.double(d))
            case (.timestamp, .int(let i)) where ISO8601.validRange.contains(i): return .value(.timestamp(i))
            default: break
            }
        }
        if let type = plain, BatchLineReader.canonical(value, type),
           let v = try? FieldValue.from(valueJSON: value, type: type, path: "") {
            return .value(v)
        }
        return .json(.object(["value": value, "type": .string(typeName)]))
    }

    /// Consumes a quoted plain type name (`plainType`) at the cursor, if one is there.
    package mutating func acceptPlainType() -> (name: String, type: FieldType)? {
        if p.accept("\"STRING\"") { return ("STRING", FieldType(.string)) }
        if p.accept("\"INT64\"") { return ("INT64", FieldType(.int64)) }
        if p.accept("\"DOUBLE\"") { return ("DOUBLE", FieldType(.double)) }
        if p.accept("\"TIMESTAMP\"") { return ("TIMESTAMP", FieldType(.timestamp)) }
        return nil
    }

    /// The Web Services names whose values the schema can't retype (no UNKNOWN_LIST, encryption or asset).
    package static func plainType(_ name: String) -> FieldType? {
        switch name {
        case "STRING": return FieldType(.string)
        case "INT64": return FieldType(.int64)
        case "DOUBLE": return FieldType(.double)
        case "TIMESTAMP": return FieldType(.timestamp)
        case "STRING_LIST": return FieldType(.string, list: true)
        case "INT64_LIST": return FieldType(.int64, list: true)
        case "DOUBLE_LIST": return FieldType(.double, list: true)
        case "TIMESTAMP_LIST": return FieldType(.timestamp, list: true)
        default: return nil
        }
    }

    /// True when `value` is of the JSON kind the typed value writes back (so `fieldJSON` gives the same
    /// dictionary, as a conflict's clientRecord shows it): a string for STRING, an integer for INT64 and
    /// TIMESTAMP, a non-integer number for DOUBLE.
    package static func canonical(_ value: JSON, _ type: FieldType) -> Bool {
        func scalar(_ v: JSON) -> Bool {
            switch (type.base, v) {
            case (.string, .string), (.int64, .int), (.timestamp, .int), (.double, .double): return true
            default: return false
            }
        }
        guard type.isList else { return scalar(value) }
        guard case .array(let items) = value else { return false }
        return items.allSatisfy(scalar)
    }
}
