import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An advisory `flock` on a lock file: exclusive for writers, shared for readers.
final class FileLock {
    private var fd: Int32

    /// Blocks until the lock is held. The file is created if missing.
    init(path: String, exclusive: Bool) throws(CKError) {
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        if fd < 0 {
            if errno == ELOOP { throw FileIO.refusedSymlink(path) }
            throw CKError.internalError("cannot open lock file \(path): \(String(cString: strerror(errno)))")
        }
        while flock(fd, exclusive ? LOCK_EX : LOCK_SH) != 0 {
            if errno == EINTR { continue }
            let e = errno
            close(fd)
            throw CKError.internalError("cannot lock \(path): \(String(cString: strerror(e)))")
        }
    }

    /// Releases the lock (also released when the process exits).
    func unlock() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
    }

    deinit { unlock() }
}
