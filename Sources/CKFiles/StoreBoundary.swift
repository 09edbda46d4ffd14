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

    /// The outermost registered root that `path` lies strictly below, if any.
    package static func root(containing path: String) -> String? {
        roots.withLock { list in
            var best: String? = nil
            // Byte-wise: a path is below a root when the root's bytes, then a slash, begin it.
            for r in list where path.utf8.count > r.utf8.count + 1 && path.utf8.starts(with: r.utf8)
                && path.utf8.dropFirst(r.utf8.count).first == UInt8(ascii: "/") {
                if best.map({ r.utf8.count < $0.utf8.count }) ?? true { best = r }
            }
            return best
        }
    }
}
