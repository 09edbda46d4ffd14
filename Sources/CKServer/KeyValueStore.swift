import CKModel
import CKStorage

/// How full a key-value store is, against its limits.
public struct KVUsage: Equatable, Sendable {
    public var keys: Int
    /// Bytes of all keys and values.
    public var totalBytes: Int
    /// The key with the largest value, and that value's bytes.
    public var largestKey: String?
    public var largestBytes: Int

    /// The usage of a set of values.
    public init(_ live: [String: KVValue]) {
        keys = live.count
        totalBytes = live.reduce(0) { $0 + KVLimits.pairSize($1.key, $1.value) }
        largestKey = nil
        largestBytes = 0
        for k in live.keys.sorted() {
            if let v = live[k], largestKey == nil || v.size > largestBytes { largestKey = k; largestBytes = v.size }
        }
    }
}

/// The server side of one user's iCloud key-value store in a container and environment: what a direct
/// `ck kv set` writes and what devices sync with. The file is read and written under the environment's lock.
public struct KeyValueStore {
    /// The private database of the store's user (the store belongs to the user, not to a database).
    public let database: CKDatabase

    public init(database: CKDatabase) { self.database = database }

    package var env: EnvironmentStore { database.env }
    /// The store's file.
    public var path: String { env.keyValuePath(database.userRecordName) }

    package func read() throws(CKError) -> KVServerFile {
        let file = try KVServerFile.read(path, userRecordName: database.userRecordName)
        guard file.userRecordName == database.userRecordName else {
            throw CKError.corrupt(path: path, line: 1, "the file belongs to user \(file.userRecordName), not \(database.userRecordName)")
        }
        return file
    }

    /// Runs `body` on the file through the pipeline (exclusive lock) and hands it to the writer when `body` says it changed.
    package func update<T>(_ body: (inout KVServerFile) throws(CKError) -> (T, changed: Bool)) throws(CKError) -> T {
        try database.perform(.keyValueWrite) { (state) throws(CKError) -> T in
            var file = try read()
            let (r, changed) = try body(&file)
            if changed { state.changes.append(.keyValue(file)) }
            return r
        }
    }

    /// The file as the pipeline reads it (shared lock).
    package func snapshot() throws(CKError) -> KVServerFile {
        try database.perform(.keyValueRead) { (_) throws(CKError) -> KVServerFile in try read() }
    }

    /// The live entries, sorted by key; with `prefix`, only keys starting with it.
    public func entries(prefix: String? = nil) throws(CKError) -> [KVEntry] {
        let file = try snapshot()
        return file.entries.values.filter { $0.value != nil && (prefix.map($0.key.hasPrefix) ?? true) }
            .sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }

    /// One key's entry, or unknownItem.
    public func entry(_ key: String) throws(CKError) -> KVEntry {
        try KVLimits.validateKey(key)
        let file = try snapshot()
        guard let e = file.entries[key], e.value != nil else { throw KeyValueStore.notFound(key, place: "the key-value store of user '\(database.user)'") }
        return e
    }

    /// Usage against the limits.
    public func usage() throws(CKError) -> KVUsage {
        KVUsage(try snapshot().live)
    }

    /// Writes a value now, as a client that is online would: a key over 64 bytes or a value too deep is refused
    /// (invalidArguments), a write over a quota is refused with quotaExceeded and nothing changes.
    @discardableResult
    public func set(_ key: String, _ value: KVValue) throws(CKError) -> KVEntry {
        try KVLimits.validateKey(key)
        guard value.depth <= KVLimits.maxDepth else { throw KVValue.tooDeep("key '\(Names.describe(key))'") }
        let now = database.store.now()
        let writer = database.deviceID
        return try update { (file: inout KVServerFile) throws(CKError) -> (KVEntry, changed: Bool) in
            if let why = KVLimits.violation(key: key, value: value, live: file.live) {
                throw CKError(.quotaExceeded, "key '\(Names.describe(key))' refused: \(why)",
                              hint: "remove keys ('ck kv remove') or store less; 'ck kv show' shows the usage")
            }
            file.change += 1
            let e = KVEntry(key: key, value: value, modified: now, deviceID: writer, change: file.change)
            file.entries[key] = e
            return (e, true)
        }
    }

    /// Removes a key now (devices learn of it at their next sync); unknownItem when it has no value.
    public func remove(_ key: String) throws(CKError) {
        try KVLimits.validateKey(key)
        let now = database.store.now()
        let writer = database.deviceID
        try update { (file: inout KVServerFile) throws(CKError) -> ((), changed: Bool) in
            guard file.entries[key]?.value != nil else { throw KeyValueStore.notFound(key, place: "the key-value store of user '\(database.user)'") }
            file.change += 1
            file.entries[key] = KVEntry(key: key, value: nil, modified: now, deviceID: writer, change: file.change)
            return ((), true)
        }
    }

    package static func notFound(_ key: String, place: String) -> CKError {
        CKError(.unknownItem, "no key '\(Names.describe(key))' in \(place)", hint: "'ck kv list' shows the keys")
    }
}
