#if canImport(Glibc)
import Glibc
import CKFiles
import CKModel
#endif

/// The notifications one request produces, recorded (fsynced) before its log append, so that a crash between
/// the append and the notification logs loses none: `.notifications-pending.json` names the log, where the
/// request starts and its first sequence number. Whoever next holds the environment's lock (or `ck doctor
/// --repair`) delivers them if the request is whole in the log, and drops them if it is not (it never happened).
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

    package static func path(_ env: EnvironmentStore) -> String { env.dir + "/" + fileName }

    package var json: JSON {
        var o: [String: JSON] = [
            "format": .int(1), "log": .string(log), "offset": .int(Int64(offset)), "count": .int(Int64(count)),
            "firstSeq": .int(firstSeq),
            "notifications": .object(byOwner.mapValues { .array($0.map { $0.json() }) }),
        ]
        if let subscriptions { o["subscriptions"] = subscriptions.json }
        return .object(o)
    }

    package init(log: String, offset: Int, count: Int, firstSeq: Int64, byOwner: [String: [SubscriptionNotification]], subscriptions: SubscriptionFile?) {
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
    }

    /// Records them durably; call before the request's log append.
    func record(_ env: EnvironmentStore) throws(CKError) { try JSONFile.write(PendingNotifications.path(env), json) }

    /// Appends them to each owner's log (skipping any already there when `checkExisting`), writes the subscriptions
    /// file, and drops the record. The zone log is synced first: a notification never names a change a crash could lose.
    func deliver(_ env: EnvironmentStore, checkExisting: Bool) throws(CKError) {
        try FileIO.sync(env.dir + "/" + log)
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
