import CKFiles
import CKModel

/// What the server asks of an environment's files beyond logs and catalogs: asset bytes, sizes, key-value store
/// names, and the writes that compaction and zone creation make.
extension EnvironmentStore {
    /// An asset's bytes; nil when the store lacks them.
    package func readAsset(_ sha256: String) throws(CKError) -> [UInt8]? { try FileIO.read(assetPath(sha256)) }

    /// Whether the store has an asset's bytes.
    package func hasAsset(_ sha256: String) -> Bool { FileIO.exists(assetPath(sha256)) }

    /// The size of an asset's bytes; nil when the store lacks them.
    package func assetSize(_ sha256: String) -> Int? { FileIO.fileInfo(assetPath(sha256))?.size }

    /// The names of the files in the assets directory.
    package func assetNames() -> [String] { FileIO.list(assetsDir) }

    /// The size of a file of the environment (a zone log); 0 when it is missing.
    package func fileSize(_ path: String) -> Int { FileIO.fileInfo(path)?.size ?? 0 }

    /// Whether subscriptions.json exists.
    package var hasSubscriptionsFile: Bool { FileIO.exists(subscriptionsPath) }

    /// The users with a key-value store file, by user record name.
    package func keyValueUsers() -> [String] {
        FileIO.list(keyValueDir).filter { $0.hasSuffix(".json") && !$0.hasPrefix(".") }.map { String($0.dropLast(5)) }
    }

    /// Replaces a zone log by its compacted lines (atomically) and brings the index in step.
    func rewriteLog(_ path: String, _ bytes: [UInt8]) throws(CKError) {
        try FileIO.atomicWrite(path, bytes)
        try index()?.sync(path, warnings: &warnings)
    }

    /// Removes a log no zone owns (left by a delete that was interrupted) and brings the index in step.
    func removeStrayLog(_ path: String) throws(CKError) {
        guard FileIO.exists(path) else { return }
        try FileIO.removeTree(path)
        try index()?.sync(path, warnings: &warnings)
    }

    /// Reads the records at index rows of one log, opening it once: `body` gets each row's record (nil when the row
    /// no longer names a saved record) and returns whether to go on.
    package func readRows(_ index: RecordIndex, _ q: RecordIndex.SQLQuery, log path: String,
                          _ body: (Record?) throws(CKError) -> Bool) throws(CKError) {
        let log = try ReadHandle(path)
        try index.rows(q) { (offset, length) throws(CKError) -> Bool in
            try body(try RecordIndex.read(path, at: (offset, length), handle: log))
        }
    }
}
