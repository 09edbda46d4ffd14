import Synchronization
#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// Threads that must never block on a lock: ck serve's event loops, which answer a read in place only while every
/// lock it needs is free. On such a thread `FileLock` takes a free lock as anywhere else, but a taken one fails at
/// once (`refusal`) and the thread is marked, so that the caller drops what it did and hands the whole request to a
/// thread that may wait (whatever became of the error on the way up: a per-item error, say).
package enum LockNoWait {
    private static let threads = Mutex<(never: Set<UInt>, refused: Set<UInt>)>(([], []))

    private static var me: UInt { UInt(pthread_self()) }

    /// Marks the calling thread as one that never waits for a lock, until `leave`.
    package static func enter() {
        let t = me
        threads.withLock { _ = $0.never.insert(t) }
    }

    /// The calling thread waits for locks again.
    package static func leave() {
        let t = me
        threads.withLock { s in
            s.never.remove(t)
            s.refused.remove(t)
        }
    }

    /// Whether the calling thread found a lock taken since it last asked; the mark is cleared.
    package static func takeRefusal() -> Bool {
        let t = me
        return threads.withLock { s in s.refused.isEmpty ? false : s.refused.remove(t) != nil }
    }

    /// Called on a lock found taken: true, and the thread marked, when the calling thread must not wait for it.
    static func refuses() -> Bool {
        let t = me
        return threads.withLock { s in
            guard s.never.contains(t) else { return false }
            s.refused.insert(t)
            return true
        }
    }

    /// The error a thread that does not wait gets for a taken lock (its caller hands the request on; no client sees it).
    static func refusal(_ path: String) -> CKError {
        CKError(.serviceUnavailable, "the lock on \(path) is taken, and this thread (an event loop) does not wait for locks")
    }
}
