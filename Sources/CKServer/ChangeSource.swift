import CKModel
import CKStorage

/// Where a zone feed's pages come from: the index, read a page at a time by sequence number (a page costs the same
/// wherever it starts), or, without one, the log folded once and handed out in pages.
package struct ChangeSource {
    package let path: String
    package let index: RecordIndex?
    private var folded: [LogEntry] = []
    private var foldedHigh: Int64 = 0
    private var at = 0

    package init(_ db: CKDatabase, path: String, since: Int64) throws(CKError) {
        self.path = path
        index = try db.env.index()
        if let index {
            try index.sync(path, warnings: &db.env.warnings)
        } else {
            (folded, foldedHigh) = try db.latestChanges(path, since: since)
        }
    }

    /// How many changes a feed from `since` returns in all.
    package func count(after since: Int64) throws(CKError) -> Int {
        guard let index else { return folded.count - at }
        return try index.changeCount(path, after: since)
    }

    /// The next page after `since` (the previous page's end): its entries oldest first, the newest sequence number it
    /// covers (the log's newest when it is the last page) and whether more are coming.
    package mutating func page(after since: Int64, limit: Int?) throws(CKError) -> (entries: [LogEntry], high: Int64, more: Bool) {
        let (page, high, more) = try feedPage(after: since, limit: limit, stored: false)
        return (page.compactMap { f in if case .entry(let e) = f { return e } else { return nil } }, high, more)
    }

    /// `page(after:limit:)`, with each save that `StoredRecord.scan` accepts handed out as its stored bytes when
    /// `stored` (through the index only: a folded log was decoded already).
    package mutating func feedPage(after since: Int64, limit: Int?, stored: Bool) throws(CKError) -> (entries: [FeedEntry], high: Int64, more: Bool) {
        guard let index else {
            let end = limit.map { min(folded.count, at + $0) } ?? folded.count
            let page = Array(folded[at..<end])
            at = end
            let more = end < folded.count
            return (page.map(FeedEntry.entry), more ? page.last?.seq ?? since : foldedHigh, more)
        }
        let p = try index.changes(path, after: since, limit: limit)
        var entries: [FeedEntry] = []
        entries.reserveCapacity(p.saves.count + p.deletes.count)
        var i = 0, j = 0
        let path = self.path
        try ZoneLog.lines(path, at: p.saves.map { ($0.offset, $0.length) }) { (line, offset) throws(CKError) in
            while j < p.deletes.count, p.deletes[j].seq < p.saves[i].seq {
                entries.append(.entry(ChangeSource.deletion(p.deletes[j])))
                j += 1
            }
            if stored, let s = StoredRecord.scan(line: line) {
                entries.append(.stored(seq: s.seq, s.record))
            } else {
                let e = try ZoneLog.entry(line, path: path, offset: offset)
                guard case .save = e else { throw ZoneLog.stale(path, at: offset) }
                entries.append(.entry(e))
            }
            i += 1
        }
        entries += p.deletes[j...].map { .entry(ChangeSource.deletion($0)) }
        return (entries, p.high, p.more)
    }

    /// A deletion as the index keeps it (when and by whom are not part of the feed).
    package static func deletion(_ d: (seq: Int64, name: String, type: String)) -> LogEntry {
        .delete(seq: d.seq, recordName: d.name, recordType: d.type, at: 0, userRecordName: nil)
    }
}

