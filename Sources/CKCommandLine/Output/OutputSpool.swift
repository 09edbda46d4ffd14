#if canImport(Glibc)
import Glibc
#endif

/// Output made while a store lock is held, kept until the lock is released: in memory up to a few megabytes, then in
/// an unlinked temporary file, so a slow or blocked reader of stdout never holds the store's lock and a large batch
/// keeps its memory flat.
final class OutputSpool {
    private var memory: [UInt8] = []
    private var file: UnsafeMutablePointer<FILE>? = nil
    /// A spill failed (no temporary file, a full disk): the rest stays in memory, in order.
    private var inMemoryOnly = false
    private let limit: Int

    init(limit: Int = 4 << 20) { self.limit = limit }

    var isEmpty: Bool { memory.isEmpty && file == nil }

    func add(_ s: String) {
        memory.append(contentsOf: s.utf8)
        if memory.count >= limit && !inMemoryOnly { spill() }
    }

    private func spill() {
        if file == nil { file = tmpfile() }
        guard let f = file else { inMemoryOnly = true; return }
        let n = memory.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, f) }
        memory.removeFirst(n)
        if !memory.isEmpty { inMemoryOnly = true }
    }

    /// Hands everything kept to `write`, in order, and empties the spool.
    func drain(_ write: ([UInt8]) -> Void) {
        if let f = file {
            fflush(f)
            rewind(f)
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
                if n <= 0 { break }
                write(Array(chunk[0..<n]))
            }
            fclose(f)
            file = nil
        }
        if !memory.isEmpty { write(memory) }
        memory = []
        inMemoryOnly = false
    }
}
