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
        stored.forEachField { key, value in
            out.append(tab); out += b[key]; out.append(UInt8(ascii: "="))
            switch value {
            case .string(let body): appendDisplayEscaped(string: b[body], to: &out)
            case .int64(let digits): out += b[digits]
            case .timestamp(let t): ISO8601.append(milliseconds: t, to: &out)
            case .list(let items, let base):
                out.append(UInt8(ascii: "["))
                var first = true
                stored.forEachItem(items) { item in
                    if !first { out.append(UInt8(ascii: ",")); out.append(UInt8(ascii: " ")) }
                    first = false
                    switch base {
                    case .string: appendDisplayEscaped(string: b[item], to: &out)
                    case .int64: out += b[item]
                    default: ISO8601.append(milliseconds: StoredRecord.integer(b[item]), to: &out)
                    }
                }
                out.append(UInt8(ascii: "]"))
            case .decoded(let v):
                appendDisplayEscaped(v, to: &out)
            }
        }
    }

    /// Appends `escape(display(s))` of a stored string's body: its JSON escapes are already the plain line's
    /// (`\t`, `\n`, `\r`, `\\`) but for `\"` and `\u00XX`, which stand for their byte.
    private static func appendDisplayEscaped(string body: ArraySlice<UInt8>, to out: inout [UInt8]) {
        // Most strings have no escape: copied whole.
        guard var i = ByteSearch.first(UInt8(ascii: "\\"), in: body, from: body.startIndex) else { out += body; return }
        var run = body.startIndex
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
    }
}
