import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// The store roots this process works in. A path below one is reached from that root one component at a time,
/// never through a symbolic link (`ParentDirectory`); a path outside every root (a `--file` the user named) is
/// opened as the user gave it. What lies above a root (`/tmp` → `/private/tmp`, a `--data-dir` that is a link) is
/// the user's choice and is followed.
package enum StoreBoundary {
    private static let roots = Mutex<[String]>([])

    /// Declares `root` a store root.
    package static func register(_ root: String) {
        guard root.count > 1, root.hasPrefix("/") else { return }
        roots.withLock { if !$0.contains(root) { $0.append(root) } }
    }

    /// Whether `path` is itself a registered root.
    package static func isRoot(_ path: String) -> Bool {
        roots.withLock { $0.contains(path) }
    }

    /// Whether the root's bytes, then a slash, begin `path` (longer than both), compared on contiguous bytes when
    /// the strings have them: the generic comparison cost 3 k instructions a call, and every file opened asks.
    private static func isBelow(_ path: String, _ root: String) -> Bool {
        let n = root.utf8.count
        let fast = path.utf8.withContiguousStorageIfAvailable { p -> Bool? in
            root.utf8.withContiguousStorageIfAvailable { r -> Bool in
                guard let pb = p.baseAddress, let rb = r.baseAddress else { return false }
                return memcmp(pb, rb, n) == 0 && p[n] == UInt8(ascii: "/")
            }
        }
        if let known = fast ?? nil { return known }
        return path.utf8.starts(with: root.utf8) && path.utf8.dropFirst(n).first == UInt8(ascii: "/")
    }

    /// The outermost registered root that `path` lies strictly below, if any.
    package static func root(containing path: String) -> String? {
        roots.withLock { list in
            var best: String? = nil
            // Byte-wise: a path is below a root when the root's bytes, then a slash, begin it.
            for r in list where path.utf8.count > r.utf8.count + 1 && isBelow(path, r) {
                if best.map({ r.utf8.count < $0.utf8.count }) ?? true { best = r }
            }
            return best
        }
    }
}
