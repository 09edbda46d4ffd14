import CKFiles
import CKModel
import Synchronization

/// Open record indexes kept between operations by a long-running process (`ck serve`, where every request makes its
/// own database): a new SQLite connection parses the index's schema, 30% of a one-record lookup. A kept connection
/// is used again only while `.index.sqlite` is still the file it opened (another process may have rebuilt or
/// replaced it), and with the caches a fresh one would not have dropped, so it answers as a fresh one would.
package enum IndexPool {
    private final class Idle: @unchecked Sendable {
        var byPath: [String: [(index: RecordIndex, inode: Int64)]] = [:]
        var enabled = false
    }
    private static let idle = Mutex(Idle())

    /// Most idle connections kept per index (one per request answered at once is enough).
    static let perIndex = 8

    /// Keeps indexes open between operations from now on (a long-running server); a command opens its own.
    package static func enable() { idle.withLock { $0.enabled = true } }

    /// An idle index of `path` still backed by the file it opened, or nil.
    static func take(_ path: String) -> RecordIndex? {
        guard let entry = idle.withLock({ (pool) -> (index: RecordIndex, inode: Int64)? in
            guard pool.enabled else { return nil }
            return pool.byPath[path]?.popLast()
        }) else { return nil }
        guard let now = try? FileIO.info(path), now.inode == entry.inode else { return nil }
        entry.index.forgetProcessState()
        return entry.index
    }

    /// Returns an index a finished operation used; kept when the pool is on and has room, closed otherwise.
    static func give(_ index: RecordIndex) {
        guard let inode = index.openedInode, index.db.settle() else { return }
        idle.withLock { pool in
            guard pool.enabled, pool.byPath[index.path, default: []].count < perIndex else { return }
            pool.byPath[index.path, default: []].append((index, inode))
        }
    }
}
