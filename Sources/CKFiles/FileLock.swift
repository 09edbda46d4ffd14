import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import CKModel
#endif

/// Who is told when a process has waited a second for a store lock (the command line says so on stderr).
public enum LockWaitNotice {
    package static let hook = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sets what is told the lock file's path after a second's wait; nil tells nobody.
    public static func set(_ notice: (@Sendable (String) -> Void)?) { hook.withLock { $0 = notice } }

    /// How long a wait goes unmentioned.
    package static let after: DispatchTimeInterval = .seconds(1)
}

/// An advisory `flock` on a lock file: exclusive for writers, shared for readers.
package final class FileLock {
    private var fd: Int32

    /// Blocks until the lock is held. The file is created if missing.
    package init(path: String, exclusive: Bool) throws(CKError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        if fd < 0 {
            if errno == ELOOP { throw FileIO.refusedSymlink(path) }
            throw CKError.internalError("cannot open lock file \(path): \(String(cString: strerror(errno)))")
        }
        let mode = exclusive ? LOCK_EX : LOCK_SH
        // Uncontended, the lock is taken at once; a wait past a second is told (another ck is at work).
        if flock(fd, mode | LOCK_NB) == 0 { return }
        var notice: DispatchWorkItem? = nil
        if let tell = LockWaitNotice.hook.withLock({ $0 }) {
            let item = DispatchWorkItem { tell(path) }
            DispatchQueue.global().asyncAfter(deadline: .now() + LockWaitNotice.after, execute: item)
            notice = item
        }
        defer { notice?.cancel() }
        while flock(fd, mode) != 0 {
            if errno == EINTR { continue }
            let e = errno
            close(fd)
            throw CKError.internalError("cannot lock \(path): \(String(cString: strerror(e)))")
        }
    }

    /// Releases the lock (also released when the process exits).
    package func unlock() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { unlock() }
}
