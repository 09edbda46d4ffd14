import Foundation
#if canImport(Glibc)
import Glibc
import CKModel
#endif

/// Durable file operations: whole-file rewrites by temp file, fsync and rename; fsynced appends.
package enum FileIO {
    package static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Reads a whole file, or nil when it does not exist.
    package static func read(_ path: String) throws(CKError) -> [UInt8]? {
        try readTail(path, count: Int.max)
    }

    /// Reads a file from byte `offset` to its end, or nil when it does not exist.
    package static func read(_ path: String, from offset: Int) throws(CKError) -> [UInt8]? {
        try readRange(path, from: offset, count: Int.max)
    }

    /// The last `count` bytes of a file (all of it when shorter), or nil when it does not exist.
    package static func readTail(_ path: String, count: Int) throws(CKError) -> [UInt8]? {
        try readRange(path, from: nil, count: count)
    }

    /// `count` bytes from `offset` (nil: the last `count` bytes), fewer at the end of the file.
    package static func readRange(_ path: String, from offset: Int?, count: Int) throws(CKError) -> [UInt8]? {
        try ReadHandle(path)?.read(from: offset, count: count)
    }

    /// A file ck would open inside the store is a symlink: refused, so nothing outside the store is touched.
    package static func refusedSymlink(_ path: String) -> CKError {
        CKError.corrupt(path: path, "is a symbolic link; ck does not follow links inside the store")
    }

    package static func notRegular(_ path: String) -> CKError {
        CKError.corrupt(path: path, "is not a regular file")
    }

    /// Writes all of `bytes`, going on after short writes and EINTR; any other failure is an error.
    package static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(CKError) {
        var failure: CKError? = nil
        bytes.withUnsafeBytes { buf in
            do throws(CKError) { try writeAll(fd, buf, path: path) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Writes a whole buffer. Each write(2) is at most `chunk` bytes (1 GiB; Linux writes at most 0x7FFFF000
    /// bytes a call, and tests make it small), and the offset always advances by what the call reported.
    package static func writeAll(_ fd: Int32, _ buf: UnsafeRawBufferPointer, path: String, chunk: Int = 1 << 30) throws(CKError) {
        guard let base = buf.baseAddress else { return }
        var done = 0
        while done < buf.count {
            let n = write(fd, base + done, min(buf.count - done, chunk))
            if n < 0 { if errno == EINTR { continue }; throw CKError.internalError("cannot write \(path): \(errnoText())") }
            if n == 0 { throw CKError.internalError("cannot write \(path): no progress (device full?)") }
            done += n
        }
    }

    /// Creates a new file with an unpredictable name in `parent`'s directory beside its last component (O_EXCL,
    /// O_NOFOLLOW); returns its name in that directory and its fd.
    package static func createTemporary(in parent: ParentDirectory) throws(CKError) -> (name: String, fd: Int32) {
        // Short enough that a name of 255 bytes still fits after the prefix is cut.
        let name = String(parent.name.prefix(200))
        while true {
            // Random, so it can't be guessed in advance; the pid last, so a leftover names the process that left it.
            let tmp = "." + name + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36) + "-\(getpid())"
            let fd = openat(parent.fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
            if fd >= 0 { return (tmp, fd) }
            if errno != EEXIST { throw CKError.internalError("cannot create \(PathName.parent(parent.path))/\(tmp): \(errnoText())") }
        }
    }

    /// The parent directory of a file ck is about to create or open; an error when a directory on the way is missing.
    static func existingParent(_ path: String) throws(CKError) -> ParentDirectory {
        guard let p = try ParentDirectory.open(path) else {
            throw CKError.internalError("cannot open \(path): \(String(cString: strerror(ENOENT)))")
        }
        return p
    }

    /// Replaces a file whole: a reader sees the old or the new content, never a mix, even after a crash.
    /// A symlink or other non-regular file at `path` is refused rather than replaced.
    package static func atomicWrite(_ path: String, _ bytes: [UInt8]) throws(CKError) {
        try atomicWrite(path) { (put) throws(CKError) in try put(bytes) }
    }

    /// The same, with the bytes handed to `put` a piece at a time by `produce`; when `produce` fails, the file is
    /// left as it was.
    package static func atomicWrite(_ path: String, produce: (_ put: @escaping ([UInt8]) throws(CKError) -> Void) throws(CKError) -> Void) throws(CKError) {
        let parent = try existingParent(path)
        switch parent.kind() {
        case nil, S_IFREG?: break
        case S_IFLNK?: throw refusedSymlink(path)
        default: throw notRegular(path)
        }
        let (tmp, fd) = try createTemporary(in: parent)
        let tmpPath = PathName.parent(path) + "/" + tmp
        do throws(CKError) {
            try produce { (bytes) throws(CKError) in try writeAll(fd, bytes, path: tmpPath) }
            guard fsync(fd) == 0 else { throw CKError.internalError("cannot sync \(tmpPath): \(errnoText())") }
        } catch {
            close(fd)
            unlinkat(parent.fd, tmp, 0)
            throw error
        }
        close(fd)
        guard renameat(parent.fd, tmp, parent.fd, parent.name) == 0 else {
            let e = errnoText()
            unlinkat(parent.fd, tmp, 0)
            throw CKError.internalError("cannot replace \(path): \(e)")
        }
        fsync(parent.fd)
    }

    /// Opens a store file for writing (O_NOFOLLOW on every component); a link or a non-regular file is refused.
    private static func openForWriting(_ parent: ParentDirectory, _ flags: Int32) throws(CKError) -> Int32 {
        let fd = parent.openLast(flags | O_WRONLY | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ELOOP { throw refusedSymlink(parent.path) }
            throw CKError.internalError("cannot open \(parent.path): \(errnoText())")
        }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { close(fd); throw notRegular(parent.path) }
        return fd
    }

    /// Appends bytes and (unless told not to) fsyncs before returning.
    package static func append(_ path: String, _ bytes: [UInt8], sync: Bool = true) throws(CKError) {
        let parent = try existingParent(path)
        let existed = parent.kind() != nil
        let fd = try openForWriting(parent, O_APPEND | O_CREAT)
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
        if sync { guard fsync(fd) == 0 else { throw CKError.internalError("cannot sync \(path): \(errnoText())") } }
        if !existed { fsync(parent.fd) }
    }

    /// fsyncs a file that was appended to without syncing.
    package static func sync(_ path: String) throws(CKError) {
        try DeferredSync(path)?.sync()
    }

    /// What is at `path`, not following a link at any component inside the store: nil when nothing is there or
    /// a directory on the way is missing or is a link (what is reached through a link is never ck's).
    package static func status(_ path: String) -> Glibc.stat? {
        guard let parent = try? ParentDirectory.open(path) else { return nil }
        var st = Glibc.stat()
        return fstatat(parent.fd, parent.name, &st, AT_SYMLINK_NOFOLLOW) == 0 ? st : nil
    }

    /// Size, inode, modification and status-change times (ns) of a file, or nil when it does not exist.
    /// The status-change time can't be set back (utimensat sets it to now), so it reveals an edit that kept
    /// the size and restored the modification time.
    package static func fileInfo(_ path: String) -> (size: Int, inode: Int64, mtime: Int64, ctime: Int64)? {
        (try? info(path)) ?? nil
    }

    /// `fileInfo` for a file ck reads next (a zone log): a link at the file or on the way is refused by name
    /// rather than read as a missing file, which would hide the data behind it.
    package static func info(_ path: String) throws(CKError) -> (size: Int, inode: Int64, mtime: Int64, ctime: Int64)? {
        guard let parent = try ParentDirectory.open(path) else { return nil }
        var st = Glibc.stat()
        guard fstatat(parent.fd, parent.name, &st, AT_SYMLINK_NOFOLLOW) == 0 else { return nil }
        if (st.st_mode & S_IFMT) == S_IFLNK { throw refusedSymlink(path) }
        return (Int(st.st_size), Int64(st.st_ino), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }

    /// Cuts a file to `length` bytes (used to drop a torn last line) and syncs it.
    package static func truncate(_ path: String, to length: Int) throws(CKError) {
        let fd = try openForWriting(try existingParent(path), 0)
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0, fsync(fd) == 0 else {
            throw CKError.internalError("cannot truncate \(path): \(errnoText())")
        }
    }

    /// Refuses a path a library opens by name (SQLite) when a directory on the way, or the file itself, is a link.
    package static func refuseLinks(_ path: String) throws(CKError) {
        if try ParentDirectory.open(path)?.kind() == S_IFLNK { throw refusedSymlink(path) }
    }

    /// Refuses the directory `dir` when any of `names` in it is a symbolic link: a command checks the directories
    /// it lists (a listing can't tell a missing directory from a link it won't follow) before it reads them.
    package static func refuseLinks(in dir: String, _ names: [String]) throws(CKError) {
        guard let directory = try ParentDirectory.directory(dir) else { return }
        for name in names {
            var st = Glibc.stat()
            if fstatat(directory.fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && (st.st_mode & S_IFMT) == S_IFLNK {
                throw refusedSymlink(dir + "/" + name)
            }
        }
    }

    /// Opens a directory of the store (no link followed at any component); nil when it is missing or can't be reached.
    package static func openDirectory(_ dir: String) -> Int32? {
        // A directory already open is reopened through itself: one openat, a descriptor (and offset) of its own.
        if let known = ParentDirectory.known(dir) {
            let fd = openat(known.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            return fd >= 0 ? fd : nil
        }
        guard let parent = try? ParentDirectory.open(dir) else { return nil }
        return (try? parent.openDirectory()) ?? nil
    }

    package static func syncDirectory(_ dir: String) {
        if let fd = openDirectory(dir) { fsync(fd); close(fd) }
    }

    /// fsyncs every file and directory of a tree (what was built aside, before it is committed).
    package static func syncTree(_ path: String) throws(CKError) {
        guard let st = status(path) else { return }
        if (st.st_mode & S_IFMT) == S_IFDIR {
            for name in list(path) { try syncTree(path + "/" + name) }
            syncDirectory(path)
        } else if (st.st_mode & S_IFMT) == S_IFREG {
            try sync(path)
        }
    }

    /// Makes a directory and its missing parents. A symlink (or a file) on the way is refused, so a planted
    /// link can't send ck's files out of the store.
    package static func makeDirectory(_ path: String) throws(CKError) {
        let parent = try ParentDirectory.make(path)
        if parent.kind() == nil, mkdirat(parent.fd, parent.name, 0o755) != 0 && errno != EEXIST {
            throw CKError.internalError("cannot create directory \(path): \(errnoText())")
        }
        switch parent.kind() {
        case S_IFDIR?: return
        case S_IFLNK?: throw refusedSymlink(path)
        default: throw CKError.corrupt(path: path, "is not a directory")
        }
    }

    /// Makes a directory that must not exist yet (its parent must).
    package static func makeNewDirectory(_ path: String) throws(CKError) {
        let parent = try existingParent(path)
        guard mkdirat(parent.fd, parent.name, 0o755) == 0 else {
            throw CKError.internalError("cannot create \(path): \(errnoText())")
        }
    }

    /// Whether something is at `path`. Inside the store nothing is followed (a link counts as there); a path
    /// whose directory on the way is a link counts as there too, so the read or write that follows refuses it
    /// by name rather than treating it as missing. Outside the store, links are followed as usual.
    package static func exists(_ path: String) -> Bool {
        guard StoreBoundary.root(containing: path) != nil else { return access(path, F_OK) == 0 }
        return lexists(path)
    }

    /// Whether anything (a dangling symlink included) is at `path`; true when a directory on the way is a link
    /// (see `exists`).
    package static func lexists(_ path: String) -> Bool {
        do throws(CKError) {
            guard let parent = try ParentDirectory.open(path) else { return false }
            return parent.kind() != nil
        } catch { return true }
    }

    /// Whether `path` is a symbolic link.
    package static func isSymlink(_ path: String) -> Bool {
        status(path).map { ($0.st_mode & S_IFMT) == S_IFLNK } ?? false
    }

    /// A real directory (a symlink to one is not).
    package static func isDirectory(_ path: String) -> Bool {
        status(path).map { ($0.st_mode & S_IFMT) == S_IFDIR } ?? false
    }

    /// Names in a directory (empty when it does not exist or is not a real directory), sorted.
    package static func list(_ dir: String) -> [String] {
        guard let fd = openDirectory(dir) else { return [] }
        return list(fd: fd)
    }

    /// Names in an open directory, sorted; the fd is consumed (closed).
    package static func list(fd: Int32) -> [String] {
        guard let d = fdopendir(fd) else { close(fd); return [] }
        defer { closedir(d) }
        // readdir(3), not FileManager: every command lists the store's intent directory.
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Renames a file or directory of the store (renameat; no link followed on the way to either).
    package static func rename(_ from: String, _ to: String) throws(CKError) {
        let a = try existingParent(from), b = try existingParent(to)
        DirectoryCache.forget(from)
        DirectoryCache.forget(to)
        guard renameat(a.fd, a.name, b.fd, b.name) == 0 else {
            throw CKError.internalError("cannot move \(from) to \(to): \(errnoText())")
        }
    }

    /// Removes a file (unlinkat: a link is removed itself); missing is fine.
    package static func unlink(_ path: String) throws(CKError) {
        guard let parent = try ParentDirectory.open(path) else { return }
        guard unlinkat(parent.fd, parent.name, 0) == 0 || errno == ENOENT else {
            throw CKError.internalError("cannot remove \(path): \(errnoText())")
        }
    }

    /// Removes an empty directory; false when it could not be removed.
    @discardableResult
    package static func removeEmptyDirectory(_ path: String) -> Bool {
        guard let parent = try? ParentDirectory.open(path) else { return false }
        DirectoryCache.forget(path)
        return unlinkat(parent.fd, parent.name, AT_REMOVEDIR) == 0
    }

    /// Removes a tree: renamed aside first so a crash never leaves it half-removed under its real name.
    package static func removeTree(_ path: String) throws(CKError) {
        guard let parent = try ParentDirectory.open(path), parent.kind() != nil else { return }
        DirectoryCache.forget(path)
        // A short name: the original may already be as long as a file name can be.
        let trash = deletingPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 36) + "-\(getpid())"
        guard renameat(parent.fd, parent.name, parent.fd, trash) == 0 else {
            throw CKError.internalError("cannot remove \(path): \(errnoText())")
        }
        fsync(parent.fd)
        removeEntry(parent.fd, trash)
    }

    /// The name prefix of a tree renamed aside by `removeTree` (a leftover is finished by the next writer or doctor).
    package static let deletingPrefix = ".deleting-"

    /// Removes a file or a tree in place; symlinks inside are removed, never followed.
    package static func removeNow(_ path: String) {
        guard let parent = try? ParentDirectory.open(path) else { return }
        DirectoryCache.forget(path)
        removeEntry(parent.fd, parent.name)
    }

    /// Removes `name` in the open directory `dir`: a directory's entries first, each opened with O_NOFOLLOW.
    private static func removeEntry(_ dir: Int32, _ name: String) {
        if unlinkat(dir, name, 0) == 0 || errno == ENOENT { return }
        let fd = openat(dir, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return }
        let d = dup(fd)
        if d >= 0 { for entry in list(fd: d) { removeEntry(fd, entry) } }
        close(fd)
        unlinkat(dir, name, AT_REMOVEDIR)
    }
}
