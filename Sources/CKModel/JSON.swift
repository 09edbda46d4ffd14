import Foundation

/// A JSON value. Objects keep no order; the serializer writes keys in `JSON.keyOrder` then byte order.
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Member of an object, or nil.
    public subscript(key: String) -> JSON? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { return s }; return nil }
    public var boolValue: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var arrayValue: [JSON]? { if case .array(let a) = self { return a }; return nil }
    public var objectValue: [String: JSON]? { if case .object(let o) = self { return o }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// Integer value; a double with no fractional part also counts.
    public var int64Value: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d) where d.rounded() == d && abs(d) < 9.2e18: return Int64(d)
        default: return nil
        }
    }

    public var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// A short name of the value's JSON kind, for error messages.
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "boolean"
        case .int, .double: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

// MARK: - Serialising

extension JSON {
    /// Keys written first, in this order, so records and log lines read naturally.
    package static let keyOrder: [String: Int] = {
        let keys = ["seq", "op", "batch", "format", "ckErrorCode", "code", "serverErrorCode", "reason", "retryAfter",
                    "hint", "recordName", "recordType", "recordChangeTag", "deleted", "at", "identifier",
                    "zoneName", "ownerRecordName", "zoneType", "value", "type", "fields", "created",
                    "modified", "zoneID", "record", "records"]
        var map: [String: Int] = [:]
        for (i, k) in keys.enumerated() { map[k] = i }
        return map
    }()

    package static func orderedKeys(_ o: [String: JSON]) -> [String] { orderedPairs(o).map(\.key) }

    /// An object member ranked for writing (a struct, not a tuple: sorting tuples goes through generic code).
    package struct Member {
        package let rank: Int
        package let key: String
        package let value: JSON
    }

    /// An object's members in written order, each with its value (no second lookup by key).
    package static func orderedPairs(_ o: [String: JSON]) -> [Member] {
        // Rank each key once; unranked keys follow in byte order.
        var members = o.map { Member(rank: keyOrder[$0.key] ?? Int.max, key: $0.key, value: $0.value) }
        members.sort { a, b in
            if a.rank != b.rank { return a.rank < b.rank }
            return bytesPrecede(a.key, b.key)
        }
        return members
    }

    /// Byte order of two strings, on their contiguous bytes when they have them (the generic walk costs more).
    package static func bytesPrecede(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { x in
            b.utf8.withContiguousStorageIfAvailable { y in x.lexicographicallyPrecedes(y) }
        }
        if let fast, let r = fast { return r }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Compact one-line text (no newline inside; safe for JSON Lines).
    public func serialized() -> String {
        var out = [UInt8]()
        out.reserveCapacity(256)
        write(into: &out, indent: nil, level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// Indented text for people, two spaces a level.
    public func pretty() -> String { pretty(level: 0) }

    /// Indented text as it reads `level` levels deep in a larger document (its first line not indented).
    public func pretty(level: Int) -> String {
        var out = [UInt8]()
        write(into: &out, indent: 2, level: level)
        return String(decoding: out, as: UTF8.self)
    }

    package func write(into out: inout [UInt8], indent: Int?, level: Int) {
        switch self {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d): out.append(contentsOf: JSON.format(double: d).utf8)
        case .string(let s): JSON.writeString(s, into: &out)
        case .array(let a):
            if a.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.newline(&out, indent, level + 1)
                v.write(into: &out, indent: indent, level: level + 1)
            }
            JSON.newline(&out, indent, level)
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            if o.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, member) in JSON.orderedPairs(o).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSON.newline(&out, indent, level + 1)
                JSON.writeString(member.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                member.value.write(into: &out, indent: indent, level: level + 1)
            }
            JSON.newline(&out, indent, level)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: Int?, _ level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        var n = indent * level
        // Copied from a run of spaces: appending a repeated element costs a call a byte.
        while n > 0 {
            let k = min(n, spaces.count)
            out.append(contentsOf: spaces[0..<k])
            n -= k
        }
    }

    private static let spaces = [UInt8](repeating: UInt8(ascii: " "), count: 64)

    /// Shortest text that reads back as the same double; integral values keep a ".0".
    package static func format(double d: Double) -> String {
        guard d.isFinite else { return "null" }
        if d.rounded() == d && abs(d) < 1e15 { return String(Int64(d)) + ".0" }
        return "\(d)"
    }

    /// A JSON string literal: a string with nothing to escape (most are) is copied whole after a scan eight bytes
    /// at a time; the others by runs of bytes that need no escape, the rest escaped as JSON requires.
    package static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { u in
            out.append(UInt8(ascii: "\""))
            let first = firstByteToEscape(u)
            if first == u.count {
                out.append(contentsOf: u)
                out.append(UInt8(ascii: "\""))
                return
            }
            var start = 0
            for i in first..<u.count {
                let b = u[i]
                guard b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 else { continue }
                if start < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<i])) }
                switch b {
                case UInt8(ascii: "\""): out.append(92); out.append(34)
                case UInt8(ascii: "\\"): out.append(92); out.append(92)
                case 0x0A: out.append(92); out.append(UInt8(ascii: "n"))
                case 0x0D: out.append(92); out.append(UInt8(ascii: "r"))
                case 0x09: out.append(92); out.append(UInt8(ascii: "t"))
                default:
                    let hex: StaticString = "0123456789abcdef"
                    out.append(contentsOf: [92, UInt8(ascii: "u"), 48, 48, hex.utf8Start[Int(b >> 4)], hex.utf8Start[Int(b & 15)]])
                }
                start = i + 1
            }
            if start < u.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: u[start..<u.count])) }
            out.append(UInt8(ascii: "\""))
        }
    }

    /// Whether some byte of the eight in `x` (little-endian) may be a quote, a backslash or a control character:
    /// each test is nonzero exactly when a byte matches, or past a byte that does, so a false hit only sends a
    /// caller to its byte loop, which decides.
    @inline(__always)
    package static func mayEndStringRun(_ x: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let below20 = (x &- ones &* 0x20) & ~x & highs
        let q = x ^ (ones &* 0x22)
        let quote = (q &- ones) & ~q & highs
        let bs = x ^ (ones &* 0x5C)
        let backslash = (bs &- ones) & ~bs & highs
        return below20 | quote | backslash != 0
    }

    /// The index of the first byte a JSON string literal must escape (a quote, a backslash or a control
    /// character), or `u.count`. Eight bytes at a time: each test below is nonzero exactly when some byte of the
    /// word matches (a false hit past the first match only sends the scan to the byte loop, which decides).
    package static func firstByteToEscape(_ u: UnsafeBufferPointer<UInt8>) -> Int {
        guard let base = u.baseAddress else { return 0 }
        let n = u.count
        var i = 0
        while i + 8 <= n {
            if mayEndStringRun(UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)) { break }
            i += 8
        }
        while i < n {
            let c = base[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { return i }
            i += 1
        }
        return n
    }
}

// MARK: - Parsing

/// Where and why a JSON text failed to parse (1-based line and column).
public struct JSONParseError: Error, Equatable, Sendable {
    public var line: Int
    public var column: Int
    public var message: String
}

extension JSON {
    /// Deepest nesting accepted; deeper input is refused instead of exhausting the stack.
    public static let maxDepth = 128

    /// Parses one JSON document; anything but white space after it is an error.
    public static func parse(_ text: String) throws(JSONParseError) -> JSON {
        var bytes = Array(text.utf8)
        return try parse(bytes: &bytes)
    }

    /// Parses one JSON document from UTF-8 bytes. Inlinable so callers in other modules copy their bytes
    /// specialised: unspecialised, `Array(data)` looks up `C`'s associated types at run time (docs/performance.md).
    @inlinable
    public static func parse<C: Collection>(utf8 data: C) throws(JSONParseError) -> JSON where C.Element == UInt8 {
        var bytes = Array(data)
        return try parse(bytes: &bytes)
    }

    /// Checks that bytes are one JSON document without building it (duplicate keys are not checked).
    public static func validate<C: Collection>(utf8 data: C) throws(JSONParseError) where C.Element == UInt8 {
        let bytes = Array(data)
        try bytes.withUnsafeBufferPointer { buf throws(JSONParseError) in
            var p = JSONParser(buf)
            p.skipSpace()
            try p.skip(depth: 0)
            p.skipSpace()
            if p.i < buf.count { throw p.fail("unexpected text after the JSON value") }
        }
    }

    @usableFromInline
    package static func parse(bytes: inout [UInt8]) throws(JSONParseError) -> JSON {
        do {
            return try bytes.withUnsafeBufferPointer { buf throws(JSONParseError) -> JSON in
                var p = JSONParser(buf)
                p.skipSpace()
                let v = try p.value(depth: 0)
                p.skipSpace()
                if p.i < buf.count { throw p.fail("unexpected text after the JSON value") }
                return v
            }
        }
    }
}

package struct JSONParser {
    package let b: UnsafeBufferPointer<UInt8>
    package var i = 0

    package init(_ b: UnsafeBufferPointer<UInt8>) { self.b = b }

    package func fail(_ message: String, at pos: Int? = nil) -> JSONParseError {
        let end = min(pos ?? i, b.count)
        var line = 1, col = 1, k = 0
        while k < end {
            if b[k] == 0x0A { line += 1; col = 1 } else if b[k] & 0xC0 != 0x80 { col += 1 }
            k += 1
        }
        return JSONParseError(line: line, column: col, message: message)
    }

    package mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x0A || b[i] == 0x0D || b[i] == 0x09 { i += 1 }
    }

    package mutating func value(depth: Int) throws(JSONParseError) -> JSON {
        guard i < b.count else { throw fail("unexpected end of input, expected a value") }
        if depth > JSON.maxDepth { throw fail("nesting deeper than \(JSON.maxDepth) levels") }
        switch b[i] {
        case UInt8(ascii: "{"):
            i += 1
            var o: [String: JSON] = [:]
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
            while true {
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                let keyStart = i
                let k = try string()
                if o[k] != nil { throw fail("duplicate key \"\(k)\"", at: keyStart) }
                skipSpace()
                guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':' after key") }
                i += 1
                skipSpace()
                o[k] = try value(depth: depth + 1)
                skipSpace()
                guard i < b.count else { throw fail("unexpected end of input, expected ',' or '}'") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            i += 1
            var a: [JSON] = []
            skipSpace()
            if i < b.count, b[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            while true {
                skipSpace()
                a.append(try value(depth: depth + 1))
                skipSpace()
                guard i < b.count else { throw fail("unexpected end of input, expected ',' or ']'") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try number()
        default:
            throw fail("unexpected character '\(String(decoding: [b[i]], as: UTF8.self))', expected a value")
        }
    }

    /// Like `value` but builds nothing: the fast first pass over a large batch.
    package mutating func skip(depth: Int) throws(JSONParseError) {
        guard i < b.count else { throw fail("unexpected end of input, expected a value") }
        if depth > JSON.maxDepth { throw fail("nesting deeper than \(JSON.maxDepth) levels") }
        switch b[i] {
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            let object = b[i] == UInt8(ascii: "{")
            let close = object ? UInt8(ascii: "}") : UInt8(ascii: "]")
            i += 1
            skipSpace()
            if i < b.count, b[i] == close { i += 1; return }
            while true {
                skipSpace()
                if object {
                    guard i < b.count, b[i] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
                    try skipString()
                    skipSpace()
                    guard i < b.count, b[i] == UInt8(ascii: ":") else { throw fail("expected ':' after key") }
                    i += 1
                    skipSpace()
                }
                try skip(depth: depth + 1)
                skipSpace()
                guard i < b.count else { throw fail("unexpected end of input, expected ',' or '\(object ? "}" : "]")'") }
                if b[i] == UInt8(ascii: ",") { i += 1; continue }
                if b[i] == close { i += 1; return }
                throw fail("expected ',' or '\(object ? "}" : "]")'")
            }
        case UInt8(ascii: "\""): try skipString()
        default: _ = try value(depth: depth)
        }
    }

    package mutating func skipString() throws(JSONParseError) {
        let start = i
        i += 1
        var ascii = true
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw fail("control character in string (escape it)") }
            if c >= 0x80 { ascii = false }
            if c == UInt8(ascii: "\\") {
                // Escapes are rare: let the full string reader check them.
                i = start
                _ = try string()
                return
            }
            i += 1
        }
        guard i < b.count else { throw fail("unterminated string") }
        if !ascii { _ = try validUTF8(start + 1, i, ascii: false) }
        i += 1
    }

    package mutating func literal(_ word: String) throws(JSONParseError) {
        let start = i
        for c in word.utf8 {
            guard i < b.count, b[i] == c else { throw fail("invalid literal, expected '\(word)'", at: start) }
            i += 1
        }
    }

    package mutating func number() throws(JSONParseError) -> JSON {
        let start = i
        var isInt = true
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count, b[i] >= 48, b[i] <= 57 else { throw fail("invalid number") }
        if b[i] == 48 { i += 1 } else { while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 } }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            isInt = false
            i += 1
            guard i < b.count, b[i] >= 48, b[i] <= 57 else { throw fail("invalid number: digits expected after '.'") }
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
        }
        if i < b.count, b[i] == UInt8(ascii: "e") || b[i] == UInt8(ascii: "E") {
            isInt = false
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard i < b.count, b[i] >= 48, b[i] <= 57 else { throw fail("invalid number: digits expected in exponent") }
            while i < b.count, b[i] >= 48, b[i] <= 57 { i += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        if isInt, let v = Int64(text) { return .int(v) }
        guard let d = Double(text), d.isFinite else { throw fail("number out of range", at: start) }
        return .double(d)
    }

    package mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard i + 4 <= b.count else { throw fail("invalid \\u escape") }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 48...57: d = UInt32(c - 48)
            case 65...70: d = UInt32(c - 55)
            case 97...102: d = UInt32(c - 87)
            default: throw fail("invalid \\u escape")
            }
            v = v * 16 + d
            i += 1
        }
        return v
    }

    package mutating func string() throws(JSONParseError) -> String {
        i += 1  // opening quote
        let start = i
        // Fast path: no escapes. Whether every byte is ASCII is gathered in the same loop (an ASCII run needs no
        // second pass to validate). Eight bytes at a time while none of them ends the run (as in
        // `JSON.firstByteToEscape`: a false hit only hands the word to the byte loop below, which decides).
        var high: UInt8 = 0
        if let base = b.baseAddress {
            var highs64: UInt64 = 0
            while i + 8 <= b.count {
                let x = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
                if JSON.mayEndStringRun(x) { break }
                highs64 |= x & 0x8080_8080_8080_8080
                i += 8
            }
            if highs64 != 0 { high = 0x80 }
        }
        while i < b.count {
            let c = b[i]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
            high |= c
            i += 1
        }
        if i < b.count, b[i] == UInt8(ascii: "\"") {
            let s = try validUTF8(start, i, ascii: high < 0x80)
            i += 1
            return s
        }
        var out = Array(UnsafeBufferPointer(rebasing: b[start..<i]))
        while true {
            guard i < b.count else { throw fail("unterminated string") }
            let c = b[i]
            if c == UInt8(ascii: "\"") { i += 1; break }
            if c < 0x20 { throw fail("control character in string (escape it)") }
            if c != UInt8(ascii: "\\") { out.append(c); i += 1; continue }
            i += 1
            guard i < b.count else { throw fail("unterminated string") }
            let e = b[i]
            i += 1
            switch e {
            case UInt8(ascii: "\""): out.append(34)
            case UInt8(ascii: "\\"): out.append(92)
            case UInt8(ascii: "/"): out.append(47)
            case UInt8(ascii: "b"): out.append(8)
            case UInt8(ascii: "f"): out.append(12)
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if scalar >= 0xD800 && scalar < 0xDC00 {
                    guard i + 1 < b.count, b[i] == 92, b[i + 1] == UInt8(ascii: "u") else {
                        throw fail("unpaired surrogate in \\u escape")
                    }
                    i += 2
                    let low = try hex4()
                    guard low >= 0xDC00 && low < 0xE000 else { throw fail("unpaired surrogate in \\u escape") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if scalar >= 0xDC00 && scalar < 0xE000 {
                    throw fail("unpaired surrogate in \\u escape")
                }
                guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape") }
                out.append(contentsOf: Array(String(Character(u)).utf8))
            default:
                throw fail("invalid escape '\\\(String(decoding: [e], as: UTF8.self))'")
            }
        }
        guard let s = String(validating: out, as: UTF8.self) else { throw fail("invalid UTF-8 in string", at: start) }
        return s
    }

    /// The string of bytes `from..<to`; `ascii` says the caller saw no byte ≥ 0x80 there, so only the others are
    /// validated (the refusal names where the bad bytes start).
    package func validUTF8(_ from: Int, _ to: Int, ascii: Bool) throws(JSONParseError) -> String {
        let slice = UnsafeBufferPointer(rebasing: b[from..<to])
        if ascii { return String(decoding: slice, as: UTF8.self) }
        guard let s = String(validating: slice, as: UTF8.self) else { throw fail("invalid UTF-8 in string", at: from) }
        return s
    }
}
