import Foundation
import CKModel
import CKStorage

/// One record's change in a zone's feed: its latest version, or its deletion.
public struct RecordChange: Sendable {
    public var recordName: String
    public var recordType: String
    /// The record as it is now; nil when it was deleted.
    public var record: Record?
    /// The change's sequence number (its position in the feed).
    public var seq: Int64

    public var isDeletion: Bool { record == nil }
}

/// One change of a page written from the log's bytes: a decoded change, or a save's stored record dictionary.
package enum StoredChange {
    case change(RecordChange)
    case stored(StoredRecord)
}

/// A page of a zone's changes as `zoneChanges(stored:)` hands it out: `ZoneChanges` with saves as their stored bytes.
package struct StoredZoneChanges {
    package var zoneID: ZoneID
    package var changes: [StoredChange]
    package var syncToken: String
    package var moreComing: Bool
    package var pending: Int
}

/// What changed in one zone since a token (CKFetchRecordZoneChangesOperation, changes/zone).
public struct ZoneChanges: Sendable {
    public var zoneID: ZoneID
    /// Latest change per record, oldest first.
    public var changes: [RecordChange]
    /// The token to pass next time.
    public var syncToken: String
    /// True when the limit cut the answer short: ask again with `syncToken`.
    public var moreComing: Bool
    /// Changes after the token, this page's included (for progress; CloudKit doesn't say).
    public var pending: Int
}

/// One zone in a database's change feed.
public struct ZoneChange: Sendable {
    public var zoneID: ZoneID
    public var deleted: Bool
    public var seq: Int64
    /// Deleted by the user from iCloud settings (recordZoneWithIDWasPurgedBlock, called instead of the deleted one).
    public var purged = false
    /// Deleted with a reset of the user's encrypted data (recordZoneWithIDWasDeletedDueToUserEncryptedDataResetBlock).
    public var encryptedDataReset = false

    public init(zoneID: ZoneID, deleted: Bool, seq: Int64, purged: Bool = false, encryptedDataReset: Bool = false) {
        self.zoneID = zoneID
        self.deleted = deleted
        self.seq = seq
        self.purged = purged
        self.encryptedDataReset = encryptedDataReset
    }
}

/// Which zones changed since a token (CKFetchDatabaseChangesOperation, changes/database).
public struct DatabaseChanges: Sendable {
    /// Zones created, changed or deleted, oldest change first.
    public var zones: [ZoneChange]
    public var syncToken: String
    public var moreComing: Bool
}

extension CKDatabase {
    /// Changes a server page holds when the caller sets no limit (CloudKit pages its feed too).
    public static let changesPageSize = 400

    /// The changes of a custom zone since `token` (nil = from the beginning), at most `limit` records.
    /// `countingPending: false` skips counting what is left (`pending` is then this page's count).
    public func zoneChanges(zone zoneName: String, since token: String? = nil, limit: Int? = nil,
                            desiredKeys: [String]? = nil, countingPending: Bool = true) throws(CKError) -> ZoneChanges {
        var answer: ZoneChanges? = nil
        try feed(zone: zoneName, since: token, limit: limit, desiredKeys: desiredKeys, pageSize: nil,
                 countingPending: countingPending, stored: false) { (page) throws(CKError) in answer = ZoneChanges(decoded: page) }
        guard let answer else { throw CKError.internalError("the change feed of zone '\(zoneName)' returned no page") }
        return answer
    }

    /// The changes of a custom zone since `token`, handed to `body` a page (at most `pageSize` changes) at a time
    /// under one read of the store, as a client asks again while moreComing: memory holds one page. At most `limit`
    /// changes in all; each page has its own token, and the last page's token and moreComing are the answer's.
    public func zoneChanges(zone zoneName: String, since token: String? = nil, limit: Int? = nil, desiredKeys: [String]? = nil,
                            pageSize: Int, countingPending: Bool = false,
                            _ body: (ZoneChanges) throws(CKError) -> Void) throws(CKError) {
        guard pageSize >= 1 else { throw CKError.invalid("pageSize must be at least 1, not \(pageSize)") }
        try feed(zone: zoneName, since: token, limit: limit, desiredKeys: desiredKeys, pageSize: pageSize,
                 countingPending: countingPending, stored: false) { (page) throws(CKError) in try body(ZoneChanges(decoded: page)) }
    }

    /// `zoneChanges(…pageSize:…)` with each save whose log line can stand for its record's JSON handed out as those
    /// bytes (`StoredRecord`), not decoded: for output written straight from them. The others (deletions, lines
    /// in another shape, records with assets, a shared database's view, `desiredKeys`) come decoded.
    /// `stored: false` decodes every change, as `zoneChanges` does.
    package func storedZoneChanges(zone zoneName: String, since token: String? = nil, limit: Int? = nil, desiredKeys: [String]? = nil,
                                   pageSize: Int, stored: Bool = true,
                                   _ body: (StoredZoneChanges) throws(CKError) -> Void) throws(CKError) {
        guard pageSize >= 1 else { throw CKError.invalid("pageSize must be at least 1, not \(pageSize)") }
        try feed(zone: zoneName, since: token, limit: limit, desiredKeys: desiredKeys, pageSize: pageSize,
                 countingPending: false, stored: stored && desiredKeys == nil, body)
    }

    /// The feed behind all three: checks the zone and token once, then reads page after page.
    package func feed(zone zoneName: String, since token: String?, limit: Int?, desiredKeys: [String]?, pageSize: Int?,
                      countingPending: Bool, stored: Bool, _ body: (StoredZoneChanges) throws(CKError) -> Void) throws(CKError) {
        var previous: ChangeToken? = nil
        try perform(.zoneChanges, zone: zoneName, validate: { () throws(CKError) in
            try checkChangeFeed()
            if let limit, limit < 1 { throw CKError.invalid("resultsLimit must be at least 1, not \(limit)") }
            previous = try token.map { (t) throws(CKError) -> ChangeToken in try ChangeToken(decoding: t) }
        }) { (state) throws(CKError) in
            // A lost response of a read is a failed read: nothing is handed out.
            if let lost = state.lostResponse { throw lost }
            guard let zone = state.zone else { throw CKError(.zoneNotFound, "Zone '\(zoneName)' does not exist") }
            guard !zone.zoneID.isDefault else {
                throw CKError.invalid("Requests for records that have changed are allowed only in custom zones, not in _defaultZone",
                                      hint: "keep records you sync in a custom zone: 'ck zone create <name>'")
            }
            guard zone.capabilities.contains(.fetchChanges) else {
                throw CKError.invalid("Zone '\(zoneName)' does not have the fetchChanges capability",
                                      hint: "create the zone with --capabilities fetchChanges,…")
            }
            var since: Int64 = 0
            if let previous {
                try checkToken(previous, kind: .zone, zoneName: zone.zoneID.zoneName, owner: zone.zoneID.ownerRecordName)
                guard previous.zoneSeq == zone.seq else {
                    throw CKError(.changeTokenExpired, "The change token belongs to an earlier zone '\(zoneName)' that was deleted",
                                  hint: "toss the local copy of the zone and fetch again without a token")
                }
                since = previous.position
            }
            // History before the compaction point is gone — unless the token was made after that compaction,
            // from the compacted log (then its position may be older and nothing it needs was dropped).
            if let previous, since < zone.compactedSeq, previous.compacted != zone.compactedSeq {
                throw CKError(.changeTokenExpired, "The change token is too old: the history of zone '\(zoneName)' before it was compacted",
                              hint: "toss the local copy of the zone and fetch again without a token")
            }
            var source = try ChangeSource(self, path: env.logPath(database: scope, zone: zone.zoneID), since: since)
            var pending = countingPending ? try source.count(after: since) : nil
            var left = limit
            while true {
                let want = [left, pageSize].compactMap { $0 }.min()
                let shares = state.gate.shares
                var (page, high, more) = try source.feedPage(after: since, limit: want, stored: stored && shares == nil)
                // The shared database shows a participant only the changes of records its shares reach.
                if let view = shares {
                    let latest = page.compactMap { f in if case .entry(let e) = f { return e } else { return nil } }
                    page = try sharedChanges(latest, view: view, zone: zone).map(FeedEntry.entry)
                }
                let changes = page.map { f -> StoredChange in
                    switch f {
                    case .stored(_, let r): return .stored(r)
                    case .entry(.save(let seq, var record)):
                        if let desiredKeys { record.fields = record.fields.filter { desiredKeys.contains($0.key) } }
                        return .change(RecordChange(recordName: record.recordName, recordType: record.recordType, record: record, seq: seq))
                    case .entry(.delete(let seq, let name, let type, _, _)):
                        return .change(RecordChange(recordName: name, recordType: type, record: nil, seq: seq))
                    }
                }
                let next = ChangeToken(kind: .zone, environment: environment, database: scope, owner: zone.zoneID.ownerRecordName,
                                       zoneName: zone.zoneID.zoneName, zoneSeq: zone.seq, compacted: zone.compactedSeq,
                                       // Compaction may have dropped the newest lines: a final token is past them.
                                       position: more ? high : max(high, zone.seq, zone.compactedSeq))
                try body(StoredZoneChanges(zoneID: zone.zoneID, changes: changes, syncToken: next.encoded, moreComing: more,
                                           pending: pending ?? changes.count))
                pending = pending.map { $0 - changes.count }
                left = left.map { $0 - changes.count }
                guard more, left.map({ $0 > 0 }) ?? true else { return }
                since = high
            }
        }
    }

    /// The latest line of each record changed after `since` in a zone log, oldest first: folded from the whole log
    /// without the index (once per feed, then handed out in pages), or read a page at a time through it.
    package func latestChanges(_ path: String, since: Int64) throws(CKError) -> (entries: [LogEntry], high: Int64) {
        var latest: [String: LogEntry] = [:]
        var high = since
        for e in try env.readLog(path).entries {
            high = max(high, e.seq)
            if e.seq > since { latest[e.recordName] = e }
        }
        return (latest.values.sorted { $0.seq < $1.seq }, high)
    }

    /// The custom zones of this database created, changed or deleted since `token`, at most `limit` zones.
    public func databaseChanges(since token: String? = nil, limit: Int? = nil) throws(CKError) -> DatabaseChanges {
        var since: Int64 = 0
        return try perform(.databaseChanges, validate: { () throws(CKError) in
            try checkChangeFeed()
            if let limit, limit < 1 { throw CKError.invalid("resultsLimit must be at least 1, not \(limit)") }
            let previous = try token.map { (t) throws(CKError) -> ChangeToken in try ChangeToken(decoding: t) }
            if let previous { try checkToken(previous, kind: .database, zoneName: "") }
            since = previous?.position ?? 0
        }) { (state) throws(CKError) -> DatabaseChanges in
            let catalog = state.catalog
            var zones: [ZoneChange] = []
            var high = since
            if scope == .shared {
                (zones, high) = try sharedDatabaseChanges(catalog: catalog, since: since)
            }
            if scope == .private {
                for z in catalog.zones where z.database == .private && z.zoneID.ownerRecordName == userRecordName {
                    // A compacted-away last change (a deletion) still counts as the zone's newest change.
                    let last = max(z.seq, z.compactedSeq, try ZoneLog.lastSeq(env.logPath(database: .private, zone: z.zoneID)))
                    high = max(high, last)
                    if last > since { zones.append(ZoneChange(zoneID: z.zoneID, deleted: false, seq: last)) }
                }
                var reported = Set<ZoneID>()
                for d in catalog.deleted.sorted(by: { $0.seq > $1.seq })
                where d.zone.database == .private && d.zone.zoneID.ownerRecordName == userRecordName {
                    high = max(high, d.seq)
                    // A zone deleted twice since the token is reported once, at its last deletion.
                    if d.seq > since && reported.insert(d.zone.zoneID).inserted {
                        zones.append(ZoneChange(zoneID: d.zone.zoneID, deleted: true, seq: d.seq, purged: d.purged,
                                               encryptedDataReset: d.encryptedDataReset))
                    }
                }
            }
            // Deletions sort before a re-creation of the same zone with the same number: the client wipes, then refetches.
            zones.sort { ($0.seq, $0.deleted ? 0 : 1, $0.zoneID.zoneName) < ($1.seq, $1.deleted ? 0 : 1, $1.zoneID.zoneName) }
            var more = false
            if let limit, zones.count > limit {
                zones = Array(zones.prefix(limit))
                more = true
                high = zones.last?.seq ?? since
            }
            let next = ChangeToken(kind: .database, environment: environment, database: scope, owner: userRecordName, position: high)
            return DatabaseChanges(zones: zones, syncToken: next.encoded, moreComing: more)
        }
    }

    /// Change feeds exist in the private and shared databases only.
    package func checkChangeFeed() throws(CKError) {
        if scope == .public {
            throw CKError.invalid("The public database has no change feed: fetching changes works in the private and shared databases",
                                  hint: "query the public database instead, or use --db private")
        }
    }

    /// A token is refused when it was made for another environment, database, user, kind or zone.
    package func checkToken(_ t: ChangeToken, kind: ChangeToken.Kind, zoneName: String, owner: String? = nil) throws(CKError) {
        let mismatch: String?
        if t.kind != kind {
            mismatch = t.kind == .zone ? "it is a zone token, not a database token" : "it is a database token, not a zone token"
        } else if t.environment != environment {
            mismatch = "it was made in \(t.environment.rawValue), not \(environment.rawValue)"
        } else if t.database != scope {
            mismatch = "it was made for the \(t.database.rawValue) database, not \(scope.rawValue)"
        } else if t.owner != (owner ?? userRecordName) {
            mismatch = "it was made for another user"
        } else if kind == .zone && t.zoneName != zoneName {
            mismatch = "it was made for zone '\(Names.describe(t.zoneName))', not '\(zoneName)'"
        } else {
            mismatch = nil
        }
        if let mismatch {
            throw CKError.invalid("this change token does not fit: \(mismatch)",
                                  hint: "database and zone tokens are not interchangeable; pass the token the same call printed")
        }
    }
}

extension ZoneChanges {
    /// A page of a feed asked for without stored bytes (so every change is decoded).
    package init(decoded page: StoredZoneChanges) {
        let changes = page.changes.compactMap { c -> RecordChange? in if case .change(let ch) = c { return ch } else { return nil } }
        self.init(zoneID: page.zoneID, changes: changes, syncToken: page.syncToken, moreComing: page.moreComing, pending: page.pending)
    }
}
