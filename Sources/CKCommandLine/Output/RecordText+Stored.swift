import CKCore

/// Plain lines written from a record's stored bytes (`StoredRecord`), byte for byte what `appendPlain` writes for
/// the decoded record: a change feed prints each change without decoding it.
extension RecordText {
    /// Appends `plain(r)` of the record `stored` stands for.
    static func appendPlain(_ stored: StoredRecord, to out: inout [UInt8]) {
        let tab = UInt8(ascii: "\t")
        let b = stored.bytes
        StoredRecord.unescape(b[stored.name], into: &out)
        out.append(tab); StoredRecord.unescape(b[stored.type], into: &out)
        out.append(tab); StoredRecord.unescape(b[stored.tag], into: &out)
        out.append(tab); StoredRecord.unescape(b[stored.zoneName], into: &out)
        for f in stored.fields {
            out.append(tab); out += b[f.key]; out.append(UInt8(ascii: "="))
            appendDisplayEscaped(f.kind, b[f.value], stored: b, to: &out)
        }
    }

    /// Appends `escape(display(v))` of a stored value: a string's JSON text is already escaped as a plain
    /// line escapes it (`\t`, `\n`, `\r`, `\\`) but for `\"` and `\u00XX`, which stand for their byte.
    private static func appendDisplayEscaped(_ kind: StoredField.Kind, _ value: ArraySlice<UInt8>, stored b: ArraySlice<UInt8>,
                                             to out: inout [UInt8]) {
        switch kind {
        case .string:
            let body = value.dropFirst().dropLast()
            // Most strings have no escape: copied whole.
            if !body.contains(UInt8(ascii: "\\")) { out += body; return }
            var i = body.startIndex
            var run = i
            while i < body.endIndex {
                guard body[i] == UInt8(ascii: "\\") else { i += 1; continue }
                switch body[i + 1] {
                case UInt8(ascii: "\""):
                    out += body[run..<i]; out.append(UInt8(ascii: "\"")); i += 2; run = i
                case UInt8(ascii: "u"):
                    out += body[run..<i]; StoredRecord.unescape(body[i..<i + 6], into: &out); i += 6; run = i
                default:
                    i += 2
                }
            }
            out += body[run..<body.endIndex]
        case .int64:
            out += value
        case .timestamp(let t):
            out += ISO8601.format(milliseconds: t).utf8
        case .list(let kinds, let items):
            out.append(UInt8(ascii: "["))
            for (i, (k, r)) in zip(kinds, items).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")); out.append(UInt8(ascii: " ")) }
                appendDisplayEscaped(k, b[r], stored: b, to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .decoded(let v):
            appendDisplayEscaped(v, to: &out)
        }
    }
}
