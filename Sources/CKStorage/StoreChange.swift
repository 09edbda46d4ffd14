import CKModel
import CKSchema

/// One change an operation makes to an environment's files. Operation bodies return these instead of writing;
/// the pipeline's last stage hands them to `EnvironmentStore.apply`, the one writer, which orders their effects.
package enum StoreChange {
    /// Asset bytes, stored under their SHA-256 (once; identical content is shared).
    case asset(sha256: String, bytes: [UInt8])
    /// The environment's schema, whole.
    case schema(Schema)
    /// One request's lines appended to a zone log after `tail` (the log as the request found it), with the
    /// notifications they make: recorded durably before the lines, delivered after them.
    case records(path: String, entries: [LogEntry], tail: ZoneLogContents, notifications: PendingNotifications?)
    /// Makes lines appended to a zone log durable (a streaming modify syncs every few requests).
    case syncLog(String)
    /// The zone catalog, whole.
    case catalog(ZoneCatalog)
    /// Removes a log no zone owns (left by a delete that was interrupted).
    case removeStrayLog(String)
    /// Zones dropped (delete, purge; `operation` names the intent): the new catalog, the logs removed and each
    /// owner's new notifications change in one intent.
    case dropZones(operation: String, catalog: ZoneCatalog, logs: [String], notifications: [String: [SubscriptionNotification]])
    /// subscriptions.json, whole.
    case subscriptions(SubscriptionFile)
    /// Notifications marked read in their owner's log (a line appended; nothing is rewritten).
    case notificationsRead(owner: String, ids: [String], at: Int64)
    /// A user's key-value store file, whole.
    case keyValue(KVServerFile)
    /// A zone log replaced by its compacted lines.
    case compactedLog(path: String, bytes: [UInt8])
    /// Asset bytes no record refers to, removed.
    case removeAsset(String)
    /// The environment's data replaced whole (import, reset), in one intent.
    case replaceEnvironment(EnvironmentReplacement)
    /// faults.json, whole (written under `.faults.lock`, which the fault stage holds).
    case faults(JSON)
}

/// An environment's new data, by names in the environment ("public", "private/<user>", "schema.json", …), built
/// aside and swapped in whole. Names not in `staging` are skipped; `remove` lists what goes without a replacement.
package struct EnvironmentReplacement {
    package var operation: String
    package var staging: [String]
    package var remove: [String] = []
    /// Trees that start empty.
    package var trees: [String] = []
    /// Files of bytes (asset files) by name.
    package var files: [(name: String, bytes: [UInt8])] = []
    /// Users' key-value stores by name.
    package var keyValue: [(name: String, file: KVServerFile)] = []
    /// Zone logs by name, in order, written in requests of `chunk` lines.
    package var logs: [(name: String, entries: [LogEntry])] = []
    package var chunk = 200
    /// Asset files and zone log lines made while the replacement is built, so they are never all in memory (a
    /// fixtures import reads them from its document again): handed a writer of files and a writer of one
    /// request's lines (by log name, each at most `chunk` lines), it returns the catalog to write in place of
    /// `catalog` (the one its sequence numbers end in).
    package var build: ((_ file: (String, [UInt8]) throws(CKError) -> Void,
                         _ lines: (String, [LogEntry]) throws(CKError) -> Void) throws(CKError) -> ZoneCatalog)?
    package var schema: Schema?
    package var catalog: ZoneCatalog?
    package var subscriptions: SubscriptionFile?

    package init(operation: String, staging: [String]) {
        self.operation = operation
        self.staging = staging
    }
}

/// One change to the files at a store's root. The pipeline hands them to `StoreRoot.apply` under the root lock.
package enum RootChange {
    /// ck.json, whole.
    case config([String: JSON])
    /// A container's container.json, whole.
    case containerInfo(id: String, [String: JSON])
    /// A container's auth.json (ck serve's tokens and keys), whole.
    case serveAuth(id: String, JSON)
    /// A new container: its environments' trees, empty schema and catalog, then its container.json.
    case createContainer(id: String, created: Int64)
    /// A container and all that belongs to it removed, with ck.json replaced when given, in one intent.
    case deleteContainer(id: String, config: [String: JSON]?)
    /// clock.json, whole (the real time removes it).
    case clock(StoreClock)
}
