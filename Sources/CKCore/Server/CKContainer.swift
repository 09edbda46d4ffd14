import Foundation

/// An iCloud user known to a container.
public struct ContainerUser: Equatable, Sendable {
    public var name: String
    public var userRecordName: String
}

/// A container: its users and its databases in each environment.
public struct CKContainer: Sendable {
    public let store: CKStore
    public let identifier: String

    /// The user `ck` acts as when no `--as` is given.
    public static let defaultUserName = "default"
    /// Owner name of public-database zones.
    public static let publicOwner = "_defaultOwner"

    var dir: String { store.containerDir(identifier) }
    var infoPath: String { dir + "/container.json" }

    /// The user record name for a user name: `_` and 32 hex digits, stable for the name.
    /// A name that already has that shape is taken as a user record name.
    public static func userRecordName(for user: String) -> String {
        if user.hasPrefix("_"), user.utf8.count == 33, user.utf8.dropFirst().allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) {
            return user
        }
        return "_" + String(SHA256.hex(Array(("ck-user:" + user).utf8)).prefix(32))
    }

    /// container.json as stored.
    public func info() throws(CKError) -> JSON {
        guard let o = try JSONFile.readObject(infoPath) else { throw CKError(.badContainer, "container '\(identifier)' does not exist") }
        return .object(o)
    }

    /// Users that have written to this container.
    public func users() throws(CKError) -> [ContainerUser] {
        let users = try info()["users"]?.objectValue ?? [:]
        return users.keys.sorted().map { ContainerUser(name: $0, userRecordName: users[$0]?["userRecordName"]?.stringValue ?? CKContainer.userRecordName(for: $0)) }
    }

    /// Records a user in container.json the first time it writes.
    func register(user: String) throws(CKError) {
        if try info()["users"]?[user] != nil { return }
        let lock = try FileLock(path: store.lockPath, exclusive: true)
        defer { lock.unlock() }
        guard var o = try JSONFile.readObject(infoPath) else { throw CKError(.badContainer, "container '\(identifier)' does not exist") }
        var users = o["users"]?.objectValue ?? [:]
        if users[user] != nil { return }
        users[user] = .object(["userRecordName": .string(CKContainer.userRecordName(for: user)),
                               "accountStatus": .string("available"), "created": .int(store.now())])
        o["users"] = .object(users)
        try JSONFile.write(infoPath, .object(o))
    }

    /// A database of this container, seen by `user` in `environment`.
    public func database(_ scope: DatabaseScope, environment: Environment, user: String = CKContainer.defaultUserName) throws(CKError) -> CKDatabase {
        try Names.validateUserName(user)
        return CKDatabase(container: self, scope: scope, environment: environment, user: user)
    }

    /// The schema of an environment.
    public func schema(_ environment: Environment) throws(CKError) -> Schema {
        let env = EnvironmentStore(containerDir: dir, environment: environment)
        return try env.locked(exclusive: false) { () throws(CKError) in try env.readSchema() }
    }
}
