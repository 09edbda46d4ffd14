import CKModel
import CKSQLite
import CKServer

/// A key as a device holds it: the value it shows (nil for a removal not yet pushed) and whether it is pending.
public struct KVLocalEntry: Equatable, Sendable {
    public var key: String
    public var value: KVValue?
    /// When the value was written (on this device, or on the device the server copy came from).
    public var modified: Int64
    public var deviceID: String
    /// Written on this device and not yet taken by the server.
    public var pending: Bool
    package var version: Int64
}

/// A device's key-value store: what `ck kv show --device` prints.
public struct KVDeviceInfo: Sendable {
    public var usage: KVUsage
    public var pending: Int
    public var events: Int
    /// The last key-value sync, nil before the first.
    public var lastSync: Int64?
    /// The account status the device last saw ("available" until told otherwise).
    public var accountStatus: String
}

/// The device's local copy of its user's key-value store, in its SQLite replica (tables `kv_values` and
/// `kv_events`, meta `kvToken`, `kvLastSync`, `kvAccount`): writes land here at once and wait for a sync.
extension Device {
    package func prepareKeyValue() throws(CKError) {
        try exec("""
            CREATE TABLE IF NOT EXISTS kv_values(key TEXT PRIMARY KEY, value TEXT, modified INTEGER NOT NULL,
                device TEXT NOT NULL, pending INTEGER NOT NULL DEFAULT 0, version INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE IF NOT EXISTS kv_events(id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL,
                reason TEXT NOT NULL, keys TEXT NOT NULL);
            """)
    }

    package func decodeKV(_ text: String, key: String) throws(CKError) -> KVValue {
        let json: JSON
        do { json = try JSON.parse(text) } catch { throw CKError.corrupt(path: path, "kv_values '\(key)' is not JSON: \(error.message)") }
        do { return try KVValue(json: json, path: "kv_values." + key) } catch { throw CKError.corrupt(path: path, error.reason) }
    }

    package func kvRows(_ whereClause: String = "", _ values: [any SQLiteBindable] = []) throws(CKError) -> [KVLocalEntry] {
        try prepareKeyValue()
        return try rows("SELECT key, value, modified, device, pending, version FROM kv_values \(whereClause) ORDER BY key", values) { (s) throws(CKError) in
            let key = s.text(0)
            return KVLocalEntry(key: key, value: s.isNull(1) ? nil : try decodeKV(s.text(1), key: key), modified: s.int(2),
                                deviceID: s.text(3), pending: s.int(4) != 0, version: s.int(5))
        }
    }

    /// The keys the device shows (pending removals left out), sorted; with `prefix`, only keys starting with it.
    public func keyValueEntries(prefix: String? = nil) throws(CKError) -> [KVLocalEntry] {
        try kvRows().filter { $0.value != nil && (prefix.map($0.key.hasPrefix) ?? true) }
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// One key as the device shows it, or unknownItem.
    public func keyValueEntry(_ key: String) throws(CKError) -> KVLocalEntry {
        try KVLimits.validateKey(key)
        guard let e = try kvRows("WHERE key = ?1", [key]).first, e.value != nil else {
            throw KeyValueStore.notFound(key, place: "device '\(name)'")
        }
        return e
    }

    /// Writes a value on the device only; the next sync pushes it. The key and depth are checked at once;
    /// quotas are the server's to enforce, at sync.
    @discardableResult
    public func setKeyValue(_ key: String, _ value: KVValue) throws(CKError) -> KVLocalEntry {
        try KVLimits.validateKey(key)
        guard value.depth <= KVLimits.maxDepth else { throw KVValue.tooDeep("key '\(Names.describe(key))'") }
        return try writeKeyValue(key, value)
    }

    /// Removes a key on the device only; the next sync pushes the removal. unknownItem when it has no value.
    public func removeKeyValue(_ key: String) throws(CKError) {
        _ = try keyValueEntry(key)
        try writeKeyValue(key, nil)
    }

    @discardableResult
    package func writeKeyValue(_ key: String, _ value: KVValue?) throws(CKError) -> KVLocalEntry {
        try prepareKeyValue()
        let now = database.container.store.now()
        return try transaction { () throws(CKError) -> KVLocalEntry in
            let version = (try rows("SELECT version FROM kv_values WHERE key = ?1", [key]) { $0.int(0) }.first ?? 0) + 1
            try run("INSERT OR REPLACE INTO kv_values(key, value, modified, device, pending, version) VALUES(?1, ?2, ?3, ?4, 1, ?5)",
                    [key, value?.json.serialized(), now, name, version])
            return KVLocalEntry(key: key, value: value, modified: now, deviceID: name, pending: true, version: version)
        }
    }

    /// Events the device received, oldest first; with `since`, only those after that id.
    public func keyValueEvents(since: Int64? = nil) throws(CKError) -> [KVEvent] {
        try prepareKeyValue()
        return try rows("SELECT id, at, reason, keys FROM kv_events WHERE id > ?1 ORDER BY id", [since ?? 0]) { (s) throws(CKError) in
            guard let reason = KVChangeReason(rawValue: s.text(2)) else { throw CKError.corrupt(path: path, "kv_events \(s.int(0)): unknown reason '\(s.text(2))'") }
            let keys = (try? JSON.parse(s.text(3)))?.arrayValue?.compactMap(\.stringValue) ?? []
            return KVEvent(id: s.int(0), at: s.int(1), reason: reason, keys: keys)
        }
    }

    package func recordKeyValueEvent(_ reason: KVChangeReason, keys: [String], at: Int64) throws(CKError) {
        try run("INSERT INTO kv_events(at, reason, keys) VALUES(?1, ?2, ?3)",
                [at, reason.rawValue, JSON.array(keys.map { .string($0) }).serialized()])
    }

    /// Usage of the device's copy, pending writes, events and the last sync.
    public func keyValueInfo() throws(CKError) -> KVDeviceInfo {
        let all = try kvRows()
        var live: [String: KVValue] = [:]
        for e in all { if let v = e.value { live[e.key] = v } }
        let events = try rows("SELECT count(*) FROM kv_events") { $0.int(0) }.first ?? 0
        return KVDeviceInfo(usage: KVUsage(live), pending: all.filter(\.pending).count, events: Int(events),
                            lastSync: (try meta("kvLastSync")).flatMap { Int64($0) },
                            accountStatus: try meta("kvAccount") ?? KeyValueSync.available)
    }
}
