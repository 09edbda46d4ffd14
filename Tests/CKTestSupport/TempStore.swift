import Foundation
import CKCore

/// A fresh store in a temporary directory, opened as a program embedding the emulator opens one (public API
/// only); removed when the value goes away.
public final class TempStore {
    public let dir: String
    public let store: CKStore

    public init() throws {
        dir = NSTemporaryDirectory() + "ck-test-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        store = try CKStore.open(StoreLocation(path: dir + "/store", source: .flag))
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    /// A database of the default container as `user` sees it.
    public func db(_ scope: DatabaseScope = .private, _ env: CKCore.Environment = .development, user: String = "default") throws -> CKDatabase {
        try store.container().database(scope, environment: env, user: user)
    }

    /// The default container's development tree.
    public var envDir: String { dir + "/store/containers/" + CKStore.defaultContainerID + "/development" }

    /// A file's text, or "" when it can't be read.
    public func read(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }
}

/// The CKError a throwing call ends with, or nil.
public func ckError(_ body: () throws -> Void) -> CKError? {
    do { try body(); return nil } catch let e as CKError { return e } catch { return nil }
}
