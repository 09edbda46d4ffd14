import Foundation
import CKModel
import CKStorage

/// Participants' database subscriptions in the shared database that watch one owner's zone (CloudKit fires them
/// for the zones of the participant's shared database). One fires when a request changes what the participant's
/// accepted shares reach: a record they reach before or after the request, or one of those shares itself (the
/// participant accepts, leaves or is removed, the share is deleted), so a zone appearing in or leaving the shared
/// database fires too. A change outside the participant's shares never does: a notification shows no more than
/// the shared database.
package struct SharedSubscribers {
    package let subscriptions: [Subscription]
    private let db: CKDatabase
    private let zone: Zone
    /// The zone's live shares by record name as the next request finds them: read on first use, then kept in step
    /// with each request's changes (a hook can serve several requests of one call).
    private var shares: [String: Record]?

    package init(db: CKDatabase, zone: Zone, subscriptions: [Subscription]) {
        self.db = db
        self.zone = zone
        self.subscriptions = subscriptions
    }

    /// The notifications one request's changes make, with the participant each is for.
    package mutating func fire(_ changes: [NotificationHook.Change], reader: ZoneReader, deviceID: String,
                               time: Int64) -> [(owner: String, notification: SubscriptionNotification)] {
        guard !subscriptions.isEmpty, !changes.isEmpty else { return [] }
        let before = shares ?? SharedSubscribers.liveShares(db, zone)
        var after = before
        // Each record as the request leaves it (nil: deleted), for walks through records it created or moved.
        var latest: [String: Record?] = [:]
        for c in changes {
            guard let r = c.after ?? c.before else { continue }
            latest[r.recordName] = .some(c.after)
            if r.isShare { after[r.recordName] = c.after }
        }
        shares = after
        var out: [(owner: String, notification: SubscriptionNotification)] = []
        for s in subscriptions {
            guard case .database(let type) = s.kind,
                  reaches(s.ownerRecordName, changes, type: type, before: before, after: after, reader: reader, latest: latest) else { continue }
            out.append((s.ownerRecordName, SubscriptionNotification(notificationID: UUID().uuidString, kind: .database,
                                                                    subscription: s, deviceID: deviceID, time: time)))
        }
        return out
    }

    /// Whether any change is one `user`'s accepted shares reach (before or after it). A subscription with a record
    /// type counts records of that type; the shares' own changes count for `cloudkit.share`.
    private func reaches(_ user: String, _ changes: [NotificationHook.Change], type: String?, before: [String: Record],
                         after: [String: Record], reader: ZoneReader, latest: [String: Record?]) -> Bool {
        var was: ShareView? = nil
        var now: ShareView? = nil
        for c in changes {
            guard let r = c.after ?? c.before, type == nil || r.recordType == type else { continue }
            if r.isShare {
                if c.before?.shareInfo?.access(for: user) != nil || c.after?.shareInfo?.access(for: user) != nil { return true }
                continue
            }
            if let b = c.before {
                if was == nil { was = view(user, before) { (n) throws(CKError) -> Record? in try reader.record(n) } }
                if was?.access(b) != nil { return true }
            }
            if let a = c.after {
                if now == nil {
                    now = view(user, after) { (n) throws(CKError) -> Record? in
                        if let known = latest[n] { return known }
                        return try reader.record(n)
                    }
                }
                if now?.access(a) != nil { return true }
            }
        }
        return false
    }

    private func view(_ user: String, _ shares: [String: Record], lookup: @escaping (String) throws(CKError) -> Record?) -> ShareView {
        let entries = shares.keys.sorted().compactMap { n in shares[n].map { ShareEntry(zone: zone, share: $0) } }
        return ShareView(shares: entries, userRecordName: user, lookup: lookup)
    }

    /// The zone's live shares, read from its log (skipped when the index says it holds none). A log that can't be
    /// read means no participant is notified, and the call says so.
    private static func liveShares(_ db: CKDatabase, _ zone: Zone) -> [String: Record] {
        let path = db.env.logPath(database: .private, zone: zone.zoneID)
        do throws(CKError) {
            if let index = try db.env.index(), !(try index.holds(path, recordType: Share.recordType)) { return [:] }
            return CKDatabase.fold(try db.env.readLog(path).entries).filter { $0.value.isShare }
        } catch {
            db.notes.append(Diagnostic("participants' notifications for this change could not be matched: \(error.reason)", hint: "run 'ck doctor'"))
            return [:]
        }
    }

    /// The notifications participants' database subscriptions make when an owner's zone is dropped: it leaves the
    /// shared database of every participant who had accepted one of its shares (`live`: the zone's records).
    package static func zoneDropped(_ zone: Zone, live: [String: Record], file: SubscriptionFile, deviceID: String,
                                    time: Int64) -> [String: [SubscriptionNotification]] {
        var out: [String: [SubscriptionNotification]] = [:]
        let shares = live.values.filter(\.isShare)
        for s in file.subscriptions where s.database == .shared && s.ownerRecordName != zone.zoneID.ownerRecordName {
            guard case .database(let type) = s.kind,
                  shares.contains(where: { $0.shareInfo?.access(for: s.ownerRecordName) != nil }),
                  type.map({ t in live.values.contains { $0.recordType == t } }) ?? true else { continue }
            out[s.ownerRecordName, default: []].append(SubscriptionNotification(notificationID: UUID().uuidString, kind: .database,
                                                                                subscription: s, deviceID: deviceID, time: time))
        }
        return out
    }
}
