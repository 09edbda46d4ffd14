#if canImport(Glibc)
import Glibc
import CKModel
#endif

/// A store file opened once for several reads: a query page reads a hundred lines of one log, and an open and a
/// close for each cost more than the reads. Opened without following a link; its size is taken at open, so reads
/// stop there (a FIFO or device planted in the store reads as empty and can't hang).
package final class ReadHandle {
    package let path: String
    private let fd: Int32
    /// The size fstat reported when the file was opened (0 for anything but a regular file).
    package let size: Int

    /// Opens `path`; nil when it does not exist.
    package init?(_ path: String) throws(CKError) {
        guard let parent = try ParentDirectory.open(path) else { return nil }
        let fd = parent.openLast(O_RDONLY | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw FileIO.refusedSymlink(path) }
            throw CKError.internalError("cannot read \(path): \(FileIO.errnoText())")
        }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0 else {
            let why = FileIO.errnoText()
            close(fd)
            throw CKError.internalError("cannot stat \(path): \(why)")
        }
        self.path = path
        self.fd = fd
        size = (st.st_mode & S_IFMT) == S_IFREG ? Int(st.st_size) : 0
    }

    deinit { close(fd) }

    /// `count` bytes from `offset` (nil: the last `count` bytes), fewer at the end of the file.
    package func read(from offset: Int?, count: Int) throws(CKError) -> [UInt8] {
        let start = offset.map { min(max(0, $0), size) } ?? size - min(size, count)
        var out = [UInt8](repeating: 0, count: min(size - start, count))
        var done = 0
        while done < out.count {
            let n = out.withUnsafeMutableBytes { buf -> Int in
                guard let base = buf.baseAddress else { return 0 }
                return pread(fd, base + done, buf.count - done, off_t(start + done))
            }
            if n < 0 { if errno == EINTR { continue }; throw CKError.internalError("cannot read \(path): \(FileIO.errnoText())") }
            if n == 0 { break }
            done += n
        }
        if done < out.count { out.removeLast(out.count - done) }
        return out
    }
}
