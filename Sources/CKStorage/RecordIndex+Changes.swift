import CKModel
import CKSQLite

/// The change feed through the index: a record's latest change is its row in `records` (a save) or, for a deleted
/// record, its newest row in `deletes`. Both are read in sequence order from `(log, seq)` indexes, so a page costs
/// the same wherever it starts and however large the zone is.
extension RecordIndex {
    /// One page of a log's change feed after `since`: the latest save of each live record changed after it (where
    /// its line is) and the latest deletion of each deleted one, oldest first, at most `limit` together; `more` when
    /// the limit cut them, and `high` the newest sequence number in the log (or the page's last, when cut).
    package func changes(_ logPath: String, after since: Int64, limit: Int?) throws(CKError)
        -> (saves: [(seq: Int64, offset: Int, length: Int)], deletes: [(seq: Int64, name: String, type: String)], more: Bool, high: Int64) {
        let log = try key(logPath)
        // One row past the limit from each side says whether more are coming.
        let take: Int64 = limit.map { Int64($0) + 1 } ?? -1
        return try wrap { () throws(SQLiteConnection.Failure) in
            var saves: [(seq: Int64, offset: Int, length: Int)] = []
            let s = try db.prepare("SELECT seq, off, len FROM records WHERE log = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3")
            try s.bind([log, since, take])
            while try s.step() { saves.append((s.int(0), Int(s.int(1)), Int(s.int(2)))) }
            var deletes: [(seq: Int64, name: String, type: String)] = []
            let d = try db.prepare(RecordIndex.latestDeletes + " ORDER BY d.seq LIMIT ?3")
            try d.bind([log, since, take])
            while try d.step() { deletes.append((d.int(0), d.text(1), d.text(2))) }
            if let limit, saves.count + deletes.count > limit {
                // The page ends at the limit-th change in sequence order; what lies after it comes next time.
                var i = 0, j = 0
                for _ in 0..<limit {
                    if j >= deletes.count || (i < saves.count && saves[i].seq < deletes[j].seq) { i += 1 } else { j += 1 }
                }
                saves.removeSubrange(i...)
                deletes.removeSubrange(j...)
                return (saves, deletes, true, max(saves.last?.seq ?? since, deletes.last?.seq ?? since))
            }
            // The log's newest line is the latest change of its record, so it is one of these rows.
            let m = try db.prepare("SELECT max(coalesce((SELECT max(seq) FROM records WHERE log = ?1), 0), coalesce((SELECT max(seq) FROM deletes WHERE log = ?1), 0))")
            try m.bind([log])
            let high = try m.step() ? m.int(0) : since
            return (saves, deletes, false, max(high, since))
        }
    }

    /// How many records changed after `since` (their latest change): what a feed from there would return in all.
    package func changeCount(_ logPath: String, after since: Int64) throws(CKError) -> Int {
        let log = try key(logPath)
        return try wrap { () throws(SQLiteConnection.Failure) -> Int in
            let s = try db.prepare("SELECT (SELECT count(*) FROM records WHERE log = ?1 AND seq > ?2), (SELECT count(*) FROM (\(RecordIndex.latestDeletes)))")
            try s.bind([log, since])
            return try s.step() ? Int(s.int(0) + s.int(1)) : 0
        }
    }

    /// Deletions after ?2 in log ?1 that are their record's latest change: not saved again since, nor deleted again.
    package static let latestDeletes = """
        SELECT d.seq, d.name, d.type FROM deletes d WHERE d.log = ?1 AND d.seq > ?2
            AND NOT EXISTS (SELECT 1 FROM records r WHERE r.log = ?1 AND r.name = d.name)
            AND NOT EXISTS (SELECT 1 FROM deletes e WHERE e.log = ?1 AND e.name = d.name AND e.seq > d.seq)
        """
}
