import Foundation
import CKCore

/// A store in a fresh temporary directory, as a program embedding the emulator would open one; removed at the end.
final class TemporaryStore {
    let directory: String
    let store: CKStore

    init() throws {
        directory = NSTemporaryDirectory() + "ck-public-api-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        store = try CKStore.open(StoreLocation(path: directory + "/store", source: .flag))
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// A new handle on one user's private database of the default container, as each device of a user has its own.
    func privateDatabase(user: String) throws -> CKDatabase {
        try store.container().database(.private, environment: .development, user: user)
    }
}
