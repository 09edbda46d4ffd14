
extension StoredRecord {
    /// Appends the record as `JSON.pretty(level:)` prints the decoded record's JSON: the stored text is compact and
    /// in the writer's key order, so indenting it is all that differs.
    package func writePretty(level: Int, into out: inout [UInt8]) {
        let b = bytes
        var depth = level
        var i = b.startIndex
        func newline() {
            out.append(0x0A)
            for _ in 0..<(2 * depth) { out.append(0x20) }
        }
        while i < b.endIndex {
            let c = b[i]
            switch c {
            case UInt8(ascii: "\""):
                // A string, copied whole (its escaped quotes and backslashes included).
                var j = i + 1
                while b[j] != UInt8(ascii: "\"") { j += b[j] == UInt8(ascii: "\\") ? 2 : 1 }
                out += b[i...j]
                i = j + 1
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                let close: UInt8 = c == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                out.append(c)
                if i + 1 < b.endIndex, b[i + 1] == close {
                    out.append(close)
                    i += 2
                } else {
                    depth += 1
                    newline()
                    i += 1
                }
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                out.append(c)
                i += 1
            case UInt8(ascii: ","):
                out.append(c)
                newline()
                i += 1
            case UInt8(ascii: ":"):
                out.append(c)
                out.append(0x20)
                i += 1
            default:
                out.append(c)
                i += 1
            }
        }
    }
}
