import CKCore

extension ChangesCommand {
    /// `changes zone` a page at a time, byte for byte as one answer holding every change would print: json is the
    /// `ZoneChangesResponse` document `{"zoneID", "records": [change], "syncToken", "moreComing"}` (its head and tail
    /// around the records come from the whole answer's own printing); jsonl a change a line and then
    /// `{"syncToken", "moreComing"}`; plain and name line by line; a table is aligned over every row, so it prints
    /// at the end.
    struct ZoneFeed: StreamedOutput {
        /// Where asset values' `downloadURL`s point (used only for a page with assets).
        var database: CKDatabase
        var width: Int?
        /// The answer so far: zone, the last page's token and moreComing; changes only for a table (which asks for
        /// decoded pages: its columns need the records).
        private var answer: ZoneChanges?
        private var written = 0

        init(database: CKDatabase, width: Int?) {
            self.database = database
            self.width = width
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

        mutating func add(_ stored: StoredZoneChanges, as format: OutputFormat) -> String {
            var text: [UInt8] = []
            add(stored, as: format, into: &text)
            return String(decoding: text, as: UTF8.self)
        }

        /// The page's text as bytes: most of it is copied from the log's (no `String` is made of it to print it).
        mutating func add(_ stored: StoredZoneChanges, as format: OutputFormat, into text: inout [UInt8]) {
            let page = ZoneChanges(decoded: stored)
            defer {
                var kept = page
                kept.changes = format == .table ? (answer?.changes ?? []) + page.changes : []
                answer = kept
            }
            let response = ZoneChangesResponse(page)
            // Only pages with assets need their downloadURLs (stored records have none).
            let assets = page.changes.contains { $0.record?.fields.values.contains { $0.type.base == .asset } == true } ? database : nil
            // Room for the page at once: grown by doubling, the text was copied several times over.
            var size = 0
            for case .stored(let r) in stored.changes { size += r.bytes.count }
            text.reserveCapacity(text.count + (format == .json ? 2 * size : size) + 256)
            for change in stored.changes {
                switch (change, format) {
                case (.stored(let r), .json):
                    if written == 0 { text += (ZoneFeed.frame(page).head + "[").utf8 }
                    text += (written == 0 ? "\n    " : ",\n    ").utf8
                    r.writePretty(level: 2, into: &text)
                    written += 1
                case (.change(let ch), .json):
                    if written == 0 { text += (ZoneFeed.frame(page).head + "[").utf8 }
                    text += (written == 0 ? "\n    " : ",\n    ").utf8
                    text += response.json(ch, database: assets).pretty(level: 2).utf8
                    written += 1
                case (.stored(let r), .jsonl):
                    text += r.bytes
                    text.append(0x0A)
                case (.change(let ch), .jsonl):
                    text += response.json(ch, database: assets).serialized().utf8
                    text.append(0x0A)
                case (.stored(let r), .name):
                    StoredRecord.unescape(r.bytes[r.name], into: &text)
                    text.append(0x0A)
                case (.change(let ch), .name):
                    text += ch.recordName.utf8
                    text.append(0x0A)
                case (.stored(let r), .plain):
                    text += "saved\t".utf8
                    RecordText.appendPlain(r, to: &text)
                    text.append(0x0A)
                case (.change(let ch), .plain):
                    if let r = ch.record {
                        text += "saved\t".utf8
                        RecordText.appendPlain(r, to: &text)
                        text.append(0x0A)
                    } else {
                        text += "deleted\t\(ch.recordName)\t\(ch.recordType)\n".utf8
                    }
                case (_, .table):
                    break
                }
            }
        }

        /// The end of the answer: its token and moreComing (the last page's).
        func end(as format: OutputFormat) -> Rendered {
            guard let c = answer else { return Rendered("") }
            switch format {
            case .json:
                let (head, tail) = ZoneFeed.frame(c)
                return Rendered((written == 0 ? head + "[]" + tail : "\n  ]" + tail) + "\n")
            case .jsonl:
                return Rendered(JSON.object(["syncToken": .string(c.syncToken), "moreComing": .bool(c.moreComing)]).serialized() + "\n")
            case .name:
                return Rendered("")
            case .plain:
                return Rendered("syncToken\t" + c.syncToken + "\n" + (c.moreComing ? "moreComing\ttrue\n" : ""))
            case .table:
                var t = Table(["CHANGE", "RECORD", "TYPE", "TAG", "FIELDS"])
                for ch in c.changes {
                    if let r = ch.record {
                        t.add(["saved", r.recordName, r.recordType, r.changeTag, RecordText.fieldSummary(r.fields)])
                    } else {
                        t.add(["deleted", ch.recordName, ch.recordType, "-", ""])
                    }
                }
                return Rendered((c.changes.isEmpty ? "No changes in \(c.zoneID.zoneName).\n" : t.aligned(width: width))
                                + "syncToken: " + c.syncToken + "\n" + (c.moreComing ? "moreComing: ask again with --since to get the rest\n" : ""))
            }
        }
    }

    /// `changes database`: the `DatabaseChangesResponse` `{"zones": [{"zoneID", "deleted"?, "purged"?}],
    /// "syncToken", "moreComing"}`; jsonl a zone a line and then the token; plain `change<TAB>zone` lines and
    /// the token; names the zones.
    struct Database: CommandOutput {
        var changes: DatabaseChanges

        private static func kind(_ z: ZoneChange) -> String {
            z.purged ? "purged" : z.encryptedDataReset ? "encryptedDataReset" : z.deleted ? "deleted" : "changed"
        }

        var json: JSON { DatabaseChangesResponse(changes).json }
        var jsonLines: [JSON] { DatabaseChangesResponse(changes).jsonLines }
        var names: [String] { changes.zones.map(\.zoneID.zoneName) }
        var plain: [String] {
            changes.zones.map { Self.kind($0) + "\t" + $0.zoneID.zoneName } + ["syncToken\t" + changes.syncToken]
                + (changes.moreComing ? ["moreComing\ttrue"] : [])
        }
        var table: String {
            var t = Table(["CHANGE", "ZONE"])
            for z in changes.zones { t.add([Self.kind(z), z.zoneID.zoneName]) }
            return (changes.zones.isEmpty ? "No zone changes.\n" : t.aligned()) + "syncToken: " + changes.syncToken + "\n"
                + (changes.moreComing ? "moreComing: ask again with --since to get the rest\n" : "")
        }
    }
}
