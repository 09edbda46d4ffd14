import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CKFiles
import CKModel
import CKSchema

/// The files at a store's root: ck.json, its lock, the containers' directories and what belongs to each container
/// (see `StoreLayout`). Every change to them is locked, atomic and crash-safe here; the server decides what to change.
package struct StoreRoot: Sendable {
    package let path: String

    /// The store at `path`: from now on no path below it is reached through a symbolic link (`StoreBoundary`).
    package init(path: String) {
        self.path = path
        StoreBoundary.register(path)
    }

    package var configPath: String { path + "/" + StoreLayout.configName }
    package var lockPath: String { path + "/" + StoreLayout.lockName }
    package func containerDir(_ id: String) -> String { path + "/" + StoreLayout.containersName + "/" + id }
    package func containerInfoPath(_ id: String) -> String { containerDir(id) + "/" + StoreLayout.containerInfoName }
    /// A container's auth.json (ck serve's web auth tokens and server-to-server keys).
    package func serveAuthPath(_ id: String) -> String { containerDir(id) + "/" + StoreLayout.serveAuthName }

    /// Whether a store is there (its ck.json or its containers).
    package var exists: Bool { FileIO.exists(configPath) || FileIO.isDirectory(path + "/" + StoreLayout.containersName) }
    package var hasConfig: Bool { FileIO.exists(configPath) }
    package func hasContainer(_ id: String) -> Bool { FileIO.exists(containerInfoPath(id)) }

    /// Runs `body` holding the root lock (ck.json and every container.json).
    package func locked<T>(exclusive: Bool, _ body: () throws(CKError) -> T) throws(CKError) -> T {
        let lock = try FileLock(path: lockPath, exclusive: exclusive)
        defer { lock.unlock() }
        return try body()
    }

    /// Whether an operation on several root files was interrupted.
    package var hasInterruptedOperation: Bool { FileIO.lexists(path + "/" + Intent.fileName) }

    /// Whether a root operation that died before it committed (a killed container delete or import) left its tree.
    package var hasLeftoverTrees: Bool { !Intent.leftovers(path).trees.isEmpty }

    /// Finishes (or rolls back) an interrupted root operation; returns its name. Call with the root lock held.
    @discardableResult
    package func finishInterrupted() throws(CKError) -> String? { try Intent.recover(path, permits: IntentRules.root) }

    /// Refuses a store whose containers/ or devices/ is a symbolic link: listed, it would read as empty.
    package func refuseLinkedTrees() throws(CKError) {
        try FileIO.refuseLinks(in: path, [StoreLayout.containersName, StoreLayout.devicesName])
    }

    /// Makes the root directory.
    package func makeDirectory() throws(CKError) { try FileIO.makeDirectory(path) }

    // MARK: ck.json

    /// ck.json's object; nil when it is missing.
    package func readConfig() throws(CKError) -> [String: JSON]? { try JSONFile.readObject(configPath) }

    func writeConfig(_ config: [String: JSON]) throws(CKError) { try JSONFile.write(configPath, .object(config)) }

    /// A fresh ck.json naming `current`.
    package static func config(current: String?) -> [String: JSON] {
        ["format": .int(StoreLayout.formatVersion), "currentContainer": current.map { .string($0) } ?? .null]
    }

    // MARK: Containers

    /// Identifiers of the containers that have a container.json, sorted.
    package func containerIDs() -> [String] {
        FileIO.list(path + "/" + StoreLayout.containersName).filter { !$0.hasPrefix(".") && hasContainer($0) }
    }

    /// Makes a container's environments (trees, empty schema and zone catalog) and then its container.json, all or
    /// nothing: built in a root intent's pending tree and renamed into place, so a crash never leaves half a
    /// container. A directory already there without container.json (left by an older ck, or by hand) is
    /// completed in place instead, so nothing in it is lost. Call with the root lock held.
    func createContainerFiles(_ id: String, created: Int64) throws(CKError) {
        guard !FileIO.lexists(containerDir(id)) else {
            try fillContainer(containerDir(id), id, created: created)
            return
        }
        try FileIO.makeDirectory(path)
        let intent = try Intent(base: path, operation: "container create \(id)")
        try fillContainer(intent.stage(StoreLayout.containersName + "/" + id), id, created: created)
        try intent.commit()
    }

    private func fillContainer(_ dir: String, _ id: String, created: Int64) throws(CKError) {
        for env in Environment.allCases {
            let envDir = dir + "/" + env.rawValue
            for tree in StoreLayout.environmentTrees { try FileIO.makeDirectory(envDir + "/" + tree) }
            if !FileIO.exists(envDir + "/schema.json") { try JSONFile.write(envDir + "/schema.json", Schema().json) }
            if !FileIO.exists(envDir + "/zones.json") { try JSONFile.write(envDir + "/zones.json", ZoneCatalog().json) }
        }
        try ContainerFile(path: dir + "/" + StoreLayout.containerInfoName).write(ContainerFile.fresh(id, created: created))
    }

    /// Removes a container and everything the layout says belongs to it (its devices too), with ck.json replaced
    /// by `config` when given, in one intent: a crash leaves all of them as before or after. Takes each
    /// environment's lock, so no command is inside the container; call with the root lock held.
    func deleteContainer(_ id: String, config: [String: JSON]?) throws(CKError) {
        let dir = containerDir(id)
        var envLocks: [FileLock] = []
        for env in Environment.allCases {
            envLocks.append(try FileLock(path: dir + "/" + env.rawValue + "/" + StoreLayout.lockName, exclusive: true))
        }
        defer { envLocks.forEach { $0.unlock() } }
        let intent = try Intent(base: path, operation: "container delete \(id)")
        if let config { try JSONFile.write(intent.stage(StoreLayout.configName), .object(config)) }
        for tree in StoreLayout.containerTrees(id) { intent.remove(tree) }
        try intent.commit()
    }

    /// Builds a new container `id` aside, in the pending directory of a root intent, and renames it in only once
    /// `build` succeeded, so a failed build, or a crash before the commit, leaves no container behind. `build`
    /// gets the root of a scratch store to build the container in; `taken` is thrown when another command
    /// created the container meanwhile.
    package func createContainerAside<T>(_ id: String, operation: String, build: (String) throws(CKError) -> T,
                                         taken: () -> CKError) throws(CKError) -> T {
        let intent = try Intent(base: path, operation: operation)
        let built = intent.stage(StoreLayout.containersName + "/" + id)
        let scratch = StoreRoot(path: path + "/" + intent.pending + "/scratch")
        try scratch.makeDirectory()
        let result = try build(scratch.path)
        try FileIO.rename(scratch.containerDir(id), built)
        try locked(exclusive: true) { () throws(CKError) in
            if hasContainer(id) { throw taken() }
            try intent.commit()
        }
        return result
    }

    /// Removes a store that a failed command created and nothing else has used: what the layout puts at the root
    /// (ck.json first: a store without it is no store), and the directory itself when `directory` says so.
    package func discard(directory: Bool) {
        for name in StoreLayout.rootNames where FileIO.lexists(path + "/" + name) { FileIO.removeNow(path + "/" + name) }
        if directory { FileIO.removeEmptyDirectory(path) }
    }
}
