#if canImport(Glibc)
import Glibc
#endif
import CKModel

extension FileIO {
    /// A file opened now to be fsynced later: the fsync reaches the file that is at `path` now, even if the path
    /// is renamed over or removed before it runs.
    package final class DeferredSync {
        private let fd: Int32
        package let path: String

        /// Opens `path` (no symbolic link followed at any component); nil when there is no such file, which has nothing to sync.
        package init?(_ path: String) {
            guard let parent = try? ParentDirectory.open(path) else { return nil }
            let fd = parent.openLast(O_RDONLY | O_NONBLOCK)
            guard fd >= 0 else { return nil }
            self.fd = fd
            self.path = path
        }

        /// fsyncs the file opened.
        package func sync() throws(CKError) {
            guard fsync(fd) == 0 else { throw CKError.internalError("cannot sync \(path): \(errnoText())") }
        }

        deinit { close(fd) }
    }
}
