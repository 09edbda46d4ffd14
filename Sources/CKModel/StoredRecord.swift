#if canImport(Glibc)
import Glibc
#endif

/// A saved record's dictionary as its log line holds it, checked to be byte for byte what decoding it into a
/// `Record` and writing `json().serialized()` would give: a change feed writes it out without building either
/// (docs/performance.md, "Change feeds from the log's bytes"). Positions are indices into `bytes`.
package struct StoredRecord {
    /// The record dictionary, `{"recordName":…}`.
    package let bytes: ArraySlice<UInt8>
    /// The bodies (between the quotes) of the name, type, change tag and zone name strings, still JSON-escaped.
    package let name: Range<Int>
    package let type: Range<Int>
    package let tag: Range<Int>
    package let zoneName: Range<Int>
    /// The user fields' text between the braces of `"fields":{…}`, in the order they are stored (byte order of
    /// their names, which is also `String` order: only ASCII names pass). `forEachField` walks it.
    package let fields: Range<Int>
    /// The fields of the types the scan decoded to check them (not a string, an INT64, a TIMESTAMP or a list of
    /// one), in stored order: empty for most records, so a scan allocates nothing for them.
    package let decoded: [Decoded]

    /// A field value the scan decoded: where its `{"value":…}` dictionary is, and what it holds.
    package struct Decoded {
        package let field: Range<Int>
        package let value: FieldValue
    }

    /// The log line's sequence number and its record, when `line` is a save written as ck writes it and every
    /// value in it reads back to the same bytes; nil for anything else (a deletion, a hand edit, assets, sharing
    /// keys, a field name the JSON writer ranks), which the caller decodes the usual way.
    package static func scan(line: ArraySlice<UInt8>) -> (seq: Int64, record: StoredRecord)? {
        line.withUnsafeBufferPointer { buf -> (seq: Int64, record: StoredRecord)? in
            var s = StoredRecordScanner(p: JSONParser(buf))
            guard let seq = try? s.line(), s.p.i == buf.count else { return nil }
            // Positions from the scan are offsets into the buffer; the slice's own indices start elsewhere.
            let base = line.startIndex
            func shift(_ x: Range<Int>) -> Range<Int> { x.lowerBound + base..<x.upperBound + base }
            let decoded = s.decoded.isEmpty ? [] : s.decoded.map { Decoded(field: shift($0.field), value: $0.value) }
            return (seq, StoredRecord(bytes: line[shift(s.bytes)], name: shift(s.name), type: shift(s.type), tag: shift(s.tag),
                                      zoneName: shift(s.zoneName), fields: shift(s.fields), decoded: decoded))
        }
    }

    /// A string body (`name`, …) with its JSON escapes undone, as the decoded record holds it.
    package func string(_ body: Range<Int>) -> String {
        // Most have no escape: taken as they are.
        if ByteSearch.first(UInt8(ascii: "\\"), in: bytes[body], from: body.lowerBound) == nil {
            return String(decoding: bytes[body], as: UTF8.self)
        }
        var out: [UInt8] = []
        StoredRecord.unescape(bytes[body], into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the text a canonical JSON string body stands for (the only escapes in it are those
    /// `JSON.writeString` writes).
    package static func unescape(_ body: ArraySlice<UInt8>, into out: inout [UInt8]) {
        // Most strings have no escape: copied whole.
        if ByteSearch.first(UInt8(ascii: "\\"), in: body, from: body.startIndex) == nil { out += body; return }
        var i = body.startIndex
        var run = i
        while i < body.endIndex {
            guard body[i] == UInt8(ascii: "\\") else { i += 1; continue }
            out += body[run..<i]
            switch body[i + 1] {
            case UInt8(ascii: "n"): out.append(0x0A); i += 2
            case UInt8(ascii: "r"): out.append(0x0D); i += 2
            case UInt8(ascii: "t"): out.append(0x09); i += 2
            case UInt8(ascii: "u"): out.append(StoredRecord.hex(body[i + 4]) << 4 | StoredRecord.hex(body[i + 5])); i += 6
            default: out.append(body[i + 1]); i += 2 // \" and \\
            }
            run = i
        }
        out += body[run..<body.endIndex]
    }

    /// A lowercase hex digit's value (the scan let no other through).
    static func hex(_ c: UInt8) -> UInt8 { c >= UInt8(ascii: "a") ? c - UInt8(ascii: "a") + 10 : c - UInt8(ascii: "0") }
}

/// Thrown inside the scan when a line is not in the shape the stored bytes can stand in for the record.
private struct NotStored: Error {}

/// The scan behind `StoredRecord.scan`: the exact shape `LogEntry.write(into:batch:)` writes, with every string
/// canonical (only `JSON.writeString`'s escapes, valid UTF-8), every integer canonical and every value of another
/// type decoded and written again to the same bytes. It keeps only what output needs: where the record, its
/// four names and its fields are (each field is found again by `StoredRecord.forEachField`).
private struct StoredRecordScanner {
    var p: JSONParser
    var bytes = 0..<0
    var name = 0..<0
    var type = 0..<0
    var tag = 0..<0
    var zoneName = 0..<0
    var fields = 0..<0
    var decoded: [StoredRecord.Decoded] = []

    init(p: JSONParser) { self.p = p }

    mutating func accept(_ text: StaticString) -> Bool { p.accept(text) }

    mutating func expect(_ text: StaticString) throws(NotStored) {
        guard accept(text) else { throw NotStored() }
    }

    /// The line; returns its sequence number.
    mutating func line() throws(NotStored) -> Int64 {
        try expect(#"{"seq":"#)
        let seq = try int()
        try expect(#","op":"save""#)
        if accept(#","batch":"#) { _ = try int() }
        try expect(#","record":"#)
        try record()
        try expect("}")
        return seq
    }

    mutating func record() throws(NotStored) {
        let start = p.i
        try expect(#"{"recordName":"#)
        name = try string()
        try expect(#","recordType":"#)
        type = try string()
        try expect(#","recordChangeTag":"#)
        tag = try string()
        try expect(#","deleted":false,"fields":{"#)
        let fieldsStart = p.i
        if !accept("}") {
            var previous: Range<Int>? = nil
            repeat {
                let key = try fieldName()
                if let previous, !p.b[previous].lexicographicallyPrecedes(p.b[key]) { throw NotStored() }
                previous = key
                try expect(":")
                try field()
            } while accept(",")
            try expect("}")
        }
        fields = fieldsStart..<p.i - 1
        try expect(#","created":"#)
        try stamp()
        try expect(#","modified":"#)
        try stamp()
        try expect(#","zoneID":{"zoneName":"#)
        zoneName = try string()
        try expect(#","ownerRecordName":"#)
        _ = try string()
        // The zone type is not stored in the record: it is written from the zone's name.
        let isDefault = p.b[zoneName].elementsEqual(Names.defaultZoneName.utf8)
        try expect(isDefault ? #","zoneType":"DEFAULT_ZONE"}"# : #","zoneType":"REGULAR_CUSTOM_ZONE"}"#)
        if accept(#","parent":{"recordName":"#) {
            _ = try string()
            try expect("}")
        }
        try expect("}")
        bytes = start..<p.i
    }

    mutating func stamp() throws(NotStored) {
        try expect(#"{"deviceID":"#)
        _ = try string()
        try expect(#","timestamp":"#)
        _ = try int()
        try expect(#","userRecordName":"#)
        _ = try string()
        try expect("}")
    }

    /// A field name of ASCII letters, digits and underscores that the JSON writer does not rank ahead of the
    /// others (`JSON.keyOrder`): only then is the stored byte order the order a record's JSON is written in.
    mutating func fieldName() throws(NotStored) -> Range<Int> {
        guard p.i < p.b.count, p.b[p.i] == UInt8(ascii: "\"") else { throw NotStored() }
        var j = p.i + 1
        while j < p.b.count {
            let c = p.b[j]
            let ok = (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "_")
            guard ok else { break }
            j += 1
        }
        guard j < p.b.count, p.b[j] == UInt8(ascii: "\""), j > p.i + 1 else { throw NotStored() }
        let key = p.i + 1..<j
        // Compared as bytes: a String and a dictionary lookup per field cost more than the rest of its scan.
        if key.count <= 16 {
            let (w0, w1) = StoredRecordScanner.words(UnsafeBufferPointer(rebasing: p.b[key]))
            for k in StoredRecordScanner.rankedKeys where k.w0 == w0 && k.w1 == w1 && k.count == key.count { throw NotStored() }
        } else {
            let name = UnsafeBufferPointer(rebasing: p.b[key])
            for k in StoredRecordScanner.longRankedKeys where k.elementsEqual(name) { throw NotStored() }
        }
        p.i = j + 1
        return key
    }

    /// A string written by `JSON.writeString`: returns its body. Anything it would not write (another escape,
    /// a raw control byte, bad UTF-8) refuses the line.
    mutating func string() throws(NotStored) -> Range<Int> {
        guard p.i < p.b.count, p.b[p.i] == UInt8(ascii: "\"") else { throw NotStored() }
        let start = p.i + 1
        var j = start
        let b = p.b
        if let base = b.baseAddress {
            // Eight bytes at a time while none is a quote, a backslash, a control byte or non-ASCII (most text).
            let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
            while j + 8 <= b.count {
                let x = UnsafeRawPointer(base + j).loadUnaligned(as: UInt64.self)
                let quote = x ^ (ones &* 0x22), slash = x ^ (ones &* 0x5C)
                let special = ((quote &- ones) & ~quote) | ((slash &- ones) & ~slash) | (x &- ones &* 0x20) | x
                if special & highs != 0 { break }
                j += 8
            }
        }
        while j < b.count {
            let c = b[j]
            if c == UInt8(ascii: "\"") { break }
            if c < 0x20 { throw NotStored() }
            if c == UInt8(ascii: "\\") {
                guard j + 1 < b.count else { throw NotStored() }
                switch b[j + 1] {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"): j += 2
                case UInt8(ascii: "u"):
                    // Only \u00XX, lowercase, for a control byte the short escapes don't cover.
                    guard j + 5 < b.count, b[j + 2] == 48, b[j + 3] == 48, b[j + 4] == 48 || b[j + 4] == 49,
                          StoredRecordScanner.isLowerHex(b[j + 5]) else { throw NotStored() }
                    let v = (b[j + 4] - 48) << 4 | StoredRecord.hex(b[j + 5])
                    if v == 0x0A || v == 0x0D || v == 0x09 { throw NotStored() }
                    j += 6
                default: throw NotStored()
                }
                continue
            }
            if c >= 0x80 { j = try utf8(at: j); continue }
            j += 1
        }
        guard j < b.count else { throw NotStored() }
        p.i = j + 1
        return start..<j
    }

    /// The keys `JSON.keyOrder` ranks, up to 16 bytes long, as two words of their bytes and their length: a field
    /// name is compared with them as two integers, not byte by byte.
    static let rankedKeys: [(w0: UInt64, w1: UInt64, count: Int)] = JSON.keyOrder.keys.filter { $0.utf8.count <= 16 }.map { k in
        let bytes = Array(k.utf8)
        let (w0, w1) = bytes.withUnsafeBufferPointer { words($0) }
        return (w0, w1, bytes.count)
    }

    /// The ranked keys longer than `words` holds (none today), compared whole.
    static let longRankedKeys: [[UInt8]] = JSON.keyOrder.keys.filter { $0.utf8.count > 16 }.map { Array($0.utf8) }

    /// Up to 16 bytes as two little-endian words, zero past the end.
    static func words(_ b: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64) {
        var w0: UInt64 = 0, w1: UInt64 = 0
        for (i, c) in b.prefix(16).enumerated() {
            if i < 8 { w0 |= UInt64(c) << (8 * i) } else { w1 |= UInt64(c) << (8 * (i - 8)) }
        }
        return (w0, w1)
    }

    static func isLowerHex(_ c: UInt8) -> Bool { (c >= 48 && c <= 57) || (c >= 0x61 && c <= 0x66) }

    /// Steps over one well-formed UTF-8 sequence (no overlong forms, no surrogates, nothing past U+10FFFF):
    /// decoding replaces anything else, so the bytes would not come back.
    func utf8(at j: Int) throws(NotStored) -> Int {
        let b = p.b
        let c = b[j]
        let n: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: n = 2
        case 0xE0: n = 3; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: n = 3
        case 0xED: n = 3; hi = 0x9F
        case 0xF0: n = 4; lo = 0x90
        case 0xF1...0xF3: n = 4
        case 0xF4: n = 4; hi = 0x8F
        default: throw NotStored()
        }
        guard j + n <= b.count, b[j + 1] >= lo, b[j + 1] <= hi else { throw NotStored() }
        for k in 2..<n {
            guard b[j + k] >= 0x80, b[j + k] <= 0xBF else { throw NotStored() }
        }
        return j + n
    }

    /// An integer as `String(Int64)` writes it, up to 18 digits.
    mutating func int() throws(NotStored) -> Int64 {
        let b = p.b
        guard p.i < b.count else { throw NotStored() }
        let negative = b[p.i] == UInt8(ascii: "-")
        let digits = p.i + (negative ? 1 : 0)
        var j = digits
        var v: Int64 = 0
        while j < b.count, b[j] >= 48, b[j] <= 57, j - digits < 18 {
            v = v * 10 + Int64(b[j] - 48)
            j += 1
        }
        let n = j - digits
        let next = j < b.count ? b[j] : 0
        guard n > 0, !(next >= 48 && next <= 57), next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E"),
              n == 1 || b[digits] != 48, !(negative && v == 0) else { throw NotStored() }
        p.i = j
        return negative ? -v : v
    }

    /// `{"value":…,"type":"…"}` of a string, INT64, TIMESTAMP (in range) or a list of one of them, checked in place;
    /// any other field is decoded as the log reader decodes it and kept only if writing it again gives the same
    /// bytes.
    mutating func field() throws(NotStored) {
        let start = p.i
        try expect(#"{"value":"#)
        if p.i < p.b.count {
            let c = p.b[p.i]
            if c == UInt8(ascii: "\"") {
                if (try? string()) != nil, accept(#","type":"STRING"}"#) { return }
            } else if c == UInt8(ascii: "[") {
                if (try? commonList()) == true { return }
            } else if c == UInt8(ascii: "-") || (c >= 48 && c <= 57) {
                // The number's type is named after it.
                if let t = try? int() {
                    if accept(#","type":"INT64"}"#) { return }
                    if ISO8601.validRange.contains(t), accept(#","type":"TIMESTAMP"}"#) { return }
                }
            }
        }
        p.i = start
        try decodedField()
    }

    /// A list of strings or integers through its type name and the field's closing brace, in one pass: true when
    /// the type is STRING_LIST, INT64_LIST or TIMESTAMP_LIST and every item is of it (timestamps in range).
    mutating func commonList() throws(NotStored) -> Bool {
        p.i += 1
        var strings = 0, ints = 0, inRange = true
        if !accept("]") {
            repeat {
                guard p.i < p.b.count else { throw NotStored() }
                if p.b[p.i] == UInt8(ascii: "\"") {
                    _ = try string()
                    strings += 1
                } else {
                    let v = try int()
                    ints += 1
                    if !ISO8601.validRange.contains(v) { inRange = false }
                }
            } while accept(",")
            try expect("]")
        }
        if accept(#","type":"STRING_LIST"}"#) { return ints == 0 }
        if accept(#","type":"INT64_LIST"}"#) { return strings == 0 }
        if accept(#","type":"TIMESTAMP_LIST"}"#) { return strings == 0 && inRange }
        return false
    }

    /// Any other field: decoded as `LogLineReader.field()` decodes it (through `FieldValue.from(fieldJSON:)`), and
    /// kept when its `fieldJSON` serialized is these bytes. Assets are refused: a change feed adds their download
    /// URLs, which the stored bytes don't have.
    mutating func decodedField() throws(NotStored) {
        let start = p.i
        let json: JSON
        do { json = try p.value(depth: 4) } catch { throw NotStored() }
        guard let v = try? FieldValue.from(fieldJSON: json, declared: nil, path: ""), v.type.base != .asset else { throw NotStored() }
        var again: [UInt8] = []
        v.fieldJSON.write(into: &again, indent: nil, level: 0)
        guard UnsafeBufferPointer(rebasing: p.b[start..<p.i]).elementsEqual(again) else { throw NotStored() }
        decoded.append(StoredRecord.Decoded(field: start..<p.i, value: v))
    }
}
