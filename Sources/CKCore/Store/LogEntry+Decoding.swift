#if canImport(Glibc)
import Glibc
#endif

/// Reads log lines straight into `LogEntry`/`Record` from their bytes, for the exact shape `write(into:batch:)`
/// writes: building a generic `JSON` tree of dictionaries first dominated fetch and query.
extension LogEntry {
    /// Decodes a line (without its newline) and its `batch` count straight from the bytes; nil when the line is
    /// not exactly in the shape ck writes (another key order, white space, unknown keys, a bad value), which the
    /// caller then reads with the generic parser and `LogEntry(json:path:)`, so results and errors stay theirs.
    static func decode(line: ArraySlice<UInt8>) -> (entry: LogEntry, batch: Int64?)? {
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
    var p: JSONParser

    mutating func expect(_ text: StaticString) throws(NotFastShape) {
        guard accept(text) else { throw NotFastShape() }
    }

    /// Consumes `text` if it comes next.
    mutating func accept(_ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard p.i + n <= p.b.count, let base = p.b.baseAddress else { return false }
        // One memcmp: a line is mostly the fixed keys this compares.
        guard memcmp(base + p.i, text.utf8Start, n) == 0 else { return false }
        p.i += n
        return true
    }

    mutating func string() throws(NotFastShape) -> String {
        guard p.i < p.b.count, p.b[p.i] == UInt8(ascii: "\"") else { throw NotFastShape() }
        do { return try p.string() } catch { throw NotFastShape() }
    }

    mutating func int() throws(NotFastShape) -> Int64 {
        guard p.i < p.b.count else { throw NotFastShape() }
        let c = p.b[p.i]
        guard c == UInt8(ascii: "-") || (c >= 48 && c <= 57) else { throw NotFastShape() }
        guard case .int(let v)? = try? p.number() else { throw NotFastShape() }
        return v
    }

    mutating func value() throws(NotFastShape) -> JSON {
        // The depth at which the generic parser meets a field value, so both refuse the same nesting.
        do { return try p.value(depth: 4) } catch { throw NotFastShape() }
    }

    mutating func entry() throws(NotFastShape) -> (entry: LogEntry, batch: Int64?) {
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

    mutating func record() throws(NotFastShape) -> Record {
        try expect(#"{"recordName":"#)
        let name = try string()
        try expect(#","recordType":"#)
        let type = try string()
        try expect(#","recordChangeTag":"#)
        let tag = try string()
        try expect(#","deleted":false,"fields":{"#)
        var fields: [String: FieldValue] = [:]
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
        _ = try string()
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

    mutating func stamp() throws(NotFastShape) -> RecordStamp {
        try expect(#"{"deviceID":"#)
        let device = try string()
        try expect(#","timestamp":"#)
        let t = try int()
        try expect(#","userRecordName":"#)
        let user = try string()
        try expect("}")
        return RecordStamp(timestamp: t, userRecordName: user, deviceID: device)
    }

    /// A field dictionary `{"value":…,"type":"…"[,"isEncrypted":true]}`; nil for a null value (no field),
    /// as `FieldValue.from(fieldJSON:)` reads it.
    mutating func field() throws(NotFastShape) -> FieldValue? {
        try expect(#"{"value":"#)
        let v = try value()
        try expect(#","type":"#)
        let typeName = try string()
        let encrypted = accept(#","isEncrypted":true"#)
        try expect("}")
        guard !v.isNull else { return nil }
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
