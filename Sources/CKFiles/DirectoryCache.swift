import CKModel
import Synchronization

/// The store directories this process has already reached link-free, open, by path: a walk starts at the deepest
/// one it finds instead of at the root, so a command opens each directory once rather than once per file
/// (issue 29). Every entry was reached with O_NOFOLLOW, so using it follows no link. An entry is forgotten when
/// this process renames or removes it or a directory above it; when a store lock is taken all but the lock
/// file's own directories are forgotten (what another process moved while this one waited is walked afresh),
/// and when one is released all are, so a long-running process never keeps a tree others have since replaced.
package enum DirectoryCache {
    private static let entries = Mutex<[String: OpenDirectory]>([:])

    /// Bounds the descriptors held (a long `serve` reaching many zones); past it the cache starts over.
    static let capacity = 128

    /// The open directory at `path`, if reached before and not forgotten since.
    static func lookup(_ path: String) -> OpenDirectory? {
        entries.withLock { $0[path] }
    }

    /// Remembers the open directory at `path`.
    static func remember(_ path: String, _ dir: OpenDirectory) {
        entries.withLock { table in
            if table.count >= capacity { table.removeAll() }
            table[path] = dir
        }
    }

    /// Forgets `path` and every directory below it (renamed or removed: the name no longer leads there).
    package static func forget(_ path: String) {
        let path = key(path)
        entries.withLock { table in
            let below = path + "/"
            table = table.filter { $0.key != path && !$0.key.utf8.starts(with: below.utf8) }
        }
    }

    /// Forgets every directory.
    package static func forgetAll() {
        entries.withLock { $0.removeAll() }
    }

    /// Forgets every directory but those on the way to `lock` (another process may have moved any of them; the
    /// lock just taken was reached through the rest, so they are as current as the lock itself).
    package static func forgetAll(keepingWayTo lock: String) {
        let lock = key(lock)
        entries.withLock { table in
            table = table.filter { lock.utf8.starts(with: ($0.key + "/").utf8) }
        }
    }

    /// The key of `path`: the walk's, the root then the components without empty ones.
    static func key(_ path: String) -> String {
        // Most paths are spelled so already.
        if ParentDirectory.plainSplit(path) != nil { return path }
        // Joined by hand (`joined(by:)`): the generic `joined(separator:)` costs every command its first use.
        // Split as bytes: a String's split walks grapheme clusters, and this runs on every file a command opens.
        return "/" + path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
            .map { String(decoding: $0, as: UTF8.self) }.joined(by: "/")
    }
}
