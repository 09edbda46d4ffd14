import Foundation
import CKModel
import CKStorage

/// One database (public, private or shared) of a container, in one environment, as one caller sees it. A handle
/// for one thread at a time, as a connection is (it keeps the environment's opened index and its warnings); make
/// one per thread or request — they are cheap — and share the `CKStore`, which is Sendable.
public final class CKDatabase {
    public let container: CKContainer
    public let scope: DatabaseScope
    public let environment: Environment
    /// Who performs this database's operations: fixed for the handle (a device has a handle of its own).
    public let caller: Caller
    /// The caller's user name ("" when nobody is signed in).
    public var user: String { caller.userName ?? "" }
    /// The caller's user record name ("" when nobody is signed in: such a caller owns nothing).
    public let userRecordName: String
    package let env: EnvironmentStore
    /// Where the caller's `@file` values are read from (the caller's own reader; none by default).
    public var files = FileSource.none
    /// The device that writes through this database: stamped as `deviceID` in created/modified.
    public var deviceID: String { caller.deviceID }

    /// CloudKit's limit on operations in one request.
    public static let maxOperationsPerRequest = 200
    /// CloudKit's limit on a record's size, assets excluded.
    public static let maxRecordSize = 1_048_576

    package init(container: CKContainer, scope: DatabaseScope, environment: Environment, caller: Caller) {
        self.container = container
        self.scope = scope
        self.environment = environment
        self.caller = caller
        self.userRecordName = caller.userRecordName ?? ""
        self.env = EnvironmentStore(containerDir: container.dir, environment: environment, indexEnabled: container.store.indexEnabled)
    }

    /// A database as its owner sees it, named by user record name (for checks of stored data, not for callers).
    package init(container: CKContainer, scope: DatabaseScope, environment: Environment, owner userRecordName: String) {
        self.container = container
        self.scope = scope
        self.environment = environment
        self.caller = Caller(userName: nil, deviceID: RecordStamp.deviceID)
        self.userRecordName = userRecordName
        self.env = EnvironmentStore(containerDir: container.dir, environment: environment, indexEnabled: container.store.indexEnabled)
    }

    package var store: CKStore { container.store }

    /// Warnings met while reading this database's files, and notes about what could not be recorded.
    public var warnings: [Diagnostic] { env.warnings + notes }
    package var notes: [Diagnostic] = []

    /// The zone ID of a zone name in this database.
    public func zoneID(_ name: String) -> ZoneID {
        ZoneID(zoneName: name, ownerRecordName: scope == .public ? CKContainer.publicOwner : userRecordName)
    }

    /// Finds a zone, or throws zoneNotFound with a next step.
    package func resolveZone(_ name: String, catalog: ZoneCatalog) throws(CKError) -> Zone {
        try Names.validateZoneName(name)
        switch scope {
        case .shared:
            return try resolveSharedZone(name, directory: try ShareDirectory(env: env, catalog: catalog))
        case .public:
            guard name == Names.defaultZoneName else {
                throw CKError(.zoneNotFound, "Zone '\(name)' does not exist: the public database has only _defaultZone",
                              hint: "custom zones exist only in the private database (--db private)")
            }
            return Zone(zoneID: zoneID(name), database: .public, capabilities: [], created: 0, seq: 0)
        case .private:
            let id = zoneID(name)
            if id.isDefault { return Zone(zoneID: id, database: .private, capabilities: [], created: 0, seq: 0) }
            guard let z = catalog.zone(id, in: .private) else {
                if catalog.wasPurged(id, in: .private) {
                    throw CKError(.userDeletedZone, "Zone '\(name)' was deleted by the user through the settings UI",
                                  hint: "a client recreates the zone ('ck zone create \(name)') and uploads what it holds again")
                }
                let mine = catalog.zones.filter { $0.database == .private && $0.zoneID.ownerRecordName == id.ownerRecordName }
                let close = Names.closest(to: name, among: mine.map(\.zoneID.zoneName) + [Names.defaultZoneName])
                throw CKError(.zoneNotFound, "Zone '\(name)' does not exist",
                              hint: (close.map { "did you mean '\($0)'? Or " } ?? "") + "create it with 'ck zone create \(name)'")
            }
            return z
        }
    }

    /// The live records of a zone log, by name.
    package static func fold(_ entries: [LogEntry]) -> [String: Record] { ZoneLog.fold(entries) }

    /// Change tags are the base-36 sequence number of the save: unique per environment, short like CloudKit's.
    package static func changeTag(seq: Int64) -> String { String(seq, radix: 36) }

    /// Lists the user in container.json once something was written (root lock, taken after the environment lock
    /// is released). The write is durable already: a broken container.json only earns a warning.
    package func registerAfterWrite() {
        guard let name = caller.userName else { return }
        do { try container.register(user: name) } catch { notes.append(Diagnostic("user '\(name)' not listed in container.json: \(error.reason)")) }
    }

    /// The path of an asset's bytes in the store.
    public func assetPath(_ asset: Asset) -> String { env.assetPath(asset.sha256) }
}
