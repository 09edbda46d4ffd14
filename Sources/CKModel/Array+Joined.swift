
extension Array where Element == String {
    /// `joined(separator:)` without its run-time cost on first use: the standard library's generic method
    /// resolves its associated types by metadata lookup the first time a process calls it (about 230 k
    /// instructions, more than a fetch's whole printing), and a command calls it once or twice.
    package func joined(by separator: String) -> String {
        var out = ""
        for (i, part) in enumerated() {
            if i > 0 { out += separator }
            out += part
        }
        return out
    }
}
