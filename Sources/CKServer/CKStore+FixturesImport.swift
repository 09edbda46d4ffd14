import CKModel
import CKStorage

/// Imports that create their container, and undoing a store an import created: a failed import leaves nothing.
extension CKStore {
    /// Imports `doc` into a container `id` that does not exist yet, as one operation: the container is built
    /// aside (in the pending directory of a root intent) and renamed in only once the import succeeded, so a
    /// failed import, or a crash before the commit, leaves no container behind.
    package func importFixturesBody(intoNewContainer id: String, _ doc: FixtureDocument, into environment: Environment, as caller: Caller,
                               allUsers: Bool, replace: Bool, label: String,
                               progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> FixtureSummary {
        try Names.validateContainerID(id)
        return try files.createContainerAside(id, operation: "import into new container \(id)", build: { (scratchRoot) throws(CKError) -> FixtureSummary in
            // A store of its own inside the pending directory: the import runs there as into any container.
            let scratch = CKStore(location: StoreLocation(path: scratchRoot, source: .flag))
            scratch.hooks = hooks
            scratch.now = now
            scratch.indexEnabled = indexEnabled
            try scratch.writingRoot(makeDirectory: true) { (writes) throws(CKError) in writes.append(.createContainer(id: id, created: now())) }
            defer { warn(scratch.warnings) }
            return try CKContainer(store: scratch, identifier: id).importFixtures(doc, into: environment, as: caller, allUsers: allUsers,
                                                                               replace: replace, label: label, progress: progress)
        }, taken: {
            CKError(.serverRecordChanged, "container '\(id)' was created by another command during the import; nothing was imported",
                    serverErrorCode: "EXISTS", hint: "import into it with -c \(id)")
        })
    }

    /// Removes a store that a failed command created at `path` and nothing else has used: its ck.json (first: a
    /// store without it is no store), containers, devices and lock (what `StoreLayout` puts at the root),
    /// and the directory itself when `directory` says the command made it too.
    public static func discard(createdAt path: String, directory: Bool) {
        StoreRoot(path: path).discard(directory: directory)
    }
}
