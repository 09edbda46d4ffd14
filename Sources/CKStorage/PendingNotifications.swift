#if canImport(Glibc)
import Glibc
import CKFiles
import CKModel
import CKSchema
#endif

/// What takes effect together with one request's lines, recorded (fsynced) before its log append: the
/// notifications it produces, the schema its records grew (just in time) and the fault rules' counts it spent.
/// `.notifications-pending.json` names the log, where the request starts and its first sequence number; the
/// writer applies the rest once the lines are in. Whoever next holds the environment's lock (or `ck doctor
/// --repair`) applies them if the request is whole in the log, and drops them if it is not (it never happened),
/// so a crash never leaves a schema change or a spent count without its records.
package struct PendingNotifications {
    package static let fileName = ".notifications-pending.json"

    /// The zone log, relative to the environment directory.
    package var log: String
    /// Where the request's lines start, how many there are, and the first one's sequence number.
    package var offset: Int
    package var count: Int
    package var firstSeq: Int64
    package var byOwner: [String: [SubscriptionNotification]]
    /// The subscriptions file to write afterwards, when firing spent fire-once subscriptions.
    package var subscriptions: SubscriptionFile?
    /// The environment's schema as the request's records grew it (nil: unchanged).
    package var schema: Schema?
    /// faults.json as the request's fault stage left it (nil: no count moved).
    package var faults: JSON?

    package static func path(_ env: EnvironmentStore) -> String { env.dir + "/" + fileName }

    package var json: JSON {
        var o: [String: JSON] = [
            "format": .int(1), "log": .string(log), "offset": .int(Int64(offset)), "count": .int(Int64(count)),
            "firstSeq": .int(firstSeq),
            "notifications": .object(byOwner.mapValues { .array($0.map { $0.json() }) }),
        ]
        if let subscriptions { o["subscriptions"] = subscriptions.json }
        if let schema { o["schema"] = schema.json }
        if let faults { o["faults"] = faults }
        return .object(o)
    }

    package init(log: String, offset: Int, count: Int, firstSeq: Int64, byOwner: [String: [SubscriptionNotification]] = [:],
                 subscriptions: SubscriptionFile? = nil) {
        self.log = log
        self.offset = offset
        self.count = count
        self.firstSeq = firstSeq
        self.byOwner = byOwner
        self.subscriptions = subscriptions
    }

    package init(json o: [String: JSON], path: String) throws(CKError) {
        guard let log = o["log"]?.stringValue, !log.hasPrefix("/"), !log.split(separator: "/").contains(".."),
              let offset = o["offset"]?.int64Value, let count = o["count"]?.int64Value, let first = o["firstSeq"]?.int64Value,
              let lists = o["notifications"]?.objectValue else {
            throw CKError.corrupt(path: path, "not a record of pending notifications ck wrote")
        }
        self.log = log
        self.offset = Int(offset)
        self.count = Int(count)
        self.firstSeq = first
        var byOwner: [String: [SubscriptionNotification]] = [:]
        for (owner, list) in lists {
            guard Names.isUserRecordName(owner) else { throw CKError.corrupt(path: path, "'\(Names.describe(owner))' is not a user record name") }
            for (i, n) in (list.arrayValue ?? []).enumerated() {
                byOwner[owner, default: []].append(try SubscriptionNotification(json: n, path: "notifications.\(owner)[\(i)]"))
            }
        }
        self.byOwner = byOwner
        if case .object(let s)? = o["subscriptions"] { subscriptions = try SubscriptionFile(json: s, path: path) }
        if case .object(let s)? = o["schema"] { schema = try Schema(json: s, path: path) }
        if case .object? = o["faults"] { faults = o["faults"] }
    }

    /// Records them durably; call before the request's log append.
    func record(_ env: EnvironmentStore) throws(CKError) { try JSONFile.write(PendingNotifications.path(env), json) }

    /// Writes the schema and faults.json, appends the notifications to each owner's log (skipping any already there
    /// when `checkExisting`), writes the subscriptions file, and drops the record. The zone log is synced first: a
    /// notification, a schema change or a spent count never goes with a change a crash could lose.
    func deliver(_ env: EnvironmentStore, checkExisting: Bool) throws(CKError) {
        try FileIO.sync(env.dir + "/" + log)
        if let schema { try JSONFile.write(env.schemaPath, schema.json) }
        if let faults { try FaultsFile(envDir: env.dir).write(faults) }
        for owner in byOwner.keys.sorted() {
            guard var list = byOwner[owner] else { continue }
            let path = env.notificationsPath(owner)
            if checkExisting {
                var have = Set<String>()
                for case .notify(let n) in try NotificationLog.read(path, tolerant: true).entries { have.insert(n.notificationID) }
                list.removeAll { have.contains($0.notificationID) }
            }
            try NotificationLog.append(path, list.map { .notify($0) })
        }
        if let subscriptions { try subscriptions.write(env.subscriptionsPath) }
        try PendingNotifications.discard(env)
    }

    /// Whether the record waiting in `env` holds notifications (false when there is none, or it can't be read).
    package static func carriesNotifications(_ env: EnvironmentStore) -> Bool {
        let path = PendingNotifications.path(env)
        guard let o = try? JSONFile.readObject(path), let p = try? PendingNotifications(json: o, path: path) else { return false }
        return !p.byOwner.isEmpty
    }

    package static func discard(_ env: EnvironmentStore) throws(CKError) {
        let path = PendingNotifications.path(env)
        try FileIO.unlink(path)
        FileIO.syncDirectory(env.dir)
    }

    /// Finishes what a crash interrupted (call with the exclusive lock held): delivers the notifications if their
    /// request is whole in the log, else drops them. Returns whether they were delivered; nil when nothing was pending.
    @discardableResult
    package static func recover(_ env: EnvironmentStore) throws(CKError) -> Bool? {
        let path = PendingNotifications.path(env)
        guard let o = try JSONFile.readObject(path) else { return nil }
        let pending = try PendingNotifications(json: o, path: path)
        let contents = try ZoneLog.read(env.dir + "/" + pending.log, from: pending.offset, firstLine: 1)
        guard contents.entries.count >= pending.count, contents.entries.first?.seq == pending.firstSeq else {
            try discard(env)
            return false
        }
        try pending.deliver(env, checkExisting: true)
        return true
    }
}
