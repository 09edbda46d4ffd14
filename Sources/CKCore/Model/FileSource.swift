import Foundation

/// Where the `@file` of a value is read from. Reading files is the caller's business: a command line reads
/// its working directory; the server only ever sees what the caller's source returns.
public struct FileSource: Sendable {
    /// Returns a file's bytes, or throws naming `path` (the field) and the file.
    public let read: @Sendable (_ file: String, _ path: String) throws(CKError) -> [UInt8]

    public init(read: @escaping @Sendable (_ file: String, _ path: String) throws(CKError) -> [UInt8]) { self.read = read }

    /// Files named relative to `directory` (absolute names as they are).
    public static func directory(_ directory: String) -> FileSource {
        FileSource { (file: String, path: String) throws(CKError) -> [UInt8] in
            let full = file.hasPrefix("/") ? file : directory + "/" + file
            guard !FileIO.isDirectory(full), let bytes = try? FileIO.read(full) else {
                throw CKError(.assetFileNotFound, "\(path): cannot read file '\(file)'")
            }
            return bytes
        }
    }

    /// No files: a value naming one is refused (a caller that reads none, such as a library user with JSON values).
    public static let none = FileSource { (file: String, path: String) throws(CKError) -> [UInt8] in
        throw CKError(.invalidArguments, "\(path): '@\(file)' names a file, and this caller reads no files",
                      hint: "give the bytes in the value itself, or set CKDatabase.files to the caller's FileSource")
    }
}
