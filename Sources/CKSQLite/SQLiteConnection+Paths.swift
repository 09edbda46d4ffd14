import CckSQLite
#if canImport(Glibc)
import Glibc
#endif

extension SQLiteConnection {
    /// The VFS ck opens its databases through: the platform's own, except that an absolute path is taken as the
    /// file's full name as it is. SQLite's would lstat every component of the path to resolve links, on every
    /// open; ck has already walked the path without following links (`FileIO.refuseLinks`) and SQLite still
    /// opens the file itself with O_NOFOLLOW. Nil when it could not be registered (the platform's is used).
    static let vfsName: String? = registerVFS()

    private static func registerVFS() -> String? {
        guard let base = sqlite3_vfs_find("unix"), let name = strdup("ck-unix") else { return nil }
        // Lives as long as the process: SQLite keeps the pointer once registered.
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        // A copy keeps the platform's methods and its pAppData (which its methods read through the pointer they get).
        vfs.initialize(to: base.pointee)
        vfs.pointee.zName = UnsafePointer(name)
        vfs.pointee.pNext = nil
        vfs.pointee.xFullPathname = { _, path, size, out in
            guard let path, let out else { return SQLITE_CANTOPEN }
            // A relative path needs the working directory joined: the platform's does that.
            guard path.pointee == 0x2F, let n = Optional(strlen(path)), n < Int(size) else {
                guard let unix = sqlite3_vfs_find("unix"), let full = unix.pointee.xFullPathname else { return SQLITE_CANTOPEN }
                return full(unix, path, size, out)
            }
            memcpy(out, path, n + 1)
            return SQLITE_OK
        }
        guard sqlite3_vfs_register(vfs, 0) == SQLITE_OK else { return nil }
        return "ck-unix"
    }
}
