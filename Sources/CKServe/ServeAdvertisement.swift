import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CKModel
import CKFiles
import CKServer

/// Where a running `ck serve` says it listens: `<store>/serve.json` `{url, pid, started}`, written once the port
/// is bound and removed on exit, so `ck serve log` finds the server of a store from another terminal.
public enum ServeAdvertisement {
    /// The file's name in the store root (listed in `StoreLayout`).
    public static let fileName = "serve.json"

    /// What a server advertised.
    public struct Advertised: Sendable, Equatable {
        /// `http://HOST:PORT`.
        public var url: String
        /// The server's process id.
        public var pid: Int32
        /// When it started, ms since 1970.
        public var started: Int64
    }

    /// This process's id.
    public static var currentPID: Int32 { getpid() }

    /// The file's path for a store root.
    public static func path(store root: String) -> String { root + "/" + fileName }

    /// Advertises this process as the store's server at `url`: written atomically, a symlink in its place refused.
    public static func write(url: String, store: CKStore) throws(CKError) {
        let doc: JSON = .object(["url": .string(url), "pid": .int(Int64(currentPID)), "started": .int(store.now())])
        try FileIO.atomicWrite(path(store: store.root), Array((doc.pretty() + "\n").utf8))
    }

    /// What the store's server advertised; nil when no file is there. A file that is not one ck wrote is an error
    /// naming it.
    public static func read(store root: String) throws(CKError) -> Advertised? {
        let p = path(store: root)
        if FileIO.isSymlink(p) { throw FileIO.refusedSymlink(p) }
        guard let bytes = try FileIO.read(p) else { return nil }
        guard let json = try? JSON.parse(utf8: bytes), let url = json["url"]?.stringValue,
              let pid = json["pid"]?.int64Value, let p32 = Int32(exactly: pid) else {
            throw CKError(.internalError, "\(p): not a ck serve advertisement ({url, pid, started})",
                          hint: "remove it; a running ck serve writes it again when it starts")
        }
        return Advertised(url: url, pid: p32, started: json["started"]?.int64Value ?? 0)
    }

    /// Removes the advertisement if it is this process's (another server may have taken the store over since).
    public static func remove(store: CKStore) {
        let p = path(store: store.root)
        guard let a = try? read(store: store.root), a.pid == currentPID else { return }
        try? FileIO.unlink(p)
    }

    /// Whether a process with this id exists (one of another user's counts).
    public static func isRunning(_ pid: Int32) -> Bool {
        pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)
    }
}
