import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Durable file operations: whole-file rewrites by temp file, fsync and rename; fsynced appends.
enum FileIO {
    static func errnoText() -> String { String(cString: strerror(errno)) }

    /// Reads a whole file, or nil when it does not exist.
    static func read(_ path: String) throws(CKError) -> [UInt8]? {
        try readTail(path, count: Int.max)
    }

    /// Reads a file from byte `offset` to its end, or nil when it does not exist.
    static func read(_ path: String, from offset: Int) throws(CKError) -> [UInt8]? {
        try readRange(path, from: offset, count: Int.max)
    }

    /// The last `count` bytes of a file (all of it when shorter), or nil when it does not exist.
    static func readTail(_ path: String, count: Int) throws(CKError) -> [UInt8]? {
        try readRange(path, from: nil, count: count)
    }

    /// `count` bytes from `offset` (nil: the last `count` bytes), fewer at the end of the file.
    static func readRange(_ path: String, from offset: Int?, count: Int) throws(CKError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw CKError.internalError("cannot read \(path): \(errnoText())")
        }
        defer { close(fd) }
        var st = Glibc.stat()
        guard fstat(fd, &st) == 0 else { throw CKError.internalError("cannot stat \(path): \(errnoText())") }
        let size = Int(st.st_size)
        let start = offset.map { min(max(0, $0), size) } ?? size - min(size, count)
        var out = [UInt8](repeating: 0, count: min(size - start, count))
        var done = 0
        while done < out.count {
            let n = out.withUnsafeMutableBytes { buf -> Int in
                guard let base = buf.baseAddress else { return 0 }
                return pread(fd, base + done, buf.count - done, off_t(start + done))
            }
            if n < 0 { if errno == EINTR { continue }; throw CKError.internalError("cannot read \(path): \(errnoText())") }
            if n == 0 { break }
            done += n
        }
        if done < out.count { out.removeLast(out.count - done) }
        return out
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(CKError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { buf -> Int in
                guard let base = buf.baseAddress else { return 0 }
                return write(fd, base + done, buf.count - done)
            }
            if n < 0 { if errno == EINTR { continue }; throw CKError.internalError("cannot write \(path): \(errnoText())") }
            done += n
        }
    }

    /// Replaces a file whole: a reader sees the old or the new content, never a mix, even after a crash.
    static func atomicWrite(_ path: String, _ bytes: [UInt8]) throws(CKError) {
        let dir = (path as NSString).deletingLastPathComponent
        let tmp = dir + "/." + (path as NSString).lastPathComponent + ".tmp-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CKError.internalError("cannot create \(tmp): \(errnoText())") }
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
    static func append(_ path: String, _ bytes: [UInt8], sync: Bool = true) throws(CKError) {
        let existed = access(path, F_OK) == 0
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw CKError.internalError("cannot open \(path): \(errnoText())") }
        defer { close(fd) }
        try writeAll(fd, bytes, path: path)
        if sync { guard fsync(fd) == 0 else { throw CKError.internalError("cannot sync \(path): \(errnoText())") } }
        if !existed { syncDirectory((path as NSString).deletingLastPathComponent) }
    }

    /// fsyncs a file that was appended to without syncing.
    static func sync(_ path: String) throws(CKError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw CKError.internalError("cannot sync \(path): \(errnoText())") }
    }

    /// Size, inode and modification time (ns) of a file, or nil when it does not exist.
    static func fileInfo(_ path: String) -> (size: Int, inode: Int64, mtime: Int64)? {
        var st = Glibc.stat()
        guard lstat(path, &st) == 0 else { return nil }
        return (Int(st.st_size), Int64(st.st_ino), Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }

    /// Cuts a file to `length` bytes (used to drop a torn last line) and syncs it.
    static func truncate(_ path: String, to length: Int) throws(CKError) {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CKError.internalError("cannot open \(path): \(errnoText())") }
        defer { close(fd) }
        guard ftruncate(fd, off_t(length)) == 0, fsync(fd) == 0 else {
            throw CKError.internalError("cannot truncate \(path): \(errnoText())")
        }
    }

    static func syncDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 { fsync(fd); close(fd) }
    }

    static func makeDirectory(_ path: String) throws(CKError) {
        do { try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true) } catch {
            throw CKError.internalError("cannot create directory \(path): \(error.localizedDescription)")
        }
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    static func isDirectory(_ path: String) -> Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDir) && isDir.boolValue
    }

    /// Names in a directory (empty when it does not exist), sorted.
    static func list(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted()
    }

    /// Removes a tree: renamed aside first so a crash never leaves it half-removed under its real name.
    static func removeTree(_ path: String) throws(CKError) {
        guard exists(path) else { return }
        let dir = (path as NSString).deletingLastPathComponent
        // A short name: the original may already be as long as a file name can be.
        let trash = dir + "/.deleting-\(UInt32.random(in: 0...UInt32.max))-\(getpid())"
        guard rename(path, trash) == 0 else { throw CKError.internalError("cannot remove \(path): \(errnoText())") }
        syncDirectory(dir)
        try? FileManager.default.removeItem(atPath: trash)
    }
}
