import Foundation
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
    /// container.json.
    package var infoFile: ContainerFile { ContainerFile(path: store.files.containerInfoPath(identifier)) }

    /// The user record name for a user name: `_` and 32 hex digits, stable for the name.
    public static func userRecordName(for user: String) -> String {
        Caller.userRecordName(for: user)
    }

    /// container.json as stored.
    public func info() throws(CKError) -> JSON {
        guard let o = try infoFile.read() else { throw missing }
        try ContainerFile.check(o, path: infoFile.path)
        return .object(o)
    }

    package var missing: CKError { CKError(.badContainer, "container '\(identifier)' does not exist") }

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
