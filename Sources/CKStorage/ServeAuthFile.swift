import CKFiles
import CKModel

/// A container's auth.json: ck serve's web auth tokens and server-to-server keys. Changed only under the root
/// lock, by `StoreRoot.apply`.
package struct ServeAuthFile: Sendable {
    package let path: String

    package init(path: String) { self.path = path }

    /// The tokens and keys; none when the file is missing.
    package func read() throws(CKError) -> ServeAuth {
        guard let json = try JSONFile.read(path) else { return ServeAuth() }
        return try ServeAuth(json: json, path: path)
    }

    /// The file's version as `stat` has it; nil when it is missing.
    package func stamp() -> FileStamp? {
        FileIO.fileInfo(path).map { FileStamp(size: $0.size, inode: $0.inode, mtime: $0.mtime, ctime: $0.ctime) }
    }
}
