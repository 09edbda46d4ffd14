import Foundation

extension KVValue {
    // MARK: The typed form (store files, fixtures, -o json)

    /// `{"type": "string", "value": "dark"}`; arrays and dictionaries hold typed members, data is base64 and a
    /// date is milliseconds since 1970. It keeps every type apart, so files and fixtures round-trip exactly.
    public var json: JSON {
        .object(["type": .string(typeName), "value": valueJSON])
    }

    package var valueJSON: JSON {
        switch self {
        case .string(let s): return .string(s)
        case .integer(let i): return .int(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .date(let ms): return .int(ms)
        case .data(let d): return .string(Data(d).base64EncodedString())
        case .array(let a): return .array(a.map(\.json))
        case .dictionary(let d): return .object(d.mapValues(\.json))
        }
    }

    /// Reads the typed form; `path` names the place for messages.
    public init(json: JSON, path: String) throws(CKError) {
        try self.init(json: json, path: path, depth: 0)
    }

    package init(json: JSON, path: String, depth: Int) throws(CKError) {
        guard case .object(let o) = json, let type = o["type"]?.stringValue, let v = o["value"] else {
            throw CKError.invalid("\(path): expected {\"type\": …, \"value\": …}")
        }
        func bad(_ what: String) -> CKError { CKError.invalid("\(path): expected \(what) for type \(type)") }
        switch type {
        case "string": guard let s = v.stringValue else { throw bad("a string") }; self = .string(s)
        case "integer": guard case .int(let i) = v else { throw bad("an integer") }; self = .integer(i)
        case "double": guard let d = v.doubleValue else { throw bad("a number") }; self = .double(d)
        case "bool": guard let b = v.boolValue else { throw bad("true or false") }; self = .bool(b)
        case "date":
            guard let ms = v.int64Value, ISO8601.validRange.contains(ms) else { throw bad("milliseconds since 1970 within the years 0001 to 9999") }
            self = .date(ms)
        case "data":
            guard let s = v.stringValue, let d = Data(base64Encoded: s) else { throw bad("base64 text") }
            self = .data([UInt8](d))
        case "array", "dictionary":
            guard depth < KVLimits.maxDepth else { throw KVValue.tooDeep(path) }
            if type == "array" {
                guard let a = v.arrayValue else { throw bad("an array") }
                var items: [KVValue] = []
                for (i, item) in a.enumerated() { items.append(try KVValue(json: item, path: "\(path)[\(i)]", depth: depth + 1)) }
                self = .array(items)
            } else {
                guard let d = v.objectValue else { throw bad("an object") }
                var items: [String: KVValue] = [:]
                for (k, item) in d { items[k] = try KVValue(json: item, path: "\(path).\(k)", depth: depth + 1) }
                self = .dictionary(items)
            }
        default:
            throw KVValue.unsupported(type, place: path)
        }
    }

    // MARK: Plain JSON (`--json`, and how arrays and dictionaries print)

    /// JSON as people write it: strings, numbers (integers stay integers), booleans, arrays and objects;
    /// `{"$date": "2026-12-01T09:30:00Z"}` is a date and `{"$data": "<base64>"}` is data.
    public var plainJSON: JSON {
        switch self {
        case .string(let s): return .string(s)
        case .integer(let i): return .int(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .bool(b)
        case .date(let ms): return .object(["$date": .string(ISO8601.format(milliseconds: ms))])
        case .data(let d): return .object(["$data": .string(Data(d).base64EncodedString())])
        case .array(let a): return .array(a.map(\.plainJSON))
        case .dictionary(let d): return .object(d.mapValues(\.plainJSON))
        }
    }

    /// Reads plain JSON (see `plainJSON`); `key` names the key for messages.
    public init(plainJSON json: JSON, key: String) throws(CKError) {
        try self.init(plainJSON: json, place: "key '\(Names.describe(key))'", depth: 0)
    }

    package init(plainJSON json: JSON, place: String, depth: Int) throws(CKError) {
        switch json {
        case .null:
            throw CKError.invalid("\(place): null is not a property-list value",
                                  hint: "the key-value store holds \(KVValue.typeNames.joined(separator: ", ")); remove a key with 'ck kv remove'")
        case .string(let s): self = .string(s)
        case .int(let i): self = .integer(i)
        case .double(let d): self = .double(d)
        case .bool(let b): self = .bool(b)
        case .array(let a):
            guard depth < KVLimits.maxDepth else { throw KVValue.tooDeep(place) }
            var items: [KVValue] = []
            for item in a { items.append(try KVValue(plainJSON: item, place: place, depth: depth + 1)) }
            self = .array(items)
        case .object(let o):
            if o.count == 1, let d = o["$date"] {
                if let ms = d.int64Value, ISO8601.validRange.contains(ms) { self = .date(ms); return }
                guard let s = d.stringValue, let ms = ISO8601.parse(s) else {
                    throw CKError.invalid("\(place): $date must be an ISO 8601 date or milliseconds since 1970")
                }
                self = .date(ms)
                return
            }
            if o.count == 1, let d = o["$data"] {
                guard let s = d.stringValue, let bytes = Data(base64Encoded: s) else { throw CKError.invalid("\(place): $data must be base64 text") }
                self = .data([UInt8](bytes))
                return
            }
            guard depth < KVLimits.maxDepth else { throw KVValue.tooDeep(place) }
            var items: [String: KVValue] = [:]
            for (k, item) in o { items[k] = try KVValue(plainJSON: item, place: place, depth: depth + 1) }
            self = .dictionary(items)
        }
    }

    /// Parses `--json` text.
    public static func parse(json text: String, key: String) throws(CKError) -> KVValue {
        let json: JSON
        do { json = try JSON.parse(text) } catch {
            throw CKError.invalid("key '\(Names.describe(key))': --json is not valid JSON at line \(error.line), column \(error.column): \(error.message)")
        }
        return try KVValue(plainJSON: json, key: key)
    }

    // MARK: Command-line text

    /// Text typed as `ck record save` types a field: `type` (`string`, `integer`/`int64`, `double`, `bool`,
    /// `date`/`timestamp`, `data`/`bytes` as base64 or `@file`, `array`/`dictionary` as JSON), or without one,
    /// a bool (true/false/yes/no), an integer, a decimal number, an ISO 8601 date, else a string.
    public static func parse(_ text: String, type: String?, key: String, files: FileSource) throws(CKError) -> KVValue {
        let place = "key '\(Names.describe(key))'"
        let name = type?.lowercased()
        switch name {
        case "bool", "boolean":
            switch text.trimmingBlanks.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw CKError.invalid("\(place): '\(text)' is not a bool", hint: "write true or false")
            }
        case "array", "dictionary", "dict":
            let v = try parse(json: text, key: key)
            let wanted = name == "array" ? "array" : "dictionary"
            guard v.typeName == wanted else { throw CKError.invalid("\(place): the JSON is \(v.typeName == "array" ? "an" : "a") \(v.typeName), not \(wanted == "array" ? "an" : "a") \(wanted)") }
            return v
        default: break
        }
        let field: FieldType
        if let name {
            guard let t = FieldType(cliName: name), !t.isList, [.string, .int64, .double, .timestamp, .bytes].contains(t.base) else {
                throw unsupported(type ?? "", place: place)
            }
            field = t
        } else if let b = ValueParser.boolean(text) {
            return .bool(b)
        } else {
            field = ValueParser.inferType(text)
        }
        var parser = ValueParser(files: files)
        parser.bytesLimit = (KVLimits.maxValueBytes, "the key-value store's limit for one value")
        switch try parser.parse(text, as: field, path: place) {
        case .string(let s): return .string(s)
        case .int64(let i): return .integer(i)
        case .double(let d): return .double(d)
        case .timestamp(let ms): return .date(ms)
        case .bytes(let b): return .data(b)
        default: throw unsupported(type ?? field.cliName, place: place)
        }
    }

    package static func unsupported(_ type: String, place: String) -> CKError {
        CKError.invalid("\(place): unsupported type '\(Names.describe(type))': the key-value store holds property-list values only",
                        hint: "use one of \(typeNames.joined(separator: ", "))")
    }

    package static func tooDeep(_ place: String) -> CKError {
        CKError.invalid("\(place): nested deeper than \(KVLimits.maxDepth) levels of arrays and dictionaries",
                        hint: "the key-value store takes at most \(KVLimits.maxDepth) levels; flatten the value")
    }
}
