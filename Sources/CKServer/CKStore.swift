import Foundation
import Synchronization
import CKModel
import CKSchema
import CKStorage

/// A store root: `ck.json` and the containers under it. The entry point of the emulator. One store may serve many
/// threads (a server's requests): its settings and warnings are behind a lock.
public final class CKStore: Sendable {
    /// The container a fresh store starts with, so `ck record save` works with no set-up.
    public static let defaultContainerID = "iCloud.ck.default"
    public static let formatVersion: Int64 = StoreLayout.formatVersion

    public let location: StoreLocation
    public var root: String { location.path }

    /// What may change after the store is opened.
    struct State {
        var warnings: [Diagnostic] = []
        var indexEnabled = true
        var queryDriverLimit = 2000
        var hooks = PipelineHooks()
        /// A clock a test or program put in place of the store's (`now`'s setter).
        var nowOverride: (@Sendable () -> Int64)?
        /// `CK_NOW`: "now" fixed for this process, whatever clock.json says.
        var pinnedNow: Int64?
        /// clock.json as last read, with the stamp of the file it was read from.
        var clock: (stamp: ClockFile.Stamp?, clock: StoreClock)?
    }
    private let state = Mutex(State())
    /// Upload receipts of this process's callers: a save names an asset by hash only with one.
    let assetReceipts = AssetReceipts()

    /// Warnings met while reading (torn lines dropped, …); the command line prints them.
    public var warnings: [Diagnostic] { state.withLock { $0.warnings } }
    /// Keeps index connections open between operations from now on, for a long-running process such as a server
    /// (each operation would otherwise open and parse the index anew); a short command has no use for it.
    public static func keepIndexesOpen() { IndexPool.enable() }

    /// Whether environments keep `.index.sqlite` (off: every read folds whole logs; the answers are the same).
    public var indexEnabled: Bool {
        get { state.withLock { $0.indexEnabled } }
        set { state.withLock { $0.indexEnabled = newValue } }
    }
    /// How many index rows a filter may match and still drive a query (read whole, then sorted); above it,
    /// queries walk the sort order. Tests lower it to 0 to check the walk gives the same answers.
    public var queryDriverLimit: Int {
        get { state.withLock { $0.queryDriverLimit } }
        set { state.withLock { $0.queryDriverLimit = newValue } }
    }
    /// The pipeline stages a caller may add (injected faults, quotas); every server operation passes them.
    public var hooks: PipelineHooks {
        get { state.withLock { $0.hooks } }
        set { state.withLock { $0.hooks = newValue } }
    }
    /// The store's clock, ms since 1970: `CK_NOW` when pinned, else the real time moved as clock.json says
    /// (`ck clock`). A program may put its own clock in place (tests do).
    public var now: @Sendable () -> Int64 {
        get {
            if let o = state.withLock({ $0.nowOverride }) { return o }
            return { [self] in clockNow() }
        }
        set { state.withLock { $0.nowOverride = newValue } }
    }
    /// clock.json as last read, with the stamp of the file it was read from (`storedClock`).
    var clockCache: (stamp: ClockFile.Stamp?, clock: StoreClock)? {
        get { state.withLock { $0.clock } }
        set { state.withLock { $0.clock = newValue } }
    }
    /// `CK_NOW`: fixes "now" for this process (one command), whatever the store's clock says; nil: the store's clock.
    public var pinnedNow: Int64? {
        get { state.withLock { $0.pinnedNow } }
        set { state.withLock { $0.pinnedNow = newValue } }
    }

    /// The root's files: ck.json, the lock and the containers' directories.
    package var files: StoreRoot { StoreRoot(path: root) }
    package var configPath: String { files.configPath }

    package init(location: StoreLocation) { self.location = location }

    /// Opens the store, creating it (with its default container) on first use. `hooks` are in place before the
    /// first operation, the store's creation included.
    public static func open(_ location: StoreLocation, hooks: PipelineHooks = PipelineHooks()) throws(CKError) -> CKStore {
        try open(location, hooks: hooks, recover: true)
    }

    /// Opens the store as `open(_:hooks:)`; `recover: false` (doctor) leaves an interrupted root operation and
    /// links in place of the store's trees for the caller to examine.
    /// `pinnedNow` (`CK_NOW`) fixes "now" from the start, the store's creation included.
    public static func open(_ location: StoreLocation, hooks: PipelineHooks = PipelineHooks(), recover: Bool,
                            pinnedNow: Int64? = nil) throws(CKError) -> CKStore {
        let store = CKStore(location: location)
        store.hooks = hooks
        store.pinnedNow = pinnedNow
        if recover { try store.files.refuseLinkedTrees() }
        if recover && (store.files.hasInterruptedOperation || store.files.hasLeftoverTrees) {
            // A container delete was interrupted: it is finished before anything reads the store. Trees of an
            // operation that never committed (a killed delete or import) go too: nothing refers to them.
            try store.files.locked(exclusive: true) { () throws(CKError) in
                if let op = try store.files.finishInterrupted() { store.warn(Diagnostic(place: store.root, "finished an interrupted '\(op)'")) }
            }
        }
        if !store.files.hasConfig { try store.perform(.storeInit, container: nil) { () throws(CKError) in try store.create() } }
        return store
    }

    /// Whether a store exists at `path` (its ck.json or its containers).
    public static func exists(at path: String) -> Bool {
        StoreRoot(path: path).exists
    }

    /// Creates a store at `path` if none is there; returns false when one already existed.
    @discardableResult
    public static func initialize(at path: String, hooks: PipelineHooks = PipelineHooks()) throws(CKError) -> Bool {
        let store = CKStore(location: StoreLocation(path: path, source: .flag))
        store.hooks = hooks
        if store.files.hasConfig { return false }
        try store.perform(.storeInit, container: nil) { () throws(CKError) in try store.create() }
        return true
    }

    package func warn(_ diagnostic: Diagnostic) { state.withLock { $0.warnings.append(diagnostic) } }
    package func warn(_ diagnostics: [Diagnostic]) { state.withLock { $0.warnings.append(contentsOf: diagnostics) } }

    private func create() throws(CKError) {
        try writingRoot(makeDirectory: true) { (writes) throws(CKError) in
            if files.hasConfig { return }
            // A store that lost its ck.json keeps its containers; only an empty one gets the default container.
            var current = try containerIDsBody().first
            if current == nil {
                writes.append(.createContainer(id: CKStore.defaultContainerID, created: now()))
                current = CKStore.defaultContainerID
            }
            // ck.json last: its presence means the store is complete.
            writes.append(.config(StoreRoot.config(current: current)))
        }
    }

    // MARK: ck.json

    package func readConfig() throws(CKError) -> [String: JSON] {
        guard let o = try files.readConfig() else {
            throw CKError.corrupt(path: configPath, "missing; run 'ck init' or remove the directory to start afresh")
        }
        if let f = o["format"]?.int64Value, f > CKStore.formatVersion {
            throw CKError(.incompatibleVersion, "\(configPath): store format \(f) is newer than this ck understands (\(CKStore.formatVersion))",
                          hint: "upgrade ck")
        }
        return o
    }

    /// The container commands use when none is named.
    public func currentContainerID() throws(CKError) -> String {
        let config = try readConfig()
        guard let id = config["currentContainer"]?.stringValue else {
            throw CKError.corrupt(path: configPath, "\"currentContainer\" is missing or not a string")
        }
        return id
    }

    // MARK: Containers

    package func containerDir(_ id: String) -> String { files.containerDir(id) }

    /// Identifiers of all containers, sorted.
    package func containerIDsBody() throws(CKError) -> [String] {
        files.containerIDs()
    }

    /// Makes sure a container exists, creating it if missing; `use` makes it current. Returns whether it was created.
    /// (Containers are made once in the developer portal, not by apps; set-up scripts stay idempotent.)
    @discardableResult
    package func createContainerBody(_ id: String, use: Bool = false) throws(CKError) -> Bool {
        try Names.validateContainerID(id)
        return try writingRoot { (writes) throws(CKError) -> Bool in
            let created = !files.hasContainer(id)
            if created { writes.append(.createContainer(id: id, created: now())) }
            if use { writes.append(try settingCurrent(id, created: created)) }
            return created
        }
    }

    /// Creates a container unless it exists (cktool's containers exist before any command names them);
    /// true when this call created it.
    package func ensureContainerBody(_ id: String) throws(CKError) -> Bool {
        if files.hasContainer(id) { return false }
        try refuseNearMiss(container: id)
        do { try createContainerBody(id) } catch {
            // Another process created it first.
            if error.code == .serverRecordChanged { return false }
            throw error
        }
        return true
    }

    /// Makes a container current (stored in ck.json).
    package func useContainerBody(_ id: String) throws(CKError) {
        try writingRoot { (writes) throws(CKError) in writes.append(try settingCurrent(id)) }
    }

    /// ck.json with `id` current; `created`: the container is made by the same operation.
    private func settingCurrent(_ id: String, created: Bool = false) throws(CKError) -> RootChange {
        if !created { try requireContainer(id) }
        var config = try readConfig()
        config["currentContainer"] = .string(id)
        return .config(config)
    }

    package func requireContainer(_ id: String) throws(CKError) {
        // Checked before the lookup: an ID with '/' or '..' would name a directory outside the store.
        try Names.validateContainerID(id)
        guard files.hasContainer(id) else {
            let close = Names.alternatives(Names.nearMisses(of: id, among: files.containerIDs()))
            throw CKError(.badContainer, "container '\(id)' does not exist in \(root)",
                          hint: (close.isEmpty ? "" : "did you mean \(close)? Or ")
                              + "create it with 'ck container create \(id)' or list them with 'ck container list'")
        }
    }

    /// Refuses to create a container implicitly (cktool's --container-id, an import) when its identifier is a near
    /// miss of one the store has: `iCloud.com.exmaple.app` beside `iCloud.com.example.app` is a typo.
    package func refuseNearMiss(container id: String) throws(CKError) {
        guard !files.hasContainer(id) else { return }
        let close = Names.nearMisses(of: id, among: files.containerIDs())
        guard !close.isEmpty else { return }
        throw Names.nearMissError(.badContainer, what: "container", name: id, place: "in \(root)", close: close,
                                  create: "ck container create \(id)")
    }

    /// Deletes a container and all its data; if it was current, another container (if any) becomes current.
    package func deleteContainerBody(_ id: String) throws(CKError) {
        try writingRoot { (writes) throws(CKError) in
            try files.finishInterrupted()
            try requireContainer(id)
            var config = try readConfig()
            // ck.json, the container and its devices change together: a crash leaves all three as before or after.
            var changed: [String: JSON]? = nil
            if config["currentContainer"]?.stringValue == id {
                let others = try containerIDsBody().filter { $0 != id }
                config["currentContainer"] = others.first.map { .string($0) } ?? .null
                changed = config
            }
            // Devices are clients of this container only: the layout lists their replicas among its files.
            writes.append(.deleteContainer(id: id, config: changed))
        }
    }

    /// A container by id, or the current one.
    public func container(_ id: String? = nil) throws(CKError) -> CKContainer {
        let cid: String
        if let id { cid = id } else {
            let config = try readConfig()
            guard let current = config["currentContainer"]?.stringValue else {
                throw CKError(.badContainer, "no current container", hint: "create one with 'ck container create iCloud.<id> --use'")
            }
            cid = current
        }
        try requireContainer(cid)
        return CKContainer(store: self, identifier: cid)
    }
}
