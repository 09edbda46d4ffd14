import Foundation
import CKCore

/// Records as text for people (table) and scripts (plain).
enum RecordText {
    /// One value for display: dates in ISO 8601, references as name[@zone], lists in brackets.
    static func display(_ v: FieldValue) -> String {
        switch v {
        case .string(let s): return s
        case .int64(let i): return String(i)
        case .double(let d): return "\(d)"
        case .timestamp(let t): return ISO8601.format(milliseconds: t)
        case .bytes: return v.valueJSON.stringValue ?? ""
        case .reference(let r):
            var s = r.recordName
            if let z = r.zoneName { s += "@" + z }
            if r.action != .none { s += " (\(r.action.rawValue))" }
            return s
        case .asset(let a): return "asset \(a.sha256.prefix(12))… (\(a.size) bytes)"
        case .location(let l): return "\(l.latitude),\(l.longitude)"
        case .list(_, let items):
            // Joined by hand: a process's first `joined(separator:)` resolves its generic metadata at run time,
            // about 230 k instructions, more than the rest of a fetch's printing.
            var s = "["
            for (i, item) in items.enumerated() {
                if i > 0 { s += ", " }
                s += display(item)
            }
            s += "]"
            return s
        case .encrypted(let plain): return display(plain)
        }
    }

    /// Appends `display(v)` escaped as `escape` does, as UTF-8, without building the display string of the
    /// common values (escaping a list's display is escaping each item's: brackets and separators need none).
    static func appendDisplayEscaped(_ v: FieldValue, to out: inout [UInt8]) {
        switch v {
        case .string(let s): appendEscaped(s, to: &out)
        case .int64(let i): out += String(i).utf8
        case .timestamp(let t): out += ISO8601.format(milliseconds: t).utf8
        case .list(_, let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")); out.append(UInt8(ascii: " ")) }
                appendDisplayEscaped(item, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        default: appendEscaped(display(v), to: &out)
        }
    }

    /// Appends `escape(s)` as UTF-8.
    static func appendEscaped(_ s: String, to out: inout [UInt8]) {
        if needsEscape(s) { out += escape(s).utf8 } else { out += s.utf8 }
    }

    /// Escapes tabs, newlines and backslashes so a plain line stays one line.
    static func escape(_ s: String) -> String {
        guard needsEscape(s) else { return s }
        var out = ""
        appendEscaped(s, to: &out)
        return out
    }

    /// Whether a value has a byte that `escape` rewrites. Most values have none; a loop over the contiguous
    /// UTF-8 costs a fraction of `utf8.contains(where:)` on long text.
    static func needsEscape(_ s: String) -> Bool {
        var s = s
        return s.withUTF8 { bytes in
            for b in bytes where b == 0x09 || b == 0x0A || b == 0x5C || b == 0x0D { return true }
            return false
        }
    }

    /// Appends `s` to `out` escaped as `escape` does.
    static func appendEscaped(_ s: String, to out: inout String) {
        guard needsEscape(s) else { out += s; return }
        for c in s {
            switch c {
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\\": out += "\\\\"
            default: out.append(c)
            }
        }
    }

    /// The plain columns of a record, in their documented order: recordName, recordType, changeTag, zone, then
    /// one `key=value` column per field, sorted by key (fields are always last). No times: equal stores print equal lines.
    static func plain(_ r: Record) -> String {
        var out: [UInt8] = []
        appendPlain(r, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends `plain(r)` as UTF-8: a query page writes its hundred lines into one buffer (bytes: appending
    /// to a String cost a few hundred instructions a piece).
    static func appendPlain(_ r: Record, to out: inout [UInt8]) {
        let tab = UInt8(ascii: "\t")
        out += r.recordName.utf8
        out.append(tab); out += r.recordType.utf8
        out.append(tab); out += r.changeTag.utf8
        out.append(tab); out += r.zoneID.zoneName.utf8
        for k in r.fields.keys.sorted() {
            guard let v = r.fields[k] else { continue }
            out.append(tab); out += k.utf8; out.append(UInt8(ascii: "="))
            appendDisplayEscaped(v, to: &out)
        }
    }

    /// The plain line of a deleted record: recordName, recordType, `deleted`.
    static func plainDeleted(_ name: String, _ type: String) -> String { "\(name)\t\(type)\tdeleted" }

    /// Fields in one cell of a table row: `key=value, …`, sorted by key, control characters escaped.
    static func fieldSummary(_ fields: [String: FieldValue]) -> String {
        fields.keys.sorted().compactMap { k in fields[k].map { k + "=" + escape(display($0)) } }.joined(separator: ", ")
    }

    /// A block of aligned lines for people.
    static func table(_ r: Record, keys: [String]?) -> String {
        let rows: [(String, String)] = [
            ("recordName", r.recordName), ("recordType", r.recordType), ("changeTag", r.changeTag),
            ("zone", r.zoneID.zoneName),
        ] + (r.parent.map { [("parent", $0)] } ?? []) + [
            ("created", ISO8601.format(milliseconds: r.created.timestamp) + " by " + r.created.userRecordName),
            ("modified", ISO8601.format(milliseconds: r.modified.timestamp) + " by " + r.modified.userRecordName),
        ]
        let fieldKeys = r.fields.keys.sorted().filter { keys == nil || keys?.contains($0) == true }
        var fieldRows: [(String, String)] = []
        for k in fieldKeys {
            if let v = r.fields[k] { fieldRows.append((k, display(v) + "  (" + v.typeLabel + ")")) }
        }
        let width = (rows + fieldRows).map { $0.0.count }.max() ?? 0
        func fmt(_ row: (String, String)) -> String { row.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + row.1 }
        var lines = rows.map(fmt)
        if !fieldRows.isEmpty {
            lines.append("fields:")
            lines += fieldRows.map { "  " + fmt($0) }
        }
        return lines.joined(separator: "\n")
    }

    /// A one-line summary of a record dictionary, for conflict reports.
    static func summary(_ json: JSON) -> String {
        var parts: [String] = []
        // A record a create sent has no change tag yet.
        parts.append(json["recordChangeTag"]?.stringValue.map { "tag \($0)" } ?? "new")
        if let t = json["modified"]?["timestamp"]?.int64Value {
            parts.append("modified \(ISO8601.format(milliseconds: t)) by \(json["modified"]?["userRecordName"]?.stringValue ?? "?")")
        }
        var fields: [String] = []
        if case .object(let f)? = json["fields"] {
            for k in f.keys.sorted() {
                guard let fj = f[k] else { continue }
                if fj.isNull { fields.append("\(k)=(removed)"); continue }
                if let v = try? FieldValue.from(fieldJSON: fj, declared: nil, path: k) {
                    fields.append("\(k)=\(escape(display(v)))")
                } else if let s = fj["value"]?.stringValue {
                    fields.append("\(k)=\(escape(s))")
                }
            }
        }
        return parts.joined(separator: ", ") + (fields.isEmpty ? "" : ": " + fields.joined(separator: ", "))
    }
}
