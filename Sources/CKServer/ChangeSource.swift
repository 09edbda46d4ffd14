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
        guard let index else {
            let end = limit.map { min(folded.count, at + $0) } ?? folded.count
            let page = Array(folded[at..<end])
            at = end
            let more = end < folded.count
            return (page, more ? page.last?.seq ?? since : foldedHigh, more)
        }
        let p = try index.changes(path, after: since, limit: limit)
        let saves = try ZoneLog.entries(path, at: p.saves.map { ($0.offset, $0.length) })
        var entries: [LogEntry] = []
        entries.reserveCapacity(saves.count + p.deletes.count)
        var j = 0
        for (i, save) in saves.enumerated() {
            while j < p.deletes.count, p.deletes[j].seq < p.saves[i].seq {
                entries.append(ChangeSource.deletion(p.deletes[j]))
                j += 1
            }
            entries.append(save)
        }
        entries += p.deletes[j...].map(ChangeSource.deletion)
        return (entries, p.high, p.more)
    }

    /// A deletion as the index keeps it (when and by whom are not part of the feed).
    package static func deletion(_ d: (seq: Int64, name: String, type: String)) -> LogEntry {
        .delete(seq: d.seq, recordName: d.name, recordType: d.type, at: 0, userRecordName: nil)
    }
}
