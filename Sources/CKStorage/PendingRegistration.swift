#if canImport(Glibc)
import Glibc
import CKFiles
import CKModel
#endif

/// Users an operation on several files lists in container.json, staged in the environment by the operation's own
/// intent (`.register-pending.json`): it is in the environment exactly when the operation committed. container.json
/// is under the root lock, which is never taken while an environment's lock is held, so the users are listed just
/// after the environment's lock is released; if a crash comes first, the next operation in the environment lists
/// them. Either way the operation's data and its users' entries end up together.
package struct PendingRegistration {
    package static let fileName = ".register-pending.json"

    /// container.json's entries of the users, by name.
    package var users: [String: JSON]

    package init(users: [String: JSON]) { self.users = users }

    package var json: JSON { .object(["format": .int(1), "users": .object(users)]) }

    package var bytes: [UInt8] { Array(json.serialized().utf8) }

    package static func path(_ env: EnvironmentStore) -> String { env.dir + "/" + fileName }

    /// Whether a registration waits in `env` (one `lstat`: every operation asks). An interrupted operation that
    /// may be about to put one in is finished first, under the exclusive lock.
    package static func waits(_ env: EnvironmentStore) throws(CKError) -> Bool {
        if FileIO.lexists(env.dir + "/" + Intent.fileName) { try env.locked(exclusive: true) { () throws(CKError) in } }
        return FileIO.lexists(path(env))
    }

    /// The registration waiting in `env`, if any.
    package static func read(_ env: EnvironmentStore) throws(CKError) -> PendingRegistration? {
        let path = path(env)
        guard let o = try JSONFile.readObject(path) else { return nil }
        guard let users = o["users"]?.objectValue, users.allSatisfy({ (try? Names.validateUserName($0.key)) != nil }) else {
            throw CKError.corrupt(path: path, "not a record of users to list ck wrote")
        }
        return PendingRegistration(users: users)
    }

    /// Removes the record if it still holds `users` (another operation may have put its own since); call with the
    /// environment's exclusive lock held.
    package static func discard(_ env: EnvironmentStore, ifStill users: [String: JSON]) throws(CKError) {
        guard try read(env)?.users == users else { return }
        let path = path(env)
        guard unlink(path) == 0 || errno == ENOENT else { throw CKError.internalError("cannot remove \(path): \(FileIO.errnoText())") }
        FileIO.syncDirectory(env.dir)
    }
}
