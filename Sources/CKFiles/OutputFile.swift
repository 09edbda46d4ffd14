#if canImport(Glibc)
import Glibc
import CKModel
#endif

/// Writing a document a user asked for with `--file` (outside the store). A regular file (or a new one) is
/// replaced whole through a temporary file, fsync and rename, so a crash leaves the old file or the new one. A
/// FIFO or a device (`/dev/stdout`, a named pipe) is written in place: renaming over it would replace it with a
/// regular file. A symbolic link is refused: replacing it would break the link, following it would write
/// somewhere the user did not name. Every write is checked (docs/reliability.md, "Output files").
public enum OutputFile {
    public static func write(_ path: String, _ bytes: [UInt8]) throws(CKError) {
        try write(path) { (put) throws(CKError) in try put(bytes) }
    }

    /// The same, with the bytes made a piece at a time: `produce` hands each piece to the writer it is given, so
    /// a large document never needs to be whole in memory. When `produce` fails, a regular file is left as it was.
    public static func write(_ path: String, produce: (_ put: @escaping ([UInt8]) throws(CKError) -> Void) throws(CKError) -> Void) throws(CKError) {
        var st = Glibc.stat()
        if lstat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFLNK:
                throw CKError(.invalidArguments, "\(path) is a symbolic link; ck does not write through it",
                              hint: "give the path the link points to, or remove the link")
            case S_IFDIR:
                throw CKError(.invalidArguments, "\(path) is a directory")
            case S_IFREG:
                break
            default:
                let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
                guard fd >= 0 else { throw CKError.internalError("cannot open \(path): \(FileIO.errnoText())") }
                defer { close(fd) }
                try produce { (bytes) throws(CKError) in try FileIO.writeAll(fd, bytes, path: path) }
                return
            }
        }
        // Replaced whole, the parent reached without following a link, the bytes written as they come.
        try FileIO.atomicWrite(path, produce: produce)
    }
}
