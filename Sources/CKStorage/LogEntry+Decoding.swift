#if canImport(Glibc)
import Glibc
import CKModel
#endif

/// Reads log lines straight into `LogEntry`/`Record` from their bytes, for the exact shape `write(into:batch:)`
/// writes: building a generic `JSON` tree of dictionaries first dominated fetch and query.
extension LogEntry {
    /// Decodes a line (without its newline) and its `batch` count straight from the bytes; nil when the line is
    /// not exactly in the shape ck writes (another key order, white space, unknown keys, a bad value), which the
    /// caller then reads with the generic parser and `LogEntry(json:path:)`, so results and errors stay theirs.
    package static func decode(line: ArraySlice<UInt8>) -> (entry: LogEntry, batch: Int64?)? {
        line.withUnsafeBufferPointer { buf in
            var r = LogLineReader(p: JSONParser(buf))
            do {
                let result = try r.entry()
                return r.p.i == buf.count ? result : nil
            } catch {
                return nil
            }
        }
    }
}

/// Thrown inside the fast reader when a line has a shape it does not handle; the caller falls back.
private struct NotFastShape: Error {}

/// A scanner over one log line that expects keys in the order ck writes them, and no white space.
private struct LogLineReader {
    package var p: JSONParser

    package mutating func expect(_ text: StaticString) throws(NotFastShape) {
        guard accept(text) else { throw NotFastShape() }
    }

    /// The last long plain string read: a line repeats its owner's record name (creator, modifier, zone
    /// owner), so it is made once.
    package var recent: String? = nil

    /// Consumes `text` if it comes next.
    package mutating func accept(_ text: StaticString) -> Bool { p.accept(text) }

    package mutating func string() throws(NotFastShape) -> String {
        guard p.i < p.b.count, p.b[p.i] == UInt8(ascii: "\""), let base = p.b.baseAddress else { throw NotFastShape() }
        // One pass to the closing quote; a string with escapes, control or non-ASCII bytes goes the generic way.
        let start = p.i + 1
        var j = start
        var ascii = true
        while j < p.b.count {
            let c = p.b[j]
            if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") || c < 0x20 { break }
            if c >= 0x80 { ascii = false }
            j += 1
        }
        guard ascii, j < p.b.count, p.b[j] == UInt8(ascii: "\"") else {
            do { return try p.string() } catch { throw NotFastShape() }
        }
        let n = j - start
        p.i = j + 1
        if let r = recent, r.utf8.count == n,
           r.utf8.withContiguousStorageIfAvailable({ u in u.baseAddress.map { memcmp(base + start, $0, n) == 0 } ?? false }) == true {
            return r
        }
        let s = String(decoding: UnsafeBufferPointer(rebasing: p.b[start..<j]), as: UTF8.self)
        // Small strings (up to 15 bytes) are stored inline and cost little to make again.
        if n > 15 { recent = s }
        return s
    }

    /// Steps over a string that is not kept (checked as `string()` checks it).
    package mutating func skipString() throws(NotFastShape) {
        guard p.i < p.b.count, p.b[p.i] == UInt8(ascii: "\"") else { throw NotFastShape() }
        do { try p.skipString() } catch { throw NotFastShape() }
    }

    package mutating func int() throws(NotFastShape) -> Int64 {
        guard p.i < p.b.count else { throw NotFastShape() }
        let c = p.b[p.i]
        guard c == UInt8(ascii: "-") || (c >= 48 && c <= 57) else { throw NotFastShape() }
        if let v = plainInt() { return v }
        guard case .int(let v)? = try? p.number() else { throw NotFastShape() }
        return v
    }

    /// An integer of up to 18 digits (any of them fits an Int64), read without the generic reader's string of
    /// the number; nil (nothing consumed) for anything else: more digits, a fraction, an exponent, a bad number.
    package mutating func plainInt() -> Int64? {
        guard p.i < p.b.count else { return nil }
        let negative = p.b[p.i] == UInt8(ascii: "-")
        let digitsStart = p.i + (negative ? 1 : 0)
        var j = digitsStart
        var v: Int64 = 0
        while j < p.b.count, p.b[j] >= 48, p.b[j] <= 57, j - digitsStart < 18 {
            v = v * 10 + Int64(p.b[j] - 48)
            j += 1
        }
        let n = j - digitsStart
        let next = j < p.b.count ? p.b[j] : 0
        guard n > 0, !(next >= 48 && next <= 57), next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E"),
              n == 1 || p.b[digitsStart] != 48 else { return nil }
        p.i = j
        return negative ? -v : v
    }

    /// A field's value as the generic reader reads it: strings, integers and flat lists of them directly,
    /// anything else (or any other spelling, white space included) by the generic reader from the same byte.
    package mutating func value() throws(NotFastShape) -> JSON {
        guard p.i < p.b.count else { throw NotFastShape() }
        let start = p.i
        let c = p.b[p.i]
        if c == UInt8(ascii: "\"") { return .string(try string()) }
        if c == UInt8(ascii: "-") || (c >= 48 && c <= 57), let v = plainInt() { return .int(v) }
        if c == UInt8(ascii: "[") {
            p.i += 1
            var items: [JSON] = []
            if accept("]") { return .array(items) }
            while p.i < p.b.count {
                let d = p.b[p.i]
                if d == UInt8(ascii: "\"") {
                    items.append(.string(try string()))
                } else if d == UInt8(ascii: "-") || (d >= 48 && d <= 57), let v = plainInt() {
                    items.append(.int(v))
                } else {
                    break
                }
                if accept(",") { continue }
                if accept("]") { return .array(items) }
                break
            }
            p.i = start
        }
        // The depth at which the generic parser meets a field value, so both refuse the same nesting.
        do { return try p.value(depth: 4) } catch { throw NotFastShape() }
    }

    package mutating func entry() throws(NotFastShape) -> (entry: LogEntry, batch: Int64?) {
        try expect(#"{"seq":"#)
        let seq = try int()
        if accept(#","op":"save""#) {
            let batch: Int64? = accept(#","batch":"#) ? try int() : nil
            try expect(#","record":"#)
            let record = try self.record()
            try expect("}")
            return (.save(seq: seq, record: record), batch)
        }
        try expect(#","op":"delete""#)
        let batch: Int64? = accept(#","batch":"#) ? try int() : nil
        try expect(#","recordName":"#)
        let name = try string()
        try expect(#","recordType":"#)
        let type = try string()
        try expect(#","at":"#)
        let at = try int()
        let user: String? = accept(#","userRecordName":"#) ? try string() : nil
        try expect("}")
        return (.delete(seq: seq, recordName: name, recordType: type, at: at, userRecordName: user), batch)
    }

    package mutating func record() throws(NotFastShape) -> Record {
        try expect(#"{"recordName":"#)
        let name = try string()
        try expect(#","recordType":"#)
        let type = try string()
        try expect(#","recordChangeTag":"#)
        let tag = try string()
        try expect(#","deleted":false,"fields":{"#)
        var fields = [String: FieldValue](minimumCapacity: 8)
        var previous: String? = nil
        if !accept("}") {
            repeat {
                let key = try string()
                // ck writes field names sorted; anything else (a duplicate included) is a hand edit.
                if let previous, !previous.utf8.lexicographicallyPrecedes(key.utf8) { throw NotFastShape() }
                previous = key
                try expect(":")
                if let value = try field() { fields[key] = value }
            } while accept(",")
            try expect("}")
        }
        try expect(#","created":"#)
        let created = try stamp()
        try expect(#","modified":"#)
        let modified = try stamp()
        try expect(#","zoneID":{"zoneName":"#)
        let zone = try string()
        try expect(#","ownerRecordName":"#)
        let owner = try string()
        try expect(#","zoneType":"#)
        try skipString()
        try expect("}")
        var parent: String? = nil
        if accept(#","parent":{"recordName":"#) {
            parent = try string()
            try expect("}")
        }
        try expect("}")
        return Record(recordName: name, recordType: type, zoneID: ZoneID(zoneName: zone, ownerRecordName: owner),
                      changeTag: tag, fields: fields, created: created, modified: modified, parent: parent)
    }

    package mutating func stamp() throws(NotFastShape) -> RecordStamp {
        try expect(#"{"deviceID":"#)
        let device = try string()
        try expect(#","timestamp":"#)
        let t = try int()
        try expect(#","userRecordName":"#)
        let user = try string()
        try expect("}")
        return RecordStamp(timestamp: t, userRecordName: user, deviceID: device)
    }

    /// The common field types, read from their bytes (closing quote included, so `STRING` is not read from
    /// `STRING_LIST`); nil for any other name, which is then read as a string.
    package mutating func knownType() -> FieldType? {
        guard p.i + 1 < p.b.count, p.b[p.i] == UInt8(ascii: "\"") else { return nil }
        switch p.b[p.i + 1] {
        case UInt8(ascii: "S"):
            if accept(#""STRING""#) { return .string }
            if accept(#""STRING_LIST""#) { return FieldType(.string, list: true) }
        case UInt8(ascii: "I"):
            if accept(#""INT64""#) { return .int64 }
            if accept(#""INT64_LIST""#) { return FieldType(.int64, list: true) }
        case UInt8(ascii: "T"):
            if accept(#""TIMESTAMP""#) { return .timestamp }
            if accept(#""TIMESTAMP_LIST""#) { return FieldType(.timestamp, list: true) }
        case UInt8(ascii: "D"):
            if accept(#""DOUBLE""#) { return .double }
            if accept(#""DOUBLE_LIST""#) { return FieldType(.double, list: true) }
        default: break
        }
        return nil
    }

    /// A value of a common type in its usual JSON form, as `FieldValue.from(valueJSON:type:path:)` reads it;
    /// nil for anything else, which goes that generic way.
    package static func direct(_ v: JSON, _ type: FieldType) -> FieldValue? {
        guard type.isList else { return scalar(v, type.base) }
        guard case .array(let items) = v else { return nil }
        var out: [FieldValue] = []
        out.reserveCapacity(items.count)
        for item in items {
            guard let x = scalar(item, type.base) else { return nil }
            out.append(x)
        }
        return .list(type.base, out)
    }

    package static func scalar(_ v: JSON, _ base: FieldType.Base) -> FieldValue? {
        switch (base, v) {
        case (.string, .string(let s)): return .string(s)
        case (.int64, .int(let i)): return .int64(i)
        case (.double, .double(let d)): return .double(d)
        // The generic reader's range check compares doubles; for these bounds (exact as doubles) it is the same.
        case (.timestamp, .int(let i)) where ISO8601.validRange.contains(i): return .timestamp(i)
        default: return nil
        }
    }

    /// A field dictionary `{"value":…,"type":"…"[,"isEncrypted":true]}`; nil for a null value (no field),
    /// as `FieldValue.from(fieldJSON:)` reads it.
    package mutating func field() throws(NotFastShape) -> FieldValue? {
        try expect(#"{"value":"#)
        let v = try value()
        try expect(#","type":"#)
        let known = knownType()
        let typeName: String
        if let known { typeName = known.wsName } else { typeName = try string() }
        let encrypted = accept(#","isEncrypted":true"#)
        try expect("}")
        guard !v.isNull else { return nil }
        if !encrypted, let known, let direct = LogLineReader.direct(v, known) { return direct }
        do {
            // The rarer spellings take the generic route for the one field, with a small dictionary.
            if encrypted || typeName == "UNKNOWN_LIST" || FieldValue.encryptedBytesList(wsName: typeName) != nil {
                var o: [String: JSON] = ["value": v, "type": .string(typeName)]
                if encrypted { o["isEncrypted"] = .bool(true) }
                return try FieldValue.from(fieldJSON: .object(o), declared: nil, path: "")
            }
            guard let type = FieldType(name: typeName) else { throw NotFastShape() }
            return try FieldValue.from(valueJSON: v, type: type, path: "")
        } catch {
            throw NotFastShape()
        }
    }
}
