import Foundation
import CKFiles
import CKModel
import CKSchema

/// One environment's tree on disk: lock, schema, zone catalog, zone logs and assets.
package final class EnvironmentStore {
    package let dir: String
    package let environment: Environment
    package var warnings: [Diagnostic] = []
    /// faults.json as a writer's fault stage left it, not yet written: it goes with the operation's next request
    /// of records (in its pending record), or alone when the operation ends (docs/faults.md, "When a count is spent").
    package var heldFaults: JSON?
    /// Whether to keep and use `.index.sqlite` (off: every read folds whole logs).
    package let indexEnabled: Bool
    private var openedIndex: RecordIndex?

    package init(containerDir: String, environment: Environment, indexEnabled: Bool = true) {
        self.dir = containerDir + "/" + environment.rawValue
        self.environment = environment
        self.indexEnabled = indexEnabled
    }

    /// The environment's index, opened on first use; nil when indexing is off.
    package func index() throws(CKError) -> RecordIndex? {
        guard indexEnabled else { return nil }
        if let i = openedIndex { return i }
        let i: RecordIndex
        if let kept = IndexPool.take(dir + "/.index.sqlite") { i = kept } else { i = try RecordIndex.open(envDir: dir) }
        openedIndex = i
        return i
    }

    deinit {
        // Kept for another operation only when nothing else holds it: a connection is used by one thread at a time.
        if var i = openedIndex {
            openedIndex = nil
            if isKnownUniquelyReferenced(&i) { IndexPool.give(i) }
        }
    }

    /// The directories of an environment that commands list.
    static let listedDirectories = StoreLayout.environmentTrees + ["notifications", "kv"]

    package var schemaPath: String { dir + "/schema.json" }
    package var zonesPath: String { dir + "/zones.json" }
    package var assetsDir: String { dir + "/assets" }
    package var subscriptionsPath: String { dir + "/subscriptions.json" }
    package var notificationsDir: String { dir + "/notifications" }

    /// A user's notification log. User record names were validated, so the path stays inside the store.
    package func notificationsPath(_ userRecordName: String) -> String { notificationsDir + "/" + userRecordName + ".jsonl" }

    /// The log file of a zone. Names were validated, so the path stays inside the store.
    package func logPath(database: DatabaseScope, zone: ZoneID) -> String {
        switch database {
        case .public: return dir + "/public/" + zone.zoneName + ".jsonl"
        case .private, .shared: return dir + "/private/" + zone.ownerRecordName + "/" + zone.zoneName + ".jsonl"
        }
    }

    /// Runs `body` holding the environment's lock (exclusive for writers, shared for readers).
    /// `recover: false` (doctor without --repair) leaves an interrupted operation for the caller to report.
    package func locked<T>(exclusive: Bool, recover: Bool = true, _ body: () throws(CKError) -> T) throws(CKError) -> T {
        let containerDir = PathName.parent(dir)
        guard FileIO.exists(containerDir + "/container.json") else {
            throw CKError(.badContainer, "container at \(containerDir) no longer exists")
        }
        try FileIO.makeDirectory(dir)
        // What commands list must be real directories: a link would read as empty, or lead outside the store.
        try FileIO.refuseLinks(in: dir, EnvironmentStore.listedDirectories)
        while true {
            let l = try FileLock(path: dir + "/.lock", exclusive: exclusive)
            defer { l.unlock() }
            // The container may have been deleted while we waited for the lock.
            guard FileIO.exists(containerDir + "/container.json") else {
                throw CKError(.badContainer, "container at \(containerDir) was deleted")
            }
            let left = Intent.leftovers(dir)
            let notes = FileIO.lexists(PendingNotifications.path(self))
            if recover && (left.intent || notes || (exclusive && !left.trees.isEmpty)) {
                // An operation on several files was interrupted: finished before anyone reads, under the exclusive lock.
                if exclusive { try finishInterrupted() } else {
                    l.unlock()
                    let x = try FileLock(path: dir + "/.lock", exclusive: true)
                    defer { x.unlock() }
                    try finishInterrupted()
                    continue
                }
            }
            return try body()
        }
    }

    /// Finishes (or rolls back) an interrupted operation on several files; call with the exclusive lock held.
    @discardableResult
    package func finishInterrupted() throws(CKError) -> String? {
        // Said only when notifications went out late; a schema change or fault counts finished with their whole
        // lines are the save as it was made (as silent as lines appended but not yet acknowledged).
        let notifies = PendingNotifications.carriesNotifications(self)
        if try PendingNotifications.recover(self) == true && notifies {
            warnings.append(Diagnostic(place: dir, "delivered the notifications of a change a crash interrupted"))
        }
        guard let op = try Intent.recover(dir, permits: IntentRules.environment) else { return nil }
        // Which logs it replaced is not recorded: the index (a cache) starts again.
        try index()?.clear()
        warnings.append(Diagnostic(place: dir, "finished an interrupted '\(op)'"))
        return op
    }

    package func readSchema() throws(CKError) -> Schema {
        guard let o = try JSONFile.readObject(schemaPath) else { return Schema() }
        return try Schema(json: o, path: schemaPath)
    }

    package func readCatalog() throws(CKError) -> ZoneCatalog {
        guard let o = try JSONFile.readObject(zonesPath) else { return ZoneCatalog() }
        return try ZoneCatalog(json: o, path: zonesPath)
    }

    /// A path below the environment directory, relative to it.
    package func relative(_ path: String) -> String {
        path.hasPrefix(dir + "/") ? String(path.dropFirst(dir.count + 1)) : path
    }

    /// Replaces the environment's data whole, as one all-or-nothing operation (import, reset): `build` writes the
    /// new trees and files into the staged environment it is given (names: "public", "private", "schema.json", …);
    /// `remove` lists what goes without a replacement. The index starts again.
    func replaceData(operation: String, staging names: [String], remove: [String],
                     build: (StagedEnvironment) throws(CKError) -> Void) throws(CKError) {
        let intent = try Intent(base: dir, operation: operation)
        var staged: [String: String] = [:]
        for n in names { staged[n] = intent.stage(n) }
        for n in remove where FileIO.lexists(dir + "/" + n) { intent.remove(n) }
        try build(StagedEnvironment(paths: staged))
        try intent.commit { () throws(CKError) in try index()?.clear() }
    }

    /// The public database's logs and the private logs of the owners `owns` accepts (by user record name).
    package func logPaths(ownedBy owns: (String) -> Bool) -> [String] {
        allLogPaths().filter { p in
            p.hasPrefix(dir + "/public/") || owns(PathName.last(PathName.parent(p)))
        }
    }

    /// Every zone log of the environment.
    package func allLogPaths() -> [String] {
        var out = FileIO.list(dir + "/public").filter { $0.hasSuffix(".jsonl") }.map { dir + "/public/" + $0 }
        for user in FileIO.list(dir + "/private") where !user.hasPrefix(".") {
            let udir = dir + "/private/" + user
            out += FileIO.list(udir).filter { $0.hasSuffix(".jsonl") }.map { udir + "/" + $0 }
        }
        return out
    }

    /// The highest sequence number used in this environment (call with the exclusive lock held).
    package func highestSeq(catalog: ZoneCatalog) throws(CKError) -> Int64 {
        var m = catalog.lastSeq
        if let index = try index() {
            // Every log is brought up to date (a crashed writer may have appended without indexing).
            for p in allLogPaths() {
                // A broken log of another zone must not stop this write: its last line still counts.
                do throws(CKError) { try index.sync(p, warnings: &warnings) } catch { warnings.append(error.diagnostic(.warning)) }
                // Lines of an interrupted request are not indexed, but their numbers are never reused.
                m = max(m, (try? ZoneLog.lastSeq(p)) ?? 0)
            }
            return max(m, try index.lastSeq())
        }
        for p in allLogPaths() { m = max(m, try ZoneLog.lastSeq(p)) }
        return m
    }

    /// Reads a zone log, collecting its warnings.
    package func readLog(_ path: String) throws(CKError) -> ZoneLogContents {
        let c = try ZoneLog.read(path)
        warnings += c.warnings
        return c
    }

    /// Stores asset bytes under their SHA-256 (written once; identical content is shared).
    func storeAsset(sha256: String, bytes: [UInt8]) throws(CKError) {
        try FileIO.makeDirectory(assetsDir)
        let path = assetsDir + "/" + sha256
        if FileIO.exists(path) { return }
        try FileIO.atomicWrite(path, bytes)
    }

    package func assetPath(_ sha256: String) -> String { assetsDir + "/" + sha256 }
}
