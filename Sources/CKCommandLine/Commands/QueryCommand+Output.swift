import CKCore

extension QueryCommand {
    /// A query's pages as they come: plain, jsonl and name a page at a time (plain rendered as bytes, one string a
    /// page: docs/performance.md); json one `RecordCommand.Records` document with the last cursor as
    /// `continuationMarker`, and a table over all rows, once the last page is in. Elsewhere than json the cursor
    /// of more results is a note.
    struct Pages: StreamedOutput {
        var keys: [String]?
        var database: CKDatabase
        var width: Int?
        /// The records json and table print at the end.
        private var all: [Record] = []
        private var cursor: String?
        /// The option the note of more results names (`record list` goes on with --after).
        var cursorOption = "--cursor"

        init(keys: [String]?, database: CKDatabase, width: Int?, cursorOption: String = "--cursor") {
            self.keys = keys
            self.database = database
            self.width = width
            self.cursorOption = cursorOption
        }

        private func records(_ records: [Record], continuationMarker: String? = nil) -> RecordCommand.Records {
            RecordCommand.Records(RecordsResponse(query: records, continuationMarker: continuationMarker, keys: keys),
                                  database: database, width: width, list: true)
        }

        mutating func add(_ page: QueryResult, as format: OutputFormat) -> String {
            cursor = page.cursor
            switch format {
            case .json, .table:
                all += page.records
                return ""
            case .plain:
                // Straight from the page, one string for all its lines: wrapping the page in a RecordsResponse
                // copied every record, and a write per line cost more than the line.
                var text: [UInt8] = []
                text.reserveCapacity(512 * page.records.count)
                for r in page.records {
                    RecordText.appendPlain(keys == nil ? r : RecordCommand.limited(r, keys), to: &text)
                    text.append(0x0A)
                }
                return String(decoding: text, as: UTF8.self)
            case .jsonl, .name:
                return records(page.records).rendered(as: format).text
            }
        }

        func end(as format: OutputFormat) -> Rendered {
            var end: Rendered
            switch format {
            case .json: return records(all, continuationMarker: cursor).rendered(as: .json)
            case .table: end = records(all).rendered(as: .table)
            case .jsonl, .plain, .name: end = Rendered("")
            }
            if let cursor { end.notes.append("more results: \(cursorOption) \(cursor)") }
            return end
        }
    }

    /// `--explain`: `{"recordType", "predicate", "tree": [line], "arguments": [value], "filters": [{"field",
    /// "comparator", "value", "type"}], "matchesNothing", "sort": [text], "indexes": ["field INDEX"]}`; for people
    /// and scripts the same lines. It prints no names.
    struct Explain: CommandOutput {
        var plan: QueryPlan
        var predicate: String
        var tree: PredicateNode
        var arguments: [String]
        var environment: Environment

        var sort: [String] {
            plan.sort.map { s in
                switch s.kind {
                case .field(let f, let asc): return "\(f) \(asc ? "ascending" : "descending")"
                case .distance(let f, let l): return "\(f) by distance from \(l.latitude),\(l.longitude)"
                }
            }
        }

        var refusesNames: String? { "--explain" }

        var json: JSON {
            .object([
                "recordType": .string(plan.recordType), "predicate": .string(predicate),
                "tree": .array(tree.treeLines().map { .string($0) }),
                "arguments": .array(arguments.map { .string($0) }),
                "filters": .array(plan.filters.map { f in .object(["field": .string(f.field), "comparator": .string(f.comparator.rawValue),
                                                                   "value": .string(f.value.literal), "type": .string(f.value.typeName)]) }),
                "matchesNothing": .bool(plan.matchesNothing),
                "sort": .array(sort.map { .string($0) }),
                "indexes": .array(plan.requiredIndexes.map { .string("\($0.field) \($0.index)") }),
            ])
        }

        var plain: [String] {
            var lines = ["record type: \(plan.recordType) (\(environment.rawValue))", "predicate:   \(predicate)", "parsed:"]
            lines += tree.treeLines(indent: "  ")
            lines.append("filters (all must match):")
            if plan.matchesNothing { lines.append("  FALSEPREDICATE: nothing matches") }
            if plan.filters.isEmpty && !plan.matchesNothing { lines.append("  none: every record of the type") }
            for (i, f) in plan.filters.enumerated() { lines.append("  \(i + 1). \(f.summary)") }
            let sort = self.sort
            if !sort.isEmpty { lines += ["sort:"] + sort.map { "  " + $0 } }
            lines.append("indexes needed:")
            for i in plan.requiredIndexes { lines.append("  \(i.field) \(i.index)") }
            return lines
        }
    }
}
