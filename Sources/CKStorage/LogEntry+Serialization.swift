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
            out.append(contentsOf: #"{"seq":"#.utf8)
            out.append(contentsOf: String(seq).utf8)
            out.append(contentsOf: #","op":"save""#.utf8)
            if let batch {
                out.append(contentsOf: #","batch":"#.utf8)
                out.append(contentsOf: String(batch).utf8)
            }
            out.append(contentsOf: #","record":"#.utf8)
            r.write(into: &out)
            out.append(UInt8(ascii: "}"))
        }
    }
}

extension Record {
    /// The record dictionary as the log stores it: `json().serialized()`'s shape, field names in plain byte order
    /// (the JSON writer puts a few keys such as `type` and `value` first, so those records differ from it).
    package func write(into out: inout [UInt8]) {
        func key(_ k: String) { JSON.writeString(k, into: &out); out.append(UInt8(ascii: ":")) }
        out.append(contentsOf: #"{"recordName":"#.utf8)
        JSON.writeString(recordName, into: &out)
        out.append(contentsOf: #","recordType":"#.utf8)
        JSON.writeString(recordType, into: &out)
        out.append(contentsOf: #","recordChangeTag":"#.utf8)
        JSON.writeString(changeTag, into: &out)
        out.append(contentsOf: #","deleted":false,"fields":{"#.utf8)
        var first = true
        for (k, v) in fields.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            key(k)
            if v.isEncrypted { v.fieldJSON.write(into: &out, indent: nil, level: 0); continue }
            out.append(contentsOf: #"{"value":"#.utf8)
            v.writeValue(into: &out)
            out.append(contentsOf: #","type":"#.utf8)
            JSON.writeString(v.type.wsName, into: &out)
            out.append(UInt8(ascii: "}"))
        }
        out.append(contentsOf: #"},"created":"#.utf8)
        created.write(into: &out)
        out.append(contentsOf: #","modified":"#.utf8)
        modified.write(into: &out)
        // As zoneID.json writes it (JSON.orderedKeys' order).
        out.append(contentsOf: #","zoneID":{"zoneName":"#.utf8)
        JSON.writeString(zoneID.zoneName, into: &out)
        out.append(contentsOf: #","ownerRecordName":"#.utf8)
        JSON.writeString(zoneID.ownerRecordName, into: &out)
        out.append(contentsOf: zoneID.isDefault ? #","zoneType":"DEFAULT_ZONE"}"#.utf8 : #","zoneType":"REGULAR_CUSTOM_ZONE"}"#.utf8)
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
        out.append(contentsOf: #"{"deviceID":"#.utf8)
        JSON.writeString(deviceID, into: &out)
        out.append(contentsOf: #","timestamp":"#.utf8)
        out.append(contentsOf: String(timestamp).utf8)
        out.append(contentsOf: #","userRecordName":"#.utf8)
        JSON.writeString(userRecordName, into: &out)
        out.append(UInt8(ascii: "}"))
    }
}

extension FieldValue {
    package func writeValue(into out: inout [UInt8]) {
        switch self {
        case .string(let s): JSON.writeString(s, into: &out)
        case .int64(let i), .timestamp(let i): out.append(contentsOf: String(i).utf8)
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
