
extension JSON {
    /// The 1-based line and column where the value at `path` starts in a JSON text: `path` is a JSON path such as
    /// `$.record.fields.title.value` (an index like `value[2]` points at the list). A member that is missing points
    /// at its deepest parent that exists, so an error about a value can show where it is.
    public static func position<C: Collection>(of path: String, in text: C) -> (line: Int, column: Int) where C.Element == UInt8 {
        var keys = path.split(separator: ".", omittingEmptySubsequences: false).map { part -> String in
            String(part.firstIndex(of: "[").map { part[..<$0] } ?? part)
        }
        if keys.first == "$" { keys.removeFirst() }
        let bytes = Array(text)
        return bytes.withUnsafeBufferPointer { buf -> (line: Int, column: Int) in
            var p = JSONParser(buf)
            p.skipSpace()
            var found = p.i
            descend: for key in keys {
                guard p.i < buf.count, buf[p.i] == UInt8(ascii: "{") else { break }
                p.i += 1
                while true {
                    p.skipSpace()
                    guard p.i < buf.count, buf[p.i] == UInt8(ascii: "\""), let k = try? p.string() else { break descend }
                    p.skipSpace()
                    guard p.i < buf.count, buf[p.i] == UInt8(ascii: ":") else { break descend }
                    p.i += 1
                    p.skipSpace()
                    if k == key {
                        found = p.i
                        continue descend
                    }
                    guard (try? p.skip(depth: 1)) != nil else { break descend }
                    p.skipSpace()
                    guard p.i < buf.count, buf[p.i] == UInt8(ascii: ",") else { break descend }
                    p.i += 1
                }
            }
            let at = p.fail("", at: found)
            return (at.line, at.column)
        }
    }
}
