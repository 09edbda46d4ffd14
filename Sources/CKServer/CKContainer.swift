import Foundation
import CKFiles
import CKModel
import CKSchema
import CKStorage

/// An iCloud user known to a container.
public struct ContainerUser: Equatable, Sendable {
    public var name: String
    public var userRecordName: String
    public var accountStatus: AccountStatus = .available
    /// When the container first met the user (ms since 1970).
    public var created: Int64 = 0
    /// Custom roles assigned to the user, per environment.
    public var roles: [Environment: [String]] = [:]

    /// A user as the container lists it before it was ever met: available, no roles.
    public init(name: String) {
        self.name = name
        self.userRecordName = CKContainer.userRecordName(for: name)
    }
}

/// A container: its users and its databases in each environment.
public struct CKContainer: Sendable {
    public let store: CKStore
    public let identifier: String

    /// The user `ck` acts as when no `--as` is given.
    public static let defaultUserName = "default"
    /// Owner name of public-database zones.
    public static let publicOwner = ZoneID.publicOwner

    package var dir: String { store.containerDir(identifier) }
    package var infoPath: String { dir + "/container.json" }

    /// The user record name for a user name: `_` and 32 hex digits, stable for the name.
    public static func userRecordName(for user: String) -> String {
        Caller.userRecordName(for: user)
    }

    /// container.json as stored.
    public func info() throws(CKError) -> JSON {
        guard let o = try JSONFile.readObject(infoPath) else { throw CKError(.badContainer, "container '\(identifier)' does not exist") }
        try CKContainer.checkInfo(o, path: infoPath)
        return .object(o)
    }

    /// container.json's shape: a file of another shape is reported with its path, never overwritten.
    package static func checkInfo(_ o: [String: JSON], path: String) throws(CKError) {
        func bad(_ why: String) -> CKError { CKError.corrupt(path: path, why) }
        guard o["identifier"]?.stringValue != nil else { throw bad("\"identifier\" is missing or not a string") }
        guard let users = o["users"] else { return }
        guard let list = users.objectValue else { throw bad("\"users\" is not an object") }
        for (name, entry) in list {
            guard let e = entry.objectValue else { throw bad("users.\(Names.describe(name)) is not an object") }
            if let s = e["accountStatus"], s.stringValue.flatMap(AccountStatus.init(rawValue:)) == nil {
                throw bad("users.\(Names.describe(name)).accountStatus is not one of " + AccountStatus.allCases.map(\.rawValue).joined(separator: ", "))
            }
            if let r = e["roles"] {
                guard let byEnv = r.objectValue, byEnv.values.allSatisfy({ $0.arrayValue?.allSatisfy { $0.stringValue != nil } == true }) else {
                    throw bad("users.\(Names.describe(name)).roles is not an object of string arrays by environment")
                }
            }
        }
    }

    /// A database of this container, seen by `user` in `environment`.
    public func database(_ scope: DatabaseScope, environment: Environment, user: String = CKContainer.defaultUserName) throws(CKError) -> CKDatabase {
        CKDatabase(container: self, scope: scope, environment: environment, caller: try Caller.user(user))
    }

    /// A database of this container, seen by `caller` in `environment`.
    public func database(_ scope: DatabaseScope, environment: Environment, caller: Caller) -> CKDatabase {
        CKDatabase(container: self, scope: scope, environment: environment, caller: caller)
    }

    /// The schema of an environment.
    public func schema(_ environment: Environment) throws(CKError) -> Schema {
        let env = EnvironmentStore(containerDir: dir, environment: environment)
        return try env.locked(exclusive: false) { () throws(CKError) in try env.readSchema() }
    }
}
