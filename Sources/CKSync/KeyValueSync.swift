import CKFiles
import CKModel
import CKServer

/// Syncs a device's key-value store with the server, as NSUbiquitousKeyValueStore does in the background:
/// push the device's pending writes, pull the others', the newest write per key winning, and record on the
/// device the `didChangeExternallyNotification` an app would receive.
///
/// Newest = the later `modified` (the time the write was made on its device, from the store's clock, which
/// every emulated device shares), then the device name in byte order as a tiebreak.
public struct KeyValueSync {
    public let device: Device

    /// The account status under which a user may sync.
    public static let available = AccountStatus.available.rawValue

    public init(device: Device) { self.device = device }

    package var db: CKDatabase { device.database }

    /// The one place that decides whether the device's user may sync the key-value store now: the caller's
    /// account status (`ck account set`). Any status but available (e.g. noAccount) keeps writes on the
    /// device and makes the sync do nothing.
    public static func accountStatus(of db: CKDatabase) throws(CKError) -> String {
        try db.accountStatus().rawValue
    }

    /// One sync. Errors that stop it (the device file, the store file) are thrown; writes the server refused
    /// stay pending and are in the report.
    public func sync() throws(CKError) -> KVSyncReport {
        let lock = try FileLock(path: device.path + ".lock", exclusive: true)
        defer { lock.unlock() }
        try device.prepareKeyValue()
        var report = KVSyncReport(device: device.name)
        let now = { () -> Int64 in db.container.store.now() }
        let status = try KeyValueSync.accountStatus(of: db)
        let lastStatus = try device.meta("kvAccount") ?? KeyValueSync.available
        guard status == KeyValueSync.available else {
            try device.transaction { () throws(CKError) in try device.setMeta("kvAccount", status) }
            report.skipped = "the iCloud account of user '\(db.user)' is \(status): key-value writes stay on the device"
            return report
        }
        if lastStatus != KeyValueSync.available {
            try replaceWithAccount(&report)
        } else {
            try pushAndPull(&report)
        }
        report.syncedAt = now()
        let at = report.syncedAt
        try device.transaction { () throws(CKError) in try device.setMeta("kvLastSync", String(at)) }
        return report
    }

    /// Push, then pull, under one exclusive lock of the environment; then the device, in one transaction.
    package func pushAndPull(_ report: inout KVSyncReport) throws(CKError) {
        let token = (try device.meta("kvToken")).flatMap { Int64($0) }
        let first = token == nil
        // Removals first (they free room), then writes oldest first, so a quota refuses the latest writes.
        let pending = try device.kvRows("WHERE pending = 1").sorted {
            if ($0.value == nil) != ($1.value == nil) { return $0.value == nil }
            return ($0.modified, $0.key) < ($1.modified, $1.key)
        }
        let store = KeyValueStore(database: db)
        let name = device.name
        var acknowledged: [KVLocalEntry] = []
        var pushed: [String] = [], overridden: [String] = [], refused: [KVSyncReport.Refusal] = []
        let knownStore = try device.meta("kvStoreID")
        let (pulled, newToken, storeID, live) = try store.update { (file: inout KVServerFile) throws(CKError) -> (([KVEntry], Int64, String, Set<String>), changed: Bool) in
            var changed = false
            var forced = Set<String>()
            for p in pending {
                let current = file.entries[p.key]
                // Before the first download, a write of a key the account already holds is discarded
                // (NSUbiquitousKeyValueStoreInitialSyncChange); afterwards the newest write wins.
                if let current, (first && current.value != nil) || current.isNewer(thanModified: p.modified, deviceID: name) {
                    overridden.append(p.key)
                    forced.insert(p.key)
                    acknowledged.append(p)
                    continue
                }
                if let v = p.value {
                    if let why = KVLimits.violation(key: p.key, value: v, live: file.live) {
                        refused.append(.init(key: p.key, reason: why))
                        continue
                    }
                } else if current?.value == nil {
                    acknowledged.append(p)
                    continue
                }
                file.change += 1
                file.entries[p.key] = KVEntry(key: p.key, value: p.value, modified: p.modified, deviceID: name, change: file.change)
                changed = true
                pushed.append(p.key)
                acknowledged.append(p)
            }
            // Another file than the one the token counts in: everything is fetched again.
            let since = knownStore == file.storeID ? token ?? 0 : 0
            let entries = file.entries.values.filter { $0.change > since || forced.contains($0.key) }
            return ((entries.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }, file.change, file.storeID, Set(file.live.keys)), changed)
        }
        report.pushed = pushed
        report.overridden = overridden
        report.refused = refused
        let at = db.container.store.now()
        report.events = try device.transaction { () throws(CKError) -> [KVEvent] in
            for a in acknowledged {
                // Only the version that was sent: a newer local write made meanwhile stays pending.
                if a.value == nil {
                    try device.run("DELETE FROM kv_values WHERE key = ?1 AND version = ?2 AND pending = 1", [a.key, a.version])
                } else {
                    try device.run("UPDATE kv_values SET pending = 0 WHERE key = ?1 AND version = ?2", [a.key, a.version])
                }
            }
            var changedKeys: [String] = []
            for e in pulled {
                let local = try device.kvRows("WHERE key = ?1", [e.key]).first
                if local?.pending == true { continue }
                if try apply(e, over: local) { changedKeys.append(e.key) }
            }
            if !first && knownStore != storeID {
                // The store was replaced: what the device had from the old one and the new one lacks is gone.
                for local in try device.kvRows("WHERE pending = 0") where !live.contains(local.key) {
                    try device.run("DELETE FROM kv_values WHERE key = ?1", [local.key])
                    changedKeys.append(local.key)
                }
                changedKeys.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            }
            try device.setMeta("kvToken", String(newToken))
            try device.setMeta("kvStoreID", storeID)
            try device.setMeta("kvAccount", KeyValueSync.available)
            var events: [(KVChangeReason, [String])] = []
            if !changedKeys.isEmpty { events.append((first ? .initialSyncChange : .serverChange, changedKeys)) }
            if !refused.isEmpty { events.append((.quotaViolationChange, refused.map(\.key))) }
            for (reason, keys) in events { try device.recordKeyValueEvent(reason, keys: keys, at: at) }
            report.pulled = changedKeys
            return events.isEmpty ? [] : try device.keyValueEvents().suffix(events.count)
        }
    }

    /// Puts a server entry on the device; true when the value the device shows changed.
    package func apply(_ e: KVEntry, over local: KVLocalEntry?) throws(CKError) -> Bool {
        guard let v = e.value else {
            guard local != nil else { return false }
            try device.run("DELETE FROM kv_values WHERE key = ?1", [e.key])
            return local?.value != nil
        }
        try device.run("INSERT OR REPLACE INTO kv_values(key, value, modified, device, pending, version) VALUES(?1, ?2, ?3, ?4, 0, ?5)",
                       [e.key, v.json.serialized(), e.modified, e.deviceID, (local?.version ?? 0) + 1])
        return local?.value != v
    }

    /// Signed in again: the device's store is replaced by the account's, whatever the timestamps (as
    /// NSUbiquitousKeyValueStoreAccountChange says); writes made while signed out are dropped.
    package func replaceWithAccount(_ report: inout KVSyncReport) throws(CKError) {
        let store = KeyValueStore(database: db)
        let file = try store.snapshot()
        let at = db.container.store.now()
        report.events = try device.transaction { () throws(CKError) -> [KVEvent] in
            var changed: [String] = []
            for local in try device.kvRows() where file.entries[local.key]?.value == nil {
                try device.run("DELETE FROM kv_values WHERE key = ?1", [local.key])
                if local.value != nil || local.pending { changed.append(local.key) }
            }
            for e in file.entries.values where e.value != nil {
                let local = try device.kvRows("WHERE key = ?1", [e.key]).first
                if try apply(e, over: local) || local?.pending == true { changed.append(e.key) }
            }
            changed.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            try device.setMeta("kvToken", String(file.change))
            try device.setMeta("kvStoreID", file.storeID)
            try device.setMeta("kvAccount", KeyValueSync.available)
            try device.recordKeyValueEvent(.accountChange, keys: changed, at: at)
            report.pulled = changed
            return try device.keyValueEvents().suffix(1)
        }
    }
}
