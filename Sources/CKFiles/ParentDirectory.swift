#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// The directory that holds a path's last component, open, so the component is then opened, created, renamed or
/// removed relative to it (openat, mkdirat, renameat, unlinkat). Inside a store (`StoreBoundary`) the directory is
/// reached from the root one component at a time with O_NOFOLLOW|O_DIRECTORY: a symbolic link (or a file) in
/// place of any directory of the store is refused, so no store file can lead ck to a file outside the store.
package final class ParentDirectory {
    /// The open directory.
    package let fd: Int32
    /// The last component of `path`, to use relative to `fd`.
    package let name: String
    /// The whole path, for messages.
    package let path: String

    private init(fd: Int32, name: String, path: String) {
        self.fd = fd
        self.name = name
        self.path = path
    }

    deinit { close(fd) }

    /// The parent of `path`, opened; nil when a directory on the way is missing. Throws when one is a symbolic
    /// link or not a directory.
    package static func open(_ path: String) throws(CKError) -> ParentDirectory? {
        try walk(path, create: false)
    }

    /// Like `open(_:)`, creating missing directories on the way.
    package static func make(_ path: String) throws(CKError) -> ParentDirectory {
        guard let p = try walk(path, create: true) else {
            throw CKError.internalError("cannot create the directories of \(path)")
        }
        return p
    }

    private static let directoryFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW

    private static func walk(_ path: String, create: Bool) throws(CKError) -> ParentDirectory? {
        guard let root = StoreBoundary.root(containing: path) else {
            // Outside the store: the path is the user's, links and all.
            let dir = PathName.parent(path)
            let fd = Glibc.open(dir.isEmpty ? "." : dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if fd < 0 {
                if errno == ENOENT && create {
                    try FileIO.makeDirectory(dir)
                    return try walk(path, create: false)
                }
                if errno == ENOENT { return nil }
                throw CKError.internalError("cannot open \(dir): \(FileIO.errnoText())")
            }
            return ParentDirectory(fd: fd, name: PathName.last(path), path: path)
        }
        let parts = String(decoding: path.utf8.dropFirst(root.utf8.count + 1), as: UTF8.self).split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard let last = parts.last, !parts.contains(".."), !parts.contains(".") else {
            throw CKError.corrupt(path: path, "is not a plain path inside the store")
        }
        var fd = Glibc.open(root, directoryFlags & ~O_NOFOLLOW)
        guard fd >= 0 else {
            if errno == ENOENT && !create { return nil }
            if errno == ENOENT {
                try FileIO.makeDirectory(root)
                return try walk(path, create: true)
            }
            throw CKError.internalError("cannot open \(root): \(FileIO.errnoText())")
        }
        var at = root
        for part in parts.dropLast() {
            at += "/" + part
            var next = openat(fd, part, directoryFlags)
            if next < 0 && errno == ENOENT && create {
                if mkdirat(fd, part, 0o755) != 0 && errno != EEXIST {
                    let why = FileIO.errnoText()
                    close(fd)
                    throw CKError.internalError("cannot create directory \(at): \(why)")
                }
                next = openat(fd, part, directoryFlags)
            }
            if next < 0 {
                let failure = errno
                defer { close(fd) }
                if failure == ENOENT { return nil }
                if failure == ENOTDIR || failure == ELOOP {
                    var st = Glibc.stat()
                    if fstatat(fd, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == S_IFLNK {
                        throw FileIO.refusedSymlink(at)
                    }
                    throw CKError.corrupt(path: at, "is not a directory")
                }
                throw CKError.internalError("cannot open \(at): \(String(cString: strerror(failure)))")
            }
            close(fd)
            fd = next
        }
        return ParentDirectory(fd: fd, name: last, path: path)
    }

    /// The kind of the last component (S_IFREG, S_IFDIR, S_IFLNK, …), not following a link; nil when missing.
    package func kind() -> mode_t? {
        var st = Glibc.stat()
        guard fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        return st.st_mode & S_IFMT
    }

    /// Opens the last component with `flags` (O_NOFOLLOW always added); -1 with errno on failure.
    package func openLast(_ flags: Int32, mode: mode_t = 0o644) -> Int32 {
        openat(fd, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)
    }

    /// Opens the last component as a directory; nil when it is missing, throws when it is a link or a file.
    package func openDirectory() throws(CKError) -> Int32? {
        let d = openat(fd, name, ParentDirectory.directoryFlags)
        if d >= 0 { return d }
        if errno == ENOENT { return nil }
        if errno == ENOTDIR || errno == ELOOP {
            if kind() == S_IFLNK { throw FileIO.refusedSymlink(path) }
            throw CKError.corrupt(path: path, "is not a directory")
        }
        throw CKError.internalError("cannot open \(path): \(FileIO.errnoText())")
    }
}
