#if canImport(Glibc)
import Glibc
#endif

extension JSONParser {
    /// Consumes `text` if the bytes at the cursor are exactly it: one memcmp, for the fixed keys of a log line that
    /// the fast readers (LogEntry's decoder, StoredRecord's scan) expect in ck's own order. Inlinable: those readers
    /// live in other modules and call it for every key of every line.
    @inlinable
    package mutating func accept(_ text: StaticString) -> Bool {
        let n = text.utf8CodeUnitCount
        guard i + n <= b.count, let base = b.baseAddress, memcmp(base + i, text.utf8Start, n) == 0 else { return false }
        i += n
        return true
    }
}
