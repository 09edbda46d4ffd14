import Glibc

/// Where the `@file` of a value is read from. Reading files is the caller's business: a command line reads
/// its working directory; the server only ever sees what the caller's source returns.
public struct FileSource: Sendable {
    /// Returns a file's bytes, or throws naming `path` (the field) and the file.
    public let read: @Sendable (_ file: String, _ path: String) throws(CKError) -> [UInt8]
    /// A file's size without reading it (nil when unknown), so a file over a limit is never loaded.
    public let size: @Sendable (_ file: String) -> Int64?

    public init(read: @escaping @Sendable (_ file: String, _ path: String) throws(CKError) -> [UInt8],
                size: @escaping @Sendable (_ file: String) -> Int64? = { _ in nil }) {
        self.read = read
        self.size = size
    }

    /// Files named relative to `directory` (absolute names as they are).
    public static func directory(_ directory: String) -> FileSource {
        let full: @Sendable (String) -> String = { file in file.hasPrefix("/") ? file : directory + "/" + file }
        return FileSource(read: { (file: String, path: String) throws(CKError) -> [UInt8] in
            // The caller's own file, outside the store: links are followed, as any program reading a path does.
            guard let bytes = FileSource.readFile(full(file)) else {
                throw CKError(.assetFileNotFound, "\(path): cannot read file '\(file)'")
            }
            return bytes
        }, size: { file in
            // Following links, as reading does; only a regular file has a size worth checking.
            var st = stat()
            guard stat(full(file), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
            return Int64(st.st_size)
        })
    }

    /// No files: a value naming one is refused (a caller that reads none, such as a library user with JSON values).
    public static let none = FileSource { (file: String, path: String) throws(CKError) -> [UInt8] in
        throw CKError(.invalidArguments, "\(path): '@\(file)' names a file, and this caller reads no files",
                      hint: "give the bytes in the value itself, or set CKDatabase.files to the caller's FileSource")
    }

    /// A caller's own file, whole: nil when it can't be opened or read, or is a directory.
    package static func readFile(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) != S_IFDIR else { return nil }
        var out: [UInt8] = []
        var buf = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = buf.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if errno == EINTR { continue }; return nil }
            if n == 0 { return out }
            out += buf[0..<n]
        }
    }
}
