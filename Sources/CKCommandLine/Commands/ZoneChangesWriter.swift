import CKCore

/// Writes `ck changes zone` a page at a time, byte for byte as one answer holding every change would be printed:
/// json is the same document (its head and tail around the records come from the whole answer's own printing),
/// jsonl, plain and name are line by line; a table is aligned over every row, so it is printed at the end.
struct ZoneChangesWriter {
    let inv: Invocation
    let format: OutputFormat
    let database: CKDatabase
    /// The answer so far: zone, the last page's token and moreComing; changes only for a table.
    private var answer: ZoneChanges?
    private var written = 0

    init(inv: Invocation, format: OutputFormat, database: CKDatabase) {
        self.inv = inv
        self.format = format
        self.database = database
    }

    /// A marker string printed where the records go; the document is split around it.
    private static let marker = "\u{1}records\u{1}"

    /// The json document with `records` left out: the text before and after it.
    private static func frame(_ c: ZoneChanges) -> (head: String, tail: String) {
        let whole = JSON.object(["zoneID": c.zoneID.json, "records": .string(marker), "syncToken": .string(c.syncToken),
                                 "moreComing": .bool(c.moreComing)]).pretty()
        let placeholder = JSON.string(marker).serialized()
        guard let r = whole.range(of: placeholder) else { return (whole, "") }
        return (String(whole[..<r.lowerBound]), String(whole[r.upperBound...]))
    }

    mutating func add(_ page: ZoneChanges) {
        defer {
            var kept = page
            kept.changes = format == .table ? (answer?.changes ?? []) + page.changes : []
            answer = kept
        }
        let response = ZoneChangesResponse(page)
        // Only pages with assets need their downloadURLs.
        let assets = page.changes.contains { $0.record?.fields.values.contains { $0.type.base == .asset } == true } ? database : nil
        switch format {
        case .json:
            for ch in page.changes {
                if written == 0 { inv.out(ZoneChangesWriter.frame(page).head + "[") }
                inv.out((written == 0 ? "\n    " : ",\n    ") + response.json(ch, database: assets).pretty(level: 2))
                written += 1
            }
        case .jsonl:
            for ch in page.changes { inv.line(response.json(ch, database: assets).serialized()) }
        case .name:
            for ch in page.changes { inv.line(ch.recordName) }
        case .plain:
            for ch in page.changes {
                if let r = ch.record { inv.line("saved\t" + RecordText.plain(r)) } else { inv.line("deleted\t\(ch.recordName)\t\(ch.recordType)") }
            }
        case .table:
            break
        }
    }

    /// The end of the answer: its token and moreComing (the last page's).
    func finish() {
        guard let c = answer else { return }
        switch format {
        case .json:
            let (head, tail) = ZoneChangesWriter.frame(c)
            inv.line(written == 0 ? head + "[]" + tail : "\n  ]" + tail)
        case .jsonl:
            inv.line(JSON.object(["syncToken": .string(c.syncToken), "moreComing": .bool(c.moreComing)]).serialized())
        case .name:
            break
        case .plain:
            inv.line("syncToken\t" + c.syncToken)
            if c.moreComing { inv.line("moreComing\ttrue") }
        case .table:
            var t = Table(["CHANGE", "RECORD", "TYPE", "TAG", "FIELDS"])
            for ch in c.changes {
                if let r = ch.record {
                    t.add(["saved", r.recordName, r.recordType, r.changeTag, RecordText.fieldSummary(r.fields)])
                } else {
                    t.add(["deleted", ch.recordName, ch.recordType, "-", ""])
                }
            }
            if c.changes.isEmpty { inv.line("No changes in \(c.zoneID.zoneName).") } else { inv.out(t.aligned(width: inv.terminal.width)) }
            inv.line("syncToken: " + c.syncToken)
            if c.moreComing { inv.line("moreComing: ask again with --since to get the rest") }
        }
    }
}
