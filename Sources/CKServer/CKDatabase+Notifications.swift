import Foundation
import CKModel
import CKQuery
import CKSchema
import CKStorage

extension CKDatabase {
    /// This user's notifications, oldest first: all, or only unread ones, or only those after `since` (an ID).
    public func notifications(unreadOnly: Bool = false, since: String? = nil) throws(CKError) -> [SubscriptionNotification] {
        try perform(.notificationList) { (_) throws(CKError) -> [SubscriptionNotification] in
            var list = try readNotifications()
            if let since {
                guard let i = list.firstIndex(where: { $0.notificationID == since }) else {
                    throw CKError(.unknownItem, "Notification not found: '\(since)'", hint: "'ck notification list' shows this user's notifications")
                }
                list.removeFirst(i + 1)
            }
            return unreadOnly ? list.filter { !$0.read } : list
        }
    }

    /// Marks notifications read (CKMarkNotificationsReadOperation); nil marks all. Returns the IDs newly marked.
    /// An unknown ID fails the call and nothing is marked.
    @discardableResult
    public func markNotificationsRead(_ ids: [String]?) throws(CKError) -> [String] {
        try perform(.notificationRead) { (state) throws(CKError) -> [String] in
            let list = try readNotifications()
            let known = Set(list.map(\.notificationID))
            if let ids, let missing = ids.first(where: { !known.contains($0) }) {
                throw CKError(.unknownItem, "Notification not found: '\(missing)'; nothing was marked read",
                              hint: "'ck notification list' shows this user's notifications")
            }
            let wanted = ids.map(Set.init)
            var seen = Set<String>()
            let marked = list.filter { !$0.read && (wanted?.contains($0.notificationID) ?? true) }.map(\.notificationID)
                .filter { seen.insert($0).inserted }
            // Marking appends a line: notifications already acknowledged are never rewritten.
            if !marked.isEmpty { state.changes.append(.notificationsRead(owner: userRecordName, ids: marked, at: store.now())) }
            return marked
        }
    }

    /// The notification log of this user, with read flags applied (call with a lock held).
    package func readNotifications() throws(CKError) -> [SubscriptionNotification] {
        let c = try NotificationLog.read(env.notificationsPath(userRecordName))
        if c.tornBytes > 0 { env.warnings.append(Diagnostic(place: env.notificationsPath(userRecordName), "torn last line (\(c.tornBytes) bytes) ignored")) }
        var out: [SubscriptionNotification] = []
        var index: [String: Int] = [:]
        for e in c.entries {
            switch e {
            case .notify(let n):
                index[n.notificationID] = out.count
                out.append(n)
            case .read(let ids, _):
                for id in ids { if let i = index[id] { out[i].read = true } }
            }
        }
        return out
    }

    /// The notifications the owner's database subscriptions make for a deleted zone (written by the caller).
    package func zoneDeletedNotifications(_ zone: Zone, recordTypes: Set<String>, file: SubscriptionFile) -> [SubscriptionNotification] {
        var out: [SubscriptionNotification] = []
        for s in file.subscriptions where s.database == .private && s.ownerRecordName == zone.zoneID.ownerRecordName {
            guard case .database(let type) = s.kind, type.map(recordTypes.contains) ?? true else { continue }
            out.append(SubscriptionNotification(notificationID: UUID().uuidString, kind: .database, subscription: s,
                                                deviceID: deviceID, time: store.now()))
        }
        return out
    }
}

/// The subscriptions that a modify call in one zone can fire, read once per call, and the notifications they make.
package struct NotificationHook {
    package let db: CKDatabase
    package let zone: Zone
    package var file: SubscriptionFile
    /// The subscriptions watching this zone, in file order.
    package var watching: [Subscription]
    /// Query plans by subscription key, compiled on first use; nil when the predicate no longer compiles.
    package var plans: [String: (plan: QueryPlan, searchable: [String])?] = [:]

    /// One record change of a request: the record before (nil: created) and after (nil: deleted).
    package struct Change { var before: Record?; var after: Record? }

    package init(db: CKDatabase, zone: Zone) {
        self.db = db
        self.zone = zone
        // A missing file means no subscriptions: the common case costs one failed open. A damaged one stops
        // subscription work only: the save goes ahead, and says its notifications could not be matched.
        do throws(CKError) { file = try SubscriptionFile.read(db.env.subscriptionsPath) } catch {
            db.notes.append(Diagnostic("notifications for this change could not be matched: \(error.reason)", hint: "run 'ck doctor'"))
            file = SubscriptionFile()
        }
        let owner = zone.zoneID.ownerRecordName
        // A participant's write through the shared database changes the owner's private zone.
        // The zone's own database decides: a participant's write through the shared database, or an accept
        // through any handle, changes the owner's private zone.
        let scope: DatabaseScope = zone.database == .public ? .public : .private
        watching = file.subscriptions.filter { s in
            guard s.database == scope else { return false }
            // Private databases are per user: only the owner's own subscriptions see its zones.
            if scope != .public && s.ownerRecordName != owner { return false }
            switch s.kind {
            case .query(_, _, _, _, _, let z): return z == nil || z == zone.zoneID.zoneName
            case .recordZone(let z, _): return z == zone.zoneID.zoneName
            case .database: return !zone.zoneID.isDefault
            }
        }
        // Participants' shared databases show this zone through their accepted shares: their database
        // subscriptions watch it too, and fire only for changes those shares reach (SharedSubscribers).
        if scope == .private, !zone.zoneID.isDefault, zone.capabilities.contains(.sharing) {
            sharers = SharedSubscribers(db: db, zone: zone, subscriptions: file.subscriptions.filter { s in
                guard s.database == .shared, s.ownerRecordName != owner, case .database = s.kind else { return false }
                return true
            })
        }
    }

    /// Participants' database subscriptions in the shared database that may see this zone (nil: none).
    package var sharers: SharedSubscribers?

    package var isEmpty: Bool { watching.isEmpty && (sharers?.subscriptions.isEmpty ?? true) }

    /// Permission views of subscription owners, made on first use.
    package var owners: [String: RecordGate] = [:]

    /// Whether a public-database subscription's owner may read the record: a notification never reveals more.
    package mutating func mayRead(_ record: Record, owner: String, schema: Schema) -> Bool {
        guard zone.database == .public else { return true }
        if owners[owner] == nil {
            owners[owner] = RecordGate.subscriber(try? db.container.user(recordName: owner), environment: db.environment)
        }
        return owners[owner]?.mayRead(record, schema: schema) ?? false
    }

    /// The changes a request's entries make, each with the record before it (read before the entries are applied).
    package func changes(_ entries: [LogEntry], reader: ZoneReader) throws(CKError) -> [Change] {
        var current: [String: Record?] = [:]
        var out: [Change] = []
        for e in entries {
            let before: Record?
            if let c = current[e.recordName] { before = c } else { before = try reader.record(e.recordName) }
            switch e {
            case .save(_, let r):
                out.append(Change(before: before, after: r))
                current[e.recordName] = .some(r)
            case .delete:
                out.append(Change(before: before, after: nil))
                current[e.recordName] = .some(nil)
            }
        }
        return out
    }

    /// A query subscription's plan against the current schema, compiled once per call.
    package mutating func plan(_ s: Subscription, _ type: String, _ predicate: String, _ arguments: [String],
                       schema: Schema) -> (plan: QueryPlan, searchable: [String])? {
        let key = SubscriptionFile.key(s)
        if let p = plans[key] { return p }
        var compiled: (plan: QueryPlan, searchable: [String])? = nil
        do throws(CKError) {
            let (plan, searchable) = try db.makePlan(QueryRequest(recordType: type, predicate: predicate, arguments: arguments), schema: schema)
            compiled = (plan, searchable)
        } catch {
            // Checked when saved; only a schema edited since can make it fail, and then it cannot match.
            db.notes.append(Diagnostic("subscription '\(s.subscriptionID)' no longer compiles and did not fire: \(error.reason)"))
        }
        plans[key] = .some(compiled)
        return compiled
    }

    /// The notifications one request's changes make, by owner. firesOnce subscriptions that fired are removed
    /// from `file` and `watching`; `removed` says so, so the caller rewrites subscriptions.json.
    package mutating func fire(_ changes: [Change], schema: Schema, reader: ZoneReader) -> (byOwner: [String: [SubscriptionNotification]], removed: Bool) {
        var byOwner: [String: [SubscriptionNotification]] = [:]
        var spent = Set<String>()
        let now = db.store.now()
        if var sharers {
            for (owner, n) in sharers.fire(changes, reader: reader, deviceID: db.deviceID, time: now) {
                byOwner[owner, default: []].append(n)
            }
            self.sharers = sharers
        }
        for s in watching {
            switch s.kind {
            case .query(let type, let predicate, let arguments, let firesOn, let firesOnce, _):
                for c in changes {
                    guard let record = c.after ?? c.before, record.recordType == type else { continue }
                    let event: Subscription.Event = c.before == nil ? .create : (c.after == nil ? .delete : .update)
                    guard firesOn.contains(event), let compiled = plan(s, type, predicate, arguments, schema: schema) else { continue }
                    // Deletions match on the record as it was; creations and updates on the record as it is now.
                    let subject = (event == .delete ? c.before : c.after) ?? record
                    guard !compiled.plan.matchesNothing,
                          compiled.plan.filters.allSatisfy({ $0.matches(subject, searchableFields: compiled.searchable) }),
                          mayRead(subject, owner: s.ownerRecordName, schema: schema) else { continue }
                    var n = SubscriptionNotification(notificationID: UUID().uuidString, kind: .query, subscription: s,
                                                     deviceID: c.after?.modified.deviceID ?? db.deviceID, time: now)
                    n.reason = event == .create ? .recordCreated : (event == .update ? .recordUpdated : .recordDeleted)
                    n.recordName = subject.recordName
                    n.recordType = subject.recordType
                    n.zoneID = subject.zoneID
                    // The server can't read encrypted values, so a push never carries them.
                    n.recordFields = subject.fields.filter { s.notificationInfo.desiredKeys.contains($0.key) && !$0.value.isEncrypted }
                    // APNs carries 4 KB: desired keys that don't fit are dropped and the notification says it was pruned.
                    if !n.recordFields.isEmpty {
                        n.fitPayload(desiredKeys: s.notificationInfo.desiredKeys, container: db.container.identifier,
                                     environment: db.environment, userRecordName: s.ownerRecordName)
                    }
                    byOwner[s.ownerRecordName, default: []].append(n)
                    if firesOnce { spent.insert(SubscriptionFile.key(s)); break }
                }
            case .recordZone(_, let type), .database(let type):
                // One notification per request: like CloudKit's, it says "something changed here", not what.
                guard changes.contains(where: { c in type == nil || (c.after ?? c.before)?.recordType == type }) else { continue }
                let isZone = s.kind.name == "zone"
                var n = SubscriptionNotification(notificationID: UUID().uuidString, kind: isZone ? .recordZone : .database,
                                                 subscription: s, deviceID: db.deviceID, time: now)
                if isZone { n.zoneID = zone.zoneID }
                byOwner[s.ownerRecordName, default: []].append(n)
            }
        }
        guard !spent.isEmpty else { return (byOwner, false) }
        file.subscriptions.removeAll { spent.contains(SubscriptionFile.key($0)) }
        watching.removeAll { spent.contains(SubscriptionFile.key($0)) }
        return (byOwner, true)
    }

    /// Fires for one request before its log append (nil when none fire): the writer records the notifications
    /// durably before the append and delivers them after it, or recovery does after a crash.
    package mutating func prepare(_ changes: [Change], schema: Schema, reader: ZoneReader, logPath: String, at offset: Int,
                          entries: [LogEntry]) -> PendingNotifications? {
        let (byOwner, removed) = fire(changes, schema: schema, reader: reader)
        guard !byOwner.isEmpty || removed, let first = entries.first else { return nil }
        let pending = PendingNotifications(log: db.env.relative(logPath), offset: offset, count: entries.count, firstSeq: first.seq,
                                           byOwner: byOwner, subscriptions: removed ? file : nil)
        return pending
    }
}

extension CKDatabase {
    /// The size and modification time of this user's notification log (nil when it has none), read without the
    /// lock: a cheap check of whether a notification may have been added, for `ck notification watch`.
    public func notificationLogStamp() -> [Int64]? {
        NotificationLog.stamp(env.notificationsPath(userRecordName))
    }
}
