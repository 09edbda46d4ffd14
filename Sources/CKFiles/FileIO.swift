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

    /// Creates a new file with an unpredictable name beside `path` (O_EXCL, O_NOFOLLOW); returns its path and fd.
    package static func createTemporary(beside path: String) throws(CKError) -> (path: String, fd: Int32) {
        let dir = PathName.parent(path)
        // Short enough that a name of 255 bytes still fits after the prefix is cut.
        let name = String(PathName.last(path).prefix(200))
        while true {
            // Random, so it can't be guessed in advance; the pid last, so a leftover names the process that left it.
            let tmp = dir + "/." + name + ".tmp-" + String(UInt64.random(in: 0...UInt64.max), radix: 36) + "-\(getpid())"
            let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
            if fd >= 0 { return (tmp, fd) }
            if errno != EEXIST { throw CKError.internalError("cannot create \(tmp): \(errnoText())") }
        }
    }

    /// Replaces a file whole: a reader sees the old or the new content, never a mix, even after a crash.
    /// A symlink or other non-regular file at `path` is refused rather than replaced.
    package static func atomicWrite(_ path: String, _ bytes: [UInt8]) throws(CKError) {
        let dir = PathName.parent(path)
        var st = Glibc.stat()
        if lstat(path, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFLNK { throw refusedSymlink(path) }
            if (st.st_mode & S_IFMT) != S_IFREG { throw notRegular(path) }
        }
        let (tmp, fd) = try createTemporary(beside: path)
        do throws(CKError) {
            try writeAll(fd, bytes, path: tmp)
            guard fsync(fd) == 0 else { throw CKError.internalError("cannot sync \(tmp): \(errnoText())") }
        } catch {
            close(fd)
            unlink(tmp)
            throw error
        }
        close(fd)
        guard rename(tmp, path) == 0 else {
            let e = errnoText()
            unlink(tmp)
            throw CKError.internalError("cannot replace \(path): \(e)")
        }
        syncDirectory(dir)
    }

    /// Appends bytes and (unless told not to) fsyncs before returning.
    package static func append(_ path: String, _ bytes: [UInt8], sync: Bool = true) throws(CKError) {
        let existed = lexists(path)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        guard fd >= 0 else {
            if errno == ELOOP { throw refusedSymlink(path) }
            throw CKError.internalError("cannot open \(path): \(errnoText())")
        }
        defer { close(fd) }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw notRegular(path) }
        try writeAll(fd, bytes, path: path)
        if sync { guard fsync(fd) == 0 else { throw CKError.internalError("cannot sync \(path): \(errnoText())") } }
        if !existed { syncDirectory(PathName.parent(path)) }
    }

    /// fsyncs a file that was appended to without syncing.
    package static func sync(_ path: String) throws(CKError) {
        try DeferredSync(path)?.sync()
    }

    /// Size, inode, modification and status-change times (ns) of a file, or nil when it does not exist.
    /// The status-change time can't be set back (utimensat sets it to now), so it reveals an edit that kept
    /// the size and restored the modification time.
    package static func fileInfo(_ path: String) -> (size: Int, inode: Int64, mtime: Int64, ctime: Int64)? {
        var st = Glibc.stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (Int(st.st_size), Int64(st.st_ino), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
    }

    /// Cuts a file to `length` bytes (used to drop a torn last line) and syncs it.
    package static func truncate(_ path: String, to length: Int) throws(CKError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else {
            if errno == ELOOP { throw refusedSymlink(path) }
            throw CKError.internalError("cannot open \(path): \(errnoText())")
        }
        defer { close(fd) }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { throw notRegular(path) }
        guard ftruncate(fd, off_t(length)) == 0, fsync(fd) == 0 else {
            throw CKError.internalError("cannot truncate \(path): \(errnoText())")
        }
    }

    package static func syncDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    /// fsyncs every file and directory of a tree (what was built aside, before it is committed).
    package static func syncTree(_ path: String) throws(CKError) {
        var st = Glibc.stat()
        guard lstat(path, &st) == 0 else { return }
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
        var st = Glibc.stat()
        if lstat(path, &st) == 0 {
            if (st.st_mode & S_IFMT) == S_IFDIR { return }
            if (st.st_mode & S_IFMT) == S_IFLNK { throw refusedSymlink(path) }
            throw CKError.corrupt(path: path, "is not a directory")
        }
        let parent = PathName.parent(path)
        if !parent.isEmpty && parent != path { try makeDirectory(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST {
            throw CKError.internalError("cannot create directory \(path): \(errnoText())")
        }
        guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw CKError.corrupt(path: path, "is not a directory")
        }
    }

    package static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Whether anything (a dangling symlink included) is at `path`.
    package static func lexists(_ path: String) -> Bool {
        var st = Glibc.stat()
        return lstat(path, &st) == 0
    }

    /// Whether `path` is a symbolic link.
    package static func isSymlink(_ path: String) -> Bool {
        var st = Glibc.stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// A real directory (a symlink to one is not).
    package static func isDirectory(_ path: String) -> Bool {
        var st = Glibc.stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Names in a directory (empty when it does not exist), sorted.
    package static func list(_ dir: String) -> [String] {
        guard isDirectory(dir), let d = opendir(dir) else { return [] }
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

    /// Removes a tree: renamed aside first so a crash never leaves it half-removed under its real name.
    package static func removeTree(_ path: String) throws(CKError) {
        guard lexists(path) else { return }
        let dir = PathName.parent(path)
        // A short name: the original may already be as long as a file name can be.
        let trash = dir + "/" + deletingPrefix + String(UInt64.random(in: 0...UInt64.max), radix: 36) + "-\(getpid())"
        guard rename(path, trash) == 0 else { throw CKError.internalError("cannot remove \(path): \(errnoText())") }
        syncDirectory(dir)
        removeNow(trash)
    }

    /// The name prefix of a tree renamed aside by `removeTree` (a leftover is finished by the next writer or doctor).
    package static let deletingPrefix = ".deleting-"

    /// Removes a file or a tree in place; symlinks inside are removed, never followed.
    package static func removeNow(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
