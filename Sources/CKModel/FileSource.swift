import Glibc

/// Where the `@file` of a value is read from. Reading files is the caller's business: a command line reads
/// its working directory; the server only ever sees what the caller's source returns.
public struct FileSource: Sendable {
    /// Returns a file's bytes, or throws naming `path` (the field) and the file.
    public let read: @Sendable (_ file: String, _ path: String) throws(CKError) -> [UInt8]
    /// A file's size without reading it (nil when unknown), so a file over a limit is never loaded.
    public let size: @Sendable (_ file: String) -> Int64?
    /// Reads a file refusing it past a limit without holding more (nil: `read`, then the size is checked).
    let readUpTo: (@Sendable (_ file: String, _ path: String, _ limit: Int, _ limitName: String) throws(CKError) -> [UInt8])?

    public init(read: @escaping @Sendable (_ file: String, _ path: String) throws(CKError) -> [UInt8],
                size: @escaping @Sendable (_ file: String) -> Int64? = { _ in nil }) {
        self.read = read
        self.size = size
        readUpTo = nil
    }

    /// A source that can also read under a limit (`readUpTo`), so a large or endless file is never held whole.
    package init(read: @escaping @Sendable (_ file: String, _ path: String) throws(CKError) -> [UInt8],
                 size: @escaping @Sendable (_ file: String) -> Int64?,
                 readUpTo: (@Sendable (_ file: String, _ path: String, _ limit: Int, _ limitName: String) throws(CKError) -> [UInt8])?) {
        self.read = read
        self.size = size
        self.readUpTo = readUpTo
    }

    /// A file's bytes, refused with limitExceeded (naming `limitName`) once over `limit` bytes.
    package func read(_ file: String, _ path: String, limit: Int, limitName: String) throws(CKError) -> [UInt8] {
        if let readUpTo { return try readUpTo(file, path, limit, limitName) }
        let bytes = try read(file, path)
        if bytes.count > limit { throw BoundedRead.tooLarge("\(path): file '\(file)'", limit: limit, limitName: limitName) }
        return bytes
    }

    /// Files named relative to `directory` (absolute names as they are).
    public static func directory(_ directory: String) -> FileSource {
        let full: @Sendable (String) -> String = { file in file.hasPrefix("/") ? file : directory + "/" + file }
        let upTo: @Sendable (String, String, Int, String) throws(CKError) -> [UInt8] = { (file: String, path: String, limit: Int, limitName: String) throws(CKError) -> [UInt8] in
            // The caller's own file, outside the store: links are followed, as any program reading a path does.
            guard let bytes = try BoundedRead.read(path: full(file), input: "\(path): file '\(file)'", limit: limit, limitName: limitName) else {
                throw CKError(.assetFileNotFound, "\(path): cannot read file '\(file)'")
            }
            return bytes
        }
        return FileSource(read: { (file: String, path: String) throws(CKError) -> [UInt8] in
            // No file value is larger than an asset may be: a device or endless pipe stops there.
            try upTo(file, path, Int(Asset.maxSize), "CloudKit's limit for an asset file")
        }, size: { file in
            // Following links, as reading does; only a regular file has a size worth checking.
            var st = stat()
            guard stat(full(file), &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
            return Int64(st.st_size)
        }, readUpTo: upTo)
    }

    /// No files: a value naming one is refused (a caller that reads none, such as a library user with JSON values).
    public static let none = FileSource { (file: String, path: String) throws(CKError) -> [UInt8] in
        throw CKError(.invalidArguments, "\(path): '@\(file)' names a file, and this caller reads no files",
                      hint: "give the bytes in the value itself, or set CKDatabase.files to the caller's FileSource")
    }
}
