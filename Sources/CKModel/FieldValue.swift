import Foundation

/// A reference to another record in the same zone.
public struct Reference: Equatable, Sendable {
    public enum Action: String, Sendable, CaseIterable { case none = "NONE", deleteSelf = "DELETE_SELF", validate = "VALIDATE" }
    public var recordName: String
    public var zoneName: String?
    public var ownerRecordName: String?
    public var action: Action

    public init(recordName: String, zoneName: String? = nil, ownerRecordName: String? = nil, action: Action = .none) {
        self.recordName = recordName
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
        self.action = action
    }
}

/// An asset: bytes kept content-addressed in the environment's `assets/` folder.
public struct Asset: Equatable, Sendable {
    /// SHA-256 of the bytes, lower-case hex; also the file name under `assets/`.
    public var sha256: String
    /// The size of the bytes: always the real size (CloudKit keeps no file name, so neither does ck).
    public var size: Int64

    public init(sha256: String, size: Int64) {
        self.sha256 = sha256
        self.size = size
    }
}

/// A location, as CLLocation / the Web Services location dictionary.
public struct Location: Equatable, Sendable {
    public var latitude: Double
    public var longitude: Double
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    public var altitude: Double?
    public var speed: Double?
    public var course: Double?
    public var timestamp: Int64?

    public init(latitude: Double, longitude: Double) { self.latitude = latitude; self.longitude = longitude }
}

/// A record field's value. The usual kinds are held inline; only the larger structs (and the nested value of
/// `encrypted`) are boxed, so typing a string or a number allocates nothing (a box a value cost about 350
/// instructions to make and free on a bulk load; docs/performance.md).
public enum FieldValue: Equatable, Sendable {
    case string(String)
    case int64(Int64)
    case double(Double)
    /// Milliseconds since 1970-01-01T00:00:00Z.
    case timestamp(Int64)
    case bytes([UInt8])
    indirect case reference(Reference)
    indirect case asset(Asset)
    indirect case location(Location)
    case list(FieldType.Base, [FieldValue])
    /// A value kept in `encryptedValues`: never a reference or an asset, never encrypted twice.
    indirect case encrypted(FieldValue)

    /// The value's type (an encrypted value has its plain value's type; see `isEncrypted`).
    public var type: FieldType {
        switch self {
        case .encrypted(let v): return v.type
        case .string: return .string
        case .int64: return .int64
        case .double: return .double
        case .timestamp: return .timestamp
        case .bytes: return .bytes
        case .reference: return .reference
        case .asset: return .asset
        case .location: return .location
        case .list(let b, _): return FieldType(b, list: true)
        }
    }
}

// MARK: - Web Services JSON

extension FieldValue {
    /// The Web Services field dictionary `{"value": …, "type": "STRING"}`.
    /// An encrypted value carries `"isEncrypted": true`; encrypted bytes are ENCRYPTED_BYTES, as Apple's apps send them.
    public var fieldJSON: JSON {
        guard case .encrypted(let plain) = self else { return .object(["value": valueJSON, "type": .string(type.wsName)]) }
        if plain.type.base == .bytes { return .object(["value": valueJSON, "type": .string(FieldValue.encryptedBytesWSName(list: plain.type.isList))]) }
        return .object(["value": valueJSON, "type": .string(type.wsName), "isEncrypted": .bool(true)])
    }

    /// The bare `value` part.
    public var valueJSON: JSON {
        switch self {
        case .string(let s): return .string(s)
        case .int64(let i): return .int(i)
        case .double(let d): return .double(d)
        case .timestamp(let t): return .int(t)
        case .bytes(let b): return .string(Data(b).base64EncodedString())
        case .reference(let r):
            var o: [String: JSON] = ["recordName": .string(r.recordName), "action": .string(r.action.rawValue)]
            if r.zoneName != nil || r.ownerRecordName != nil {
                var zid: [String: JSON] = [:]
                if let z = r.zoneName { zid["zoneName"] = .string(z) }
                if let owner = r.ownerRecordName { zid["ownerRecordName"] = .string(owner) }
                o["zoneID"] = .object(zid)
            }
            return .object(o)
        case .asset(let a):
            return .object([
                "fileChecksum": .string(Data(FieldValue.hexBytes(a.sha256)).base64EncodedString()),
                "size": .int(a.size), "sha256": .string(a.sha256),
            ])
        case .location(let l):
            var o: [String: JSON] = ["latitude": .double(l.latitude), "longitude": .double(l.longitude)]
            if let v = l.horizontalAccuracy { o["horizontalAccuracy"] = .double(v) }
            if let v = l.verticalAccuracy { o["verticalAccuracy"] = .double(v) }
            if let v = l.altitude { o["altitude"] = .double(v) }
            if let v = l.speed { o["speed"] = .double(v) }
            if let v = l.course { o["course"] = .double(v) }
            if let v = l.timestamp { o["timestamp"] = .int(v) }
            return .object(o)
        case .list(_, let items): return .array(items.map(\.valueJSON))
        case .encrypted(let v): return v.valueJSON
        }
    }

    package static func hexBytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = hex.utf8.makeIterator()
        func nib(_ c: UInt8) -> UInt8 { c >= 97 ? c - 87 : (c >= 65 ? c - 55 : c - 48) }
        while let h = it.next(), let l = it.next() { out.append(nib(h) << 4 | nib(l)) }
        return out
    }

    /// Reads a field dictionary (Web Services or cktool shape). `declared` is the schema's type, if any.
    /// `path` names the place in the input for error messages.
    public static func from(fieldJSON: JSON, declared: FieldType?, path: String) throws(CKError) -> FieldValue? {
        guard case .object(let o) = fieldJSON else {
            throw CKError.invalid("\(path): expected a field dictionary {\"value\": …, \"type\": …}, found \(fieldJSON.kindName)")
        }
        for k in o.keys where k != "value" && k != "type" && k != "isEncrypted" {
            throw CKError.invalid("\(path): unknown key '\(k)' in field dictionary (expected 'value', 'type' and 'isEncrypted')")
        }
        var encrypted = false
        if let e = o["isEncrypted"], !e.isNull {
            guard let b = e.boolValue else { throw CKError.invalid("\(path).isEncrypted: expected true or false") }
            encrypted = b
        }
        var type: FieldType? = nil
        if let t = o["type"], !t.isNull {
            guard let name = t.stringValue else { throw CKError.invalid("\(path).type: expected a string") }
            if let list = FieldValue.encryptedBytesList(wsName: name) {
                type = FieldType(.bytes, list: list)
                encrypted = true
            } else if name == "UNKNOWN_LIST" {
                type = declared.flatMap { $0.isList ? $0 : nil } ?? FieldType(.string, list: true)
            } else {
                guard let ft = FieldType(name: name) else {
                    throw CKError.invalid("\(path).type: unknown field type '\(name)'",
                                          hint: "use STRING, INT64, DOUBLE, TIMESTAMP, BYTES, REFERENCE, ASSETID, LOCATION or <TYPE>_LIST (or cktool's stringType, int64Type, …)")
                }
                type = ft
            }
        }
        guard let value = o["value"], !value.isNull else { return nil }
        let plain = try from(valueJSON: value, type: type ?? declared, path: path + ".value")
        return encrypted ? try plain.encrypting(path: path) : plain
    }

    /// Reads a bare value; with no type, the JSON kind decides.
    public static func from(valueJSON v: JSON, type: FieldType?, path: String) throws(CKError) -> FieldValue {
        guard let type else { return try inferred(v, path: path) }
        if type.isList {
            guard case .array(let items) = v else {
                throw CKError.invalid("\(path): expected a list (JSON array) for \(type.wsName), found \(v.kindName)")
            }
            var out: [FieldValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() {
                do { out.append(try scalar(item, base: type.base, path: path)) } catch {
                    // The item's path is built only for its error: one interpolation per item cost more than reading it.
                    out.append(try scalar(item, base: type.base, path: "\(path)[\(i)]"))
                }
            }
            return .list(type.base, out)
        }
        return try scalar(v, base: type.base, path: path)
    }

    package static func inferred(_ v: JSON, path: String) throws(CKError) -> FieldValue {
        switch v {
        case .string(let s): return .string(s)
        case .int(let i): return .int64(i)
        case .double(let d): return .double(d)
        case .bool(let b): return .int64(b ? 1 : 0)
        case .object(let o):
            if o["recordName"] != nil { return try scalar(v, base: .reference, path: path) }
            if o["latitude"] != nil { return try scalar(v, base: .location, path: path) }
            if o["fileChecksum"] != nil || o["sha256"] != nil { return try scalar(v, base: .asset, path: path) }
            throw CKError.invalid("\(path): cannot tell the type of this object; give \"type\"")
        case .array(let items):
            guard let first = items.first else { return .list(.string, []) }
            let t = try inferred(first, path: path + "[0]").type
            return try from(valueJSON: v, type: FieldType(t.base, list: true), path: path)
        case .null: throw CKError.invalid("\(path): null value")
        }
    }

    package static func scalar(_ v: JSON, base: FieldType.Base, path: String) throws(CKError) -> FieldValue {
        func mismatch(_ expected: String) -> CKError {
            CKError.invalid("\(path): expected \(expected) for \(FieldType(base).wsName), found \(v.kindName)")
        }
        switch base {
        case .string:
            guard let s = v.stringValue else { throw mismatch("a string") }
            return .string(s)
        case .int64:
            if case .bool(let b) = v { return .int64(b ? 1 : 0) }
            if case .string(let s) = v, let i = Int64(s) { return .int64(i) }  // numbersAsStrings
            guard let i = v.int64Value else { throw mismatch("an integer") }
            return .int64(i)
        case .double:
            if case .string(let s) = v, let d = Double(s), d.isFinite { return .double(d) }
            guard let d = v.doubleValue else { throw mismatch("a number") }
            return .double(d)
        case .timestamp:
            if case .string(let s) = v {
                guard let ms = ISO8601.parse(s) else { throw CKError.invalid("\(path): '\(s)' is not an ISO 8601 date or milliseconds since 1970") }
                return .timestamp(ms)
            }
            guard let d = v.int64Value.map(Double.init) ?? v.doubleValue, d.isFinite,
                  Double(ISO8601.validRange.lowerBound) <= d, d <= Double(ISO8601.validRange.upperBound) else {
                throw CKError.invalid("\(path): expected milliseconds since 1970 for a date in the years 0001 to 9999")
            }
            return .timestamp(v.int64Value ?? Int64(d))
        case .bytes:
            guard let s = v.stringValue else { throw mismatch("a base64 string") }
            guard let d = Data(base64Encoded: s) else { throw CKError.invalid("\(path): not valid base64") }
            return .bytes([UInt8](d))
        case .reference:
            if case .string(let s) = v { return .reference(try ValueParser.reference(s, action: .none, path: path)) }
            guard case .object(let o) = v, let name = o["recordName"]?.stringValue else { throw mismatch("a reference {\"recordName\": …}") }
            try rethrowing(path) { () throws(CKError) in try Names.validateRecordName(name) }
            var action = Reference.Action.none
            if let a = o["action"], !a.isNull {
                guard let s = a.stringValue, let act = Reference.Action(rawValue: s) else {
                    throw CKError.invalid("\(path).action: expected NONE, DELETE_SELF or VALIDATE")
                }
                action = act
            }
            let zid = o["zoneID"]
            return .reference(Reference(recordName: name, zoneName: zid?["zoneName"]?.stringValue,
                                        ownerRecordName: zid?["ownerRecordName"]?.stringValue, action: action))
        case .location:
            if case .string(let s) = v { return .location(try ValueParser.location(s, path: path)) }
            guard case .object(let o) = v, let lat = o["latitude"]?.doubleValue, let lon = o["longitude"]?.doubleValue else {
                throw mismatch("a location {\"latitude\", \"longitude\"}")
            }
            var l = try ValueParser.checkedLocation(lat, lon, path: path)
            l.horizontalAccuracy = o["horizontalAccuracy"]?.doubleValue
            l.verticalAccuracy = o["verticalAccuracy"]?.doubleValue
            l.altitude = o["altitude"]?.doubleValue
            l.speed = o["speed"]?.doubleValue
            l.course = o["course"]?.doubleValue
            l.timestamp = o["timestamp"]?.int64Value
            return .location(l)
        case .asset:
            guard case .object(let o) = v else { throw mismatch("an asset dictionary") }
            if let hex = o["sha256"]?.stringValue, hex.utf8.count == 64, let size = o["size"]?.int64Value, size >= 0,
               hex.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) || ($0 >= 65 && $0 <= 70) }) {
                return .asset(Asset(sha256: hex.lowercased(), size: size))
            }
            if let sum = o["fileChecksum"]?.stringValue, let d = Data(base64Encoded: sum), d.count == 32,
               let size = o["size"]?.int64Value, size >= 0 {
                let hex = d.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }.joined()
                return .asset(Asset(sha256: hex, size: size))
            }
            throw CKError.invalid("\(path): an asset needs 'sha256' (or 'fileChecksum') and 'size' of bytes already in the store",
                                  hint: "give new asset bytes with field:asset=@path on the command line")
        }
    }

    package static func rethrowing(_ path: String, _ body: () throws(CKError) -> Void) throws(CKError) {
        do { try body() } catch { throw CKError(error.code, "\(path): \(error.reason)", hint: error.hint) }
    }
}
