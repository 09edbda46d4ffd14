import Foundation
#if canImport(Glibc)
import Glibc
import CKFiles
import CKModel
import CKStorage
#endif

/// Imports that create their container, and undoing a store an import created: a failed import leaves nothing.
extension CKStore {
    /// Imports `doc` into a container `id` that does not exist yet, as one operation: the container is built
    /// aside (in the pending directory of a root intent) and renamed in only once the import succeeded, so a
    /// failed import, or a crash before the commit, leaves no container behind.
    package func importFixturesBody(intoNewContainer id: String, _ doc: JSON, into environment: Environment, as caller: Caller,
                               allUsers: Bool, replace: Bool, label: String,
                               progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> FixtureSummary {
        try Names.validateContainerID(id)
        let intent = try Intent(base: root, operation: "import into new container \(id)")
        let built = intent.stage("containers/" + id)
        // A store of its own inside the pending directory: the import runs there as into any container.
        let scratch = CKStore(location: StoreLocation(path: root + "/" + intent.pending + "/scratch", source: .flag))
        scratch.hooks = hooks
        scratch.now = now
        scratch.indexEnabled = indexEnabled
        try FileIO.makeDirectory(scratch.root)
        try scratch.createContainerFiles(id)
        let summary: FixtureSummary
        do throws(CKError) {
            summary = try CKContainer(store: scratch, identifier: id).importFixtures(doc, into: environment, as: caller, allUsers: allUsers,
                                                                                  replace: replace, label: label, progress: progress)
        } catch {
            warn(scratch.warnings)
            throw error
        }
        warn(scratch.warnings)
        guard rename(scratch.containerDir(id), built) == 0 else {
            throw CKError.internalError("cannot move \(scratch.containerDir(id)) to \(built): \(FileIO.errnoText())")
        }
        let lock = try FileLock(path: lockPath, exclusive: true)
        defer { lock.unlock() }
        if FileIO.exists(containerDir(id) + "/container.json") {
            throw CKError(.serverRecordChanged, "container '\(id)' was created by another command during the import; nothing was imported",
                          serverErrorCode: "EXISTS", hint: "import into it with -c \(id)")
        }
        try intent.commit()
        return summary
    }

    /// Removes a store that a failed command created at `path` and nothing else has used: its ck.json (first: a
    /// store without it is no store), containers, devices and lock,
    /// and the directory itself when `directory` says the command made it too.
    public static func discard(createdAt path: String, directory: Bool) {
        for name in ["ck.json", "containers", "devices", ".lock"] where FileIO.lexists(path + "/" + name) {
            FileIO.removeNow(path + "/" + name)
        }
        if directory { rmdir(path) }
    }
}
