#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// The directory that holds a path's last component, open, so the component is then opened, created, renamed or
/// removed relative to it (openat, mkdirat, renameat, unlinkat). Inside a store (`StoreBoundary`) the directory is
/// reached from the root one component at a time with O_NOFOLLOW|O_DIRECTORY: a symbolic link (or a file) in
/// place of any directory of the store is refused, so no store file can lead ck to a file outside the store.
/// Directories already reached that way are reused from `DirectoryCache`.
package final class ParentDirectory {
    /// The open directory.
    package var fd: Int32 { directory.fd }
    private let directory: OpenDirectory
    /// The last component of `path`, to use relative to `fd`.
    package let name: String
    /// The whole path, for messages.
    package let path: String

    private init(_ directory: OpenDirectory, name: String, path: String) {
        self.directory = directory
        self.name = name
        self.path = path
    }

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
            return ParentDirectory(OpenDirectory(fd: fd), name: PathName.last(path), path: path)
        }
        // A path already spelled as the cache's keys are, whose parent this process has reached: no split, no joins
        // (a command opens some 25 files, and the walk below cost 20 k instructions each).
        if let (parent, last) = plainSplit(path), let known = DirectoryCache.lookup(parent) {
            return ParentDirectory(known, name: last, path: path)
        }
        // Split as bytes: a split of the String walks grapheme clusters, most of a short command's path work.
        let parts = path.utf8.dropFirst(root.utf8.count + 1).split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true)
            .map { String(decoding: $0, as: UTF8.self) }
        guard let last = parts.last, !parts.contains(".."), !parts.contains(".") else {
            throw CKError.corrupt(path: path, "is not a plain path inside the store")
        }
        // Start at the deepest directory on the way already reached (link-free) by this process.
        // Cache keys are normalized paths (DirectoryCache.key), whatever the registered root's spelling.
        let base = DirectoryCache.key(root)
        var depth = parts.count - 1
        var at = base + (depth > 0 ? "/" + Array(parts[0..<depth]).joined(by: "/") : "")
        var current: OpenDirectory? = nil
        while true {
            if let known = DirectoryCache.lookup(at) { current = known; break }
            if depth == 0 { break }
            depth -= 1
            at = base + (depth > 0 ? "/" + Array(parts[0..<depth]).joined(by: "/") : "")
        }
        var dir: OpenDirectory
        if let current {
            dir = current
        } else {
            let fd = Glibc.open(root, directoryFlags & ~O_NOFOLLOW)
            guard fd >= 0 else {
                if errno == ENOENT && !create { return nil }
                if errno == ENOENT {
                    try FileIO.makeDirectory(root)
                    return try walk(path, create: true)
                }
                throw CKError.internalError("cannot open \(root): \(FileIO.errnoText())")
            }
            dir = OpenDirectory(fd: fd)
            DirectoryCache.remember(base, dir)
        }
        for part in parts[depth..<(parts.count - 1)] {
            at += "/" + part
            var next = openat(dir.fd, part, directoryFlags)
            if next < 0 && errno == ENOENT && create {
                if mkdirat(dir.fd, part, 0o755) != 0 && errno != EEXIST {
                    throw CKError.internalError("cannot create directory \(at): \(FileIO.errnoText())")
                }
                next = openat(dir.fd, part, directoryFlags)
            }
            if next < 0 {
                let failure = errno
                if failure == ENOENT { return nil }
                if failure == ENOTDIR || failure == ELOOP {
                    var st = Glibc.stat()
                    if fstatat(dir.fd, part, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == S_IFLNK {
                        throw FileIO.refusedSymlink(at)
                    }
                    throw CKError.corrupt(path: at, "is not a directory")
                }
                throw CKError.internalError("cannot open \(at): \(String(cString: strerror(failure)))")
            }
            dir = OpenDirectory(fd: next)
            DirectoryCache.remember(at, dir)
        }
        return ParentDirectory(dir, name: last, path: path)
    }

    /// The parent and last component of a path spelled as `DirectoryCache.key` spells paths (absolute; no empty, `.`
    /// or `..` component; no trailing slash), or nil for any other spelling.
    package static func plainSplit(_ path: String) -> (parent: String, last: String)? {
        let found = path.utf8.withContiguousStorageIfAvailable { b -> Int? in
            guard b.count > 1, b[0] == UInt8(ascii: "/") else { return nil }
            var lastSlash = 0, length = 0, dotsOnly = true
            for i in 1..<b.count {
                if b[i] == UInt8(ascii: "/") {
                    if length == 0 || (dotsOnly && length <= 2) { return nil }
                    lastSlash = i
                    length = 0
                    dotsOnly = true
                } else {
                    length += 1
                    if b[i] != UInt8(ascii: ".") { dotsOnly = false }
                }
            }
            guard length > 0, !(dotsOnly && length <= 2), lastSlash > 0 else { return nil }
            return lastSlash
        }
        let u = path.utf8
        guard let cut = found ?? nil, case let at = u.index(u.startIndex, offsetBy: cut),
              let parent = String(u[..<at]), let last = String(u[u.index(after: at)...]) else { return nil }
        return (parent, last)
    }

    /// The directory at `path` itself, open (from the cache when reached before); nil when missing, throws when it
    /// is a link or a file. Not for reading entries: the descriptor may be shared, and with it a listing's offset.
    package static func directory(_ path: String) throws(CKError) -> OpenDirectory? {
        if let known = known(path) { return known }
        if StoreBoundary.isRoot(path) {
            // The root itself is followed, as a walk does: what leads to it is the user's choice.
            let fd = Glibc.open(path, directoryFlags & ~O_NOFOLLOW)
            if fd < 0 && errno == ENOENT { return nil }
            if fd < 0 && errno == ENOTDIR { throw CKError.corrupt(path: path, "is not a directory") }
            guard fd >= 0 else { throw CKError.internalError("cannot open \(path): \(FileIO.errnoText())") }
            let dir = OpenDirectory(fd: fd)
            DirectoryCache.remember(DirectoryCache.key(path), dir)
            return dir
        }
        guard let parent = try open(path), let fd = try parent.openDirectory() else { return nil }
        let dir = OpenDirectory(fd: fd)
        if StoreBoundary.root(containing: path) != nil { DirectoryCache.remember(DirectoryCache.key(path), dir) }
        return dir
    }

    /// The store directory (or root) at `path` when this process has it open already.
    package static func known(_ path: String) -> OpenDirectory? {
        guard StoreBoundary.isRoot(path) || StoreBoundary.root(containing: path) != nil else { return nil }
        return DirectoryCache.lookup(DirectoryCache.key(path))
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
