#if canImport(Glibc)
import Glibc
#endif

/// Finding a byte in a buffer with memchr (a vector scan): a Swift loop over the bytes costs several instructions a
/// byte, which shows on a bulk load's input and a change feed's lines.
package enum ByteSearch {
    /// The index of the first `byte` in `b` at or after `from`, nil when there is none.
    package static func first(_ byte: UInt8, in b: ArraySlice<UInt8>, from: Int) -> Int? {
        guard from < b.endIndex else { return nil }
        return b.withUnsafeBufferPointer { p -> Int? in
            guard let base = p.baseAddress else { return nil }
            let at = from - b.startIndex
            guard let hit = memchr(base + at, Int32(byte), p.count - at) else { return nil }
            return b.startIndex + (UnsafeRawPointer(hit) - UnsafeRawPointer(base))
        }
    }
}
