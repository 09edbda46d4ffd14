import Foundation
import CKFiles
import CKModel
import CKSQLite
import CKServer

/// An emulated client device (an iPhone, a Mac) of one iCloud user: a replica of that user's private
/// database in its own SQLite file — the server copies it last fetched, its pending edits, its change tokens.
/// It is client state, not server data: it talks to the server only through `CKDatabase`'s public API.
public final class Device {
    public let name: String
    /// The device's SQLite file.
    public let path: String
    /// The private database this device syncs with, as its user sees it.
    public let database: CKDatabase
    package let sql: SQLiteConnection

    /// Format of the device file; a newer file is refused rather than misread.
    package static let formatVersion: Int64 = 1

    private init(name: String, path: String, database: CKDatabase, sql: SQLiteConnection) {
        self.name = name
        self.path = path
        self.database = database
        self.sql = sql
    }

    /// `<store root>/devices/<container-id>/<environment>/<userRecordName>`: the devices of a database's user.
    public static func directory(for db: CKDatabase) -> String {
        // A device's copy of the shared database is a file of its own, as CKSyncEngine runs one engine per database.
        [db.container.store.root, StoreLayout.devicesName, db.container.identifier, db.environment.rawValue, db.userRecordName]
            .joined(separator: "/") + (db.scope == .shared ? "/shared" : "")
    }

    /// The device names of a database's user, sorted.
    public static func names(for db: CKDatabase) -> [String] {
        FileIO.list(directory(for: db)).filter { $0.hasSuffix(".sqlite") }.map { String($0.dropLast(7)) }
            .filter { (try? Names.validateDeviceName($0)) != nil }
    }

    /// Whether a device exists for a database's user.
    public static func exists(_ name: String, for db: CKDatabase) throws(CKError) -> Bool {
        try Names.validateDeviceName(name)
        return FileIO.exists(directory(for: db) + "/" + name + ".sqlite")
    }

    /// Opens a device of the database's user; with `create`, makes it on first use (ck needs no set-up), unless its
    /// name is a near miss of one of the user's devices (`ck sync MAC` beside mac), or the user's name is a near miss.
    public static func open(_ name: String, database db: CKDatabase, create: Bool = true) throws(CKError) -> Device {
        try open(name, database: db, create: create, explicitly: false)
    }

    /// Makes a device of the database's user, even one whose name is a near miss of another's, or opens it if it
    /// exists; `created` says which.
    public static func create(_ name: String, database db: CKDatabase) throws(CKError) -> (device: Device, created: Bool) {
        let existed = try exists(name, for: db)
        return (try open(name, database: db, create: true, explicitly: true), !existed)
    }

    private static func open(_ name: String, database db: CKDatabase, create: Bool, explicitly: Bool) throws(CKError) -> Device {
        try Names.validateDeviceName(name)
        guard db.scope != .public else {
            throw CKError.invalid("devices sync the private or shared database, not public",
                                  hint: "CloudKit's sync engine works on private and shared zones; drop --db, or use --db shared")
        }
        let dir = directory(for: db)
        let path = dir + "/" + name + ".sqlite"
        let existed = FileIO.exists(path)
        if !existed {
            let close = Names.nearMisses(of: name, among: names(for: db))
            guard create else {
                throw CKError(.unknownItem, "no device '\(name)' for user '\(db.user)' in \(db.container.identifier) (\(db.environment.rawValue))",
                              hint: (close.isEmpty ? "" : "did you mean \(Names.alternatives(close))? ")
                                  + "'ck sync \(name)' creates it; 'ck device list' shows the devices")
            }
            if !explicitly, !close.isEmpty {
                throw Names.nearMissError(.unknownItem, what: "device", name: name, place: "for user '\(db.user)' in \(db.container.identifier)",
                                          close: close, create: "ck device create \(name)")
            }
            // The user first: a device of a mistyped user would be a file under a user that does not exist.
            if let user = db.caller.userName { _ = try db.container.resolveUser(user) }
            try FileIO.makeDirectory(dir)
        }
        // SQLite opens the file by name: nothing on the way may be a link.
        try FileIO.refuseLinks(path)
        let conn: SQLiteConnection
        do { conn = try SQLiteConnection(path: path) } catch {
            throw CKError.internalError("device file \(path): \(error.message)")
        }
        // The device writes as itself: its own view of the database, with its name stamped as deviceID.
        var caller = db.caller
        caller.deviceID = name
        let own = db.container.database(db.scope, environment: db.environment, caller: caller)
        let device = Device(name: name, path: path, database: own, sql: conn)
        try device.prepareFile(existed: existed)
        return device
    }

    /// Removes a device's file: its unsynced edits are lost, the server keeps what was pushed.
    public static func remove(_ name: String, database db: CKDatabase) throws(CKError) {
        guard try exists(name, for: db) else {
            throw CKError(.unknownItem, "no device '\(name)' for user '\(db.user)' in \(db.container.identifier) (\(db.environment.rawValue))",
                          hint: "'ck device list' shows the devices")
        }
        let path = directory(for: db) + "/" + name + ".sqlite"
        for p in [path, path + "-journal", path + ".lock"] where FileIO.exists(p) {
            try FileIO.unlink(p)
        }
        FileIO.syncDirectory(directory(for: db))
    }

    private func prepareFile(existed: Bool) throws(CKError) {
        // A rollback journal with full sync: a crash mid-transaction rolls back on the next open.
        try exec("PRAGMA journal_mode=DELETE; PRAGMA synchronous=FULL;")
        try transaction { () throws(CKError) in
            try exec("""
                CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS zones(zone TEXT PRIMARY KEY, token TEXT);
                CREATE TABLE IF NOT EXISTS server_records(zone TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
                    tag TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY(zone, name));
                CREATE TABLE IF NOT EXISTS pending(zone TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,
                    op TEXT NOT NULL CHECK(op IN ('save', 'delete')), fields TEXT NOT NULL DEFAULT '{}',
                    base TEXT, version INTEGER NOT NULL, modified INTEGER NOT NULL, PRIMARY KEY(zone, name));
                """)
            if let f = try meta("format") {
                guard let v = Int64(f), v <= Device.formatVersion else {
                    throw CKError(.incompatibleVersion, "\(path): device format \(f) is newer than this ck understands (\(Device.formatVersion))",
                                  hint: "upgrade ck")
                }
                // A device switched to another account (`ck device switch-account`) is the new user's until its sync clears it.
                if let u = try meta("userRecordName"), u != database.userRecordName, try meta("switchingTo") != database.userRecordName {
                    throw CKError.corrupt(path: path, "the device belongs to user \(u), not \(database.userRecordName)")
                }
                return
            }
            let values: [(String, String)] = [
                ("format", String(Device.formatVersion)), ("device", name), ("container", database.container.identifier),
                ("environment", database.environment.rawValue), ("user", database.user),
                ("userRecordName", database.userRecordName), ("created", String(database.container.store.now())),
            ]
            for (k, v) in values { try setMeta(k, v) }
        }
    }

    // MARK: SQL helpers: every SQLite failure becomes a CKError naming the file.

    package func fail(_ f: SQLiteConnection.Failure) -> CKError {
        if f.isCorruption { return CKError.corrupt(path: path, "not a device database: \(f.description)") }
        return CKError.internalError("device file \(path): \(f.description)")
    }

    package func exec(_ text: String) throws(CKError) {
        do { try sql.exec(text) } catch { throw fail(error) }
    }

    /// A prepared statement (the connection's cached one when free).
    package func statement(_ text: String) throws(CKError) -> SQLiteStatement {
        do { return try sql.prepare(text) } catch { throw fail(error) }
    }

    /// Runs a statement that returns no rows.
    package func run(_ text: String, _ values: [any SQLiteBindable] = []) throws(CKError) {
        let s = try statement(text)
        do { try s.run(values) } catch { throw fail(error) }
    }

    /// Runs a query and maps each row.
    package func rows<T>(_ text: String, _ values: [any SQLiteBindable] = [], _ map: (SQLiteStatement) throws(CKError) -> T) throws(CKError) -> [T] {
        let s = try statement(text)
        var out: [T] = []
        do { try s.bind(values) } catch { throw fail(error) }
        while true {
            let more: Bool
            do { more = try s.step() } catch { throw fail(error) }
            guard more else { break }
            out.append(try map(s))
        }
        return out
    }

    /// Runs `body` in one SQLite transaction: all of it is on disk, or none of it.
    package func transaction<T>(_ body: () throws(CKError) -> T) throws(CKError) -> T {
        try sql.transaction(mapping: fail, body)
    }

    package func meta(_ key: String) throws(CKError) -> String? {
        try rows("SELECT value FROM meta WHERE key = ?1", [key]) { $0.text(0) }.first
    }

    package func setMeta(_ key: String, _ value: String?) throws(CKError) {
        if let value {
            try run("INSERT INTO meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value])
        } else {
            try run("DELETE FROM meta WHERE key = ?1", [key])
        }
    }

    /// A summary: user, tokens, counts, last sync.
    public func info() throws(CKError) -> DeviceInfo {
        let zones = try rows("SELECT zone, token FROM zones ORDER BY zone") { s -> (String, String?) in (s.text(0), s.isNull(1) ? nil : s.text(1)) }
        var tokens: [String: String?] = [:]
        for (z, t) in zones { tokens[z] = .some(t) }
        let counts = try rows("SELECT (SELECT count(*) FROM server_records), (SELECT count(*) FROM pending WHERE op = 'save'), (SELECT count(*) FROM pending WHERE op = 'delete')") {
            s in (Int(s.int(0)), Int(s.int(1)), Int(s.int(2)))
        }.first ?? (0, 0, 0)
        return DeviceInfo(name: name, path: path, containerID: database.container.identifier, environment: database.environment,
                          user: database.user, userRecordName: database.userRecordName,
                          created: Int64(try meta("created") ?? "") ?? 0, lastSync: (try meta("lastSync")).flatMap { Int64($0) },
                          databaseToken: try meta("databaseToken"), zoneTokens: tokens,
                          serverRecordCount: counts.0, pendingSaves: counts.1, pendingDeletes: counts.2)
    }
}
