import Foundation
import CKModel

/// Writes log lines straight to bytes, in the same key order as `JSON.serialized()`, without building a
/// JSON tree: saves of many records are dominated by this.
extension LogEntry {
    package func write(into out: inout [UInt8], batch: Int?) {
        switch self {
        case .delete:
            var json = self.json
            if let batch, case .object(var o) = json { o["batch"] = .int(Int64(batch)); json = .object(o) }
            json.write(into: &out, indent: nil, level: 0)
        case .save(let seq, let r):
            LogEntry.literal(#"{"seq":"#, &out)
            LogEntry.appendDecimal(seq, into: &out)
            LogEntry.literal(#","op":"save""#, &out)
            if let batch {
                LogEntry.literal(#","batch":"#, &out)
                LogEntry.appendDecimal(Int64(batch), into: &out)
            }
            LogEntry.literal(#","record":"#, &out)
            r.write(into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// Appends a literal's bytes at once (appending a `String`'s UTF-8 view goes through generic code, about 170
    /// instructions a call).
    package static func literal(_ s: StaticString, _ out: inout [UInt8]) {
        s.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    /// Appends `v` in decimal, as `String(v)` spells it, without making the string (a log line has several).
    package static func appendDecimal(_ v: Int64, into out: inout [UInt8]) {
        if v < 0 { out.append(UInt8(ascii: "-")) }
        var m = v.magnitude
        // 20 digits hold UInt64.max; filled from the end.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { buf in
            var k = buf.count
            repeat {
                k -= 1
                buf[k] = UInt8(truncatingIfNeeded: m % 10) &+ UInt8(ascii: "0")
                m /= 10
            } while m > 0
            out.append(contentsOf: UnsafeRawBufferPointer(rebasing: buf[k...]))
        }
    }
}

extension Record {
    /// The record dictionary as the log stores it: `json().serialized()`'s shape, field names in plain byte order
    /// (the JSON writer puts a few keys such as `type` and `value` first, so those records differ from it).
    package func write(into out: inout [UInt8]) {
        func key(_ k: String) { JSON.writeString(k, into: &out); out.append(UInt8(ascii: ":")) }
        LogEntry.literal(#"{"recordName":"#, &out)
        JSON.writeString(recordName, into: &out)
        LogEntry.literal(#","recordType":"#, &out)
        JSON.writeString(recordType, into: &out)
        LogEntry.literal(#","recordChangeTag":"#, &out)
        JSON.writeString(changeTag, into: &out)
        LogEntry.literal(#","deleted":false,"fields":{"#, &out)
        var first = true
        // Byte order on the keys' contiguous bytes (the generic UTF-8 walk cost more than the rest of the sort).
        for (k, v) in fields.sorted(by: { JSON.bytesPrecede($0.key, $1.key) }) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            key(k)
            if v.isEncrypted { v.fieldJSON.write(into: &out, indent: nil, level: 0); continue }
            LogEntry.literal(#"{"value":"#, &out)
            v.writeValue(into: &out)
            switch v.type.isList ? nil : v.type.base {
            // The usual types' endings as one literal each.
            case .string?: LogEntry.literal(#","type":"STRING"}"#, &out)
            case .int64?: LogEntry.literal(#","type":"INT64"}"#, &out)
            case .double?: LogEntry.literal(#","type":"DOUBLE"}"#, &out)
            case .timestamp?: LogEntry.literal(#","type":"TIMESTAMP"}"#, &out)
            default:
                LogEntry.literal(#","type":"#, &out)
                JSON.writeString(v.type.wsName, into: &out)
                out.append(UInt8(ascii: "}"))
            }
        }
        LogEntry.literal(#"},"created":"#, &out)
        created.write(into: &out)
        LogEntry.literal(#","modified":"#, &out)
        modified.write(into: &out)
        // As zoneID.json writes it (JSON.orderedKeys' order).
        LogEntry.literal(#","zoneID":{"zoneName":"#, &out)
        JSON.writeString(zoneID.zoneName, into: &out)
        LogEntry.literal(#","ownerRecordName":"#, &out)
        JSON.writeString(zoneID.ownerRecordName, into: &out)
        LogEntry.literal(zoneID.isDefault ? #","zoneType":"DEFAULT_ZONE"}"# : #","zoneType":"REGULAR_CUSTOM_ZONE"}"#, &out)
        if let parent {
            out.append(UInt8(ascii: ",")); key("parent")
            Record.parentJSON(parent).write(into: &out, indent: nil, level: 0)
        }
        // Sharing keys are rare: written generically (the fast reader then hands the line to the generic one).
        if share != nil || shortGUID != nil || shareInfo != nil {
            var o: [String: JSON] = [:]
            addShareKeys(&o)
            for k in o.keys.sorted() {
                if let v = o[k] { out.append(UInt8(ascii: ",")); key(k); v.write(into: &out, indent: nil, level: 0) }
            }
        }
        out.append(UInt8(ascii: "}"))
    }
}

extension RecordStamp {
    package func write(into out: inout [UInt8]) {
        LogEntry.literal(#"{"deviceID":"#, &out)
        JSON.writeString(deviceID, into: &out)
        LogEntry.literal(#","timestamp":"#, &out)
        LogEntry.appendDecimal(timestamp, into: &out)
        LogEntry.literal(#","userRecordName":"#, &out)
        JSON.writeString(userRecordName, into: &out)
        out.append(UInt8(ascii: "}"))
    }
}

extension FieldValue {
    package func writeValue(into out: inout [UInt8]) {
        switch self {
        case .string(let s): JSON.writeString(s, into: &out)
        case .int64(let i), .timestamp(let i): LogEntry.appendDecimal(i, into: &out)
        case .double(let d): out.append(contentsOf: JSON.format(double: d).utf8)
        case .list(_, let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.writeValue(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        default: valueJSON.write(into: &out, indent: nil, level: 0)
        }
    }
}
