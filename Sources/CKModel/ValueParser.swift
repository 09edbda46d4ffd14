import Foundation

/// Turns command-line text (`title=Hello`, `tags:string[]=a,b`, `photo:asset=@cat.jpg`) into field values.
public struct ValueParser {
    /// Asset bytes read while parsing, by SHA-256; the server stores them with the record.
    public private(set) var stagedAssets: [String: [UInt8]] = [:]
    /// Where `@file` values are read from: the caller's side, never the server's.
    public var files: FileSource
    /// The most bytes a BYTES `@file` may hold, and the limit's name: a record's (its data can't pass 1 MB),
    /// or the key-value store's for `ck kv set`.
    package var bytesLimit = (bytes: InputLimit.record, name: "CloudKit's limit for a record's data")
    /// What a TIMESTAMP written `now` is (ms since 1970): the store's clock where the server parses.
    public var now: () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }

    public init(files: FileSource = .directory(FileManager.default.currentDirectoryPath)) {
        self.files = files
    }

    /// Parses `text` as `type`; `path` names the field for messages.
    public mutating func parse(_ text: String, as type: FieldType, path: String) throws(CKError) -> FieldValue {
        if type.isList {
            let trimmed = text.trimmingBlanks
            if trimmed.hasPrefix("[") {
                let json: JSON
                do { json = try JSON.parse(trimmed) } catch {
                    throw CKError.invalid("\(path): list is not valid JSON at column \(error.column): \(error.message)")
                }
                return try FieldValue.from(valueJSON: json, type: type, path: path)
            }
            if trimmed.isEmpty { return .list(type.base, []) }
            let parts = ValueParser.split(text, separator: type.base == .location ? ";" : ",")
            var items: [FieldValue] = []
            for (i, p) in parts.enumerated() { items.append(try scalar(p, base: type.base, path: "\(path)[\(i)]")) }
            return .list(type.base, items)
        }
        return try scalar(text, base: type.base, path: path)
    }

    /// The type a value without a declared or explicit type gets: integer or boolean, double, ISO 8601 date, else string.
    public static func inferType(_ text: String) -> FieldType {
        // CloudKit has no boolean type: a Bool is stored as INT64 1/0, as --fields-json's true/false are.
        if Int64(text) != nil || boolean(text) != nil { return .int64 }
        if looksNumeric(text), let d = Double(text), d.isFinite { return .double }
        if text.count >= 10, ISO8601.parse(text) != nil { return .timestamp }
        return .string
    }

    /// `true`/`false`/`yes`/`no` in any case (NSPredicate's spellings) as a Bool, else nil.
    public static func boolean(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "yes": return true
        case "false", "no": return false
        default: return nil
        }
    }

    package static func looksNumeric(_ s: String) -> Bool {
        // Double("nan"), Double("inf") and hex forms parse; users mean strings there.
        !s.isEmpty && s.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 45 || $0 == 43 || $0 == 101 || $0 == 69 }
    }

    package mutating func scalar(_ text: String, base: FieldType.Base, path: String) throws(CKError) -> FieldValue {
        switch base {
        case .string: return .string(text)
        case .int64:
            let t = text.trimmingBlanks
            guard let i = Int64(t) ?? ValueParser.boolean(t).map({ $0 ? 1 : 0 }) else {
                throw CKError.invalid("\(path): '\(text)' is not a 64-bit integer (or true/false)")
            }
            return .int64(i)
        case .double:
            let t = text.trimmingBlanks
            guard ValueParser.looksNumeric(t), let d = Double(t), d.isFinite else {
                throw CKError.invalid("\(path): '\(text)' is not a number")
            }
            return .double(d)
        case .timestamp:
            let t = text.trimmingBlanks
            if t == "now" { return .timestamp(now()) }
            if let ms = Int64(t) {
                guard ISO8601.validRange.contains(ms) else {
                    throw CKError.invalid("\(path): \(ms) ms is outside the years 0001 to 9999")
                }
                return .timestamp(ms)
            }
            guard let ms = ISO8601.parse(t) else {
                throw CKError.invalid("\(path): '\(text)' is not a date",
                                      hint: "use ISO 8601 (2026-01-31, 2026-01-31T09:30:00Z) or milliseconds since 1970")
            }
            return .timestamp(ms)
        case .bytes:
            if text.hasPrefix("@") {
                return .bytes(try files.read(String(text.dropFirst()), path, limit: bytesLimit.bytes, limitName: bytesLimit.name))
            }
            guard let d = Data(base64Encoded: text) else {
                throw CKError.invalid("\(path): not valid base64", hint: "give bytes as base64, or @file to read a file")
            }
            return .bytes([UInt8](d))
        case .reference:
            return .reference(try ValueParser.reference(text, action: .none, path: path))
        case .location:
            return .location(try ValueParser.location(text, path: path))
        case .asset:
            let file = text.hasPrefix("@") ? String(text.dropFirst()) : text
            // Sized before it is read: a file over CloudKit's limit is never loaded.
            if let size = files.size(file), size > Asset.maxSize {
                throw Asset.tooLarge(path, size: size)
            }
            let bytes = try files.read(file, path, limit: Int(Asset.maxSize), limitName: "CloudKit's limit for an asset file")
            let hash = SHA256.hex(bytes)
            stagedAssets[hash] = bytes
            // CloudKit keeps no file name: only the bytes, their checksum and their size.
            return .asset(Asset(sha256: hash, size: Int64(bytes.count)))
        }
    }

    /// `recordName[@zone]`.
    public static func reference(_ text: String, action: Reference.Action, path: String) throws(CKError) -> Reference {
        var name = text
        var zone: String? = nil
        if let at = text.lastIndex(of: "@") {
            name = String(text[..<at])
            zone = String(text[text.index(after: at)...])
            do { try Names.validateZoneName(zone ?? "") } catch { throw CKError.invalid("\(path): \(error.reason)") }
        }
        do { try Names.validateRecordName(name) } catch { throw CKError.invalid("\(path): reference: \(error.reason)") }
        return Reference(recordName: name, zoneName: zone, action: action)
    }

    /// `lat,lon` in degrees.
    public static func location(_ text: String, path: String) throws(CKError) -> Location {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingBlanks }
        guard parts.count == 2, let lat = Double(parts[0]), let lon = Double(parts[1]) else {
            throw CKError.invalid("\(path): '\(text)' is not a location", hint: "write latitude,longitude in degrees, e.g. 37.33,-122.03")
        }
        return try checkedLocation(lat, lon, path: path)
    }

    package static func checkedLocation(_ lat: Double, _ lon: Double, path: String) throws(CKError) -> Location {
        guard (-90...90).contains(lat), (-180...180).contains(lon) else {
            throw CKError.invalid("\(path): latitude must be within ±90 and longitude within ±180 degrees")
        }
        return Location(latitude: lat, longitude: lon)
    }

    /// Splits on `separator`, honouring `\` escapes (`a\,b` is one item).
    package static func split(_ text: String, separator: Character) -> [String] {
        var out: [String] = []
        var cur = ""
        var escaped = false
        for c in text {
            if escaped { cur.append(c); escaped = false; continue }
            if c == "\\" { escaped = true; continue }
            if c == separator { out.append(cur); cur = ""; continue }
            cur.append(c)
        }
        if escaped { cur.append("\\") }
        out.append(cur)
        return out
    }
}
