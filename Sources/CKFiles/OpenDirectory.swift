#if canImport(Glibc)
import Glibc
#endif

/// A directory descriptor of the store, closed when the last walk or cache entry holding it lets go.
package final class OpenDirectory: Sendable {
    /// The open directory (O_DIRECTORY, reached with O_NOFOLLOW inside the store).
    package let fd: Int32

    init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }
}
