import CKFiles
import CKModel

/// A zone log's fsync taken out of the environment's lock (group commit): opened while the lock is held, so it is
/// the file the request's lines went to, and synced once the lock is released, so writers waiting for the lock
/// append meanwhile and one flush of the disk covers several requests. A request is reported only after its sync.
package struct LogSync {
    private let file: FileIO.DeferredSync?

    /// Opens the log at `path` for a later sync (call with the lock held, after the lines were appended).
    package init(_ path: String) { file = FileIO.DeferredSync(path) }

    /// Makes the lines appended before `init` durable.
    package func sync() throws(CKError) { try file?.sync() }
}
