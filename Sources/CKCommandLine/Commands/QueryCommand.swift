import CKCore
import Foundation

enum QueryCommand {
    static let spec = CommandSpec(
        "query", summary: "Query records of a type with CloudKit's NSPredicate subset.",
        discussion: """
        The predicate is an NSPredicate format string in the subset CloudKit accepts (see 'ck help predicates'): comparisons, BETWEEN, IN, BEGINSWITH, list CONTAINS, ANY, self CONTAINS 'word' token search, distanceToLocation:fromLocation:, AND and NOT. No predicate means TRUEPREDICATE. What CloudKit refuses (OR, LIKE, ENDSWITH, …) is refused here, with the column and a hint.

        Indexes are enforced as in CloudKit: filter fields must be QUERYABLE (SEARCHABLE for token search), sort fields SORTABLE, and a query without filters needs ___recordID QUERYABLE. Development indexes user fields automatically but never system fields. 'ck record list TYPE' lists a type's records without that index (ck's own listing, not a CloudKit request).

        Results come in pages of at most 200 records (default 100 on a terminal, 200 otherwise). When more match, the cursor is printed on stderr (or as continuationMarker with -o json): pass it to --cursor for the next page, or use --all.

        A query finds records in one zone: -z (or CK_ZONE), else _defaultZone. When it finds nothing there and the zone holds no records of the type, but other zones of the database do, a note on stderr names them and the -z to use (stdout and the exit code stay those of an empty answer; -q silences it).
        """,
        arguments: [ArgumentSpec("record-type", help: "Record type.", completion: .recordType),
                    ArgumentSpec("predicate", help: "NSPredicate format string (default TRUEPREDICATE).", optional: true)],
        options: [
            OptionSpec("arg", value: "value", help: "Value for the next %@, %K, %d or %f, typed like field values (2026-01-01T00:00:00Z, ref:note-1, location:37.33,-122.03, string[]:a,b) (repeatable).", repeatable: true),
            OptionSpec("sort", value: "[-]field", help: "Sort by a field, descending with '-'; field@lat,lon sorts by distance (repeatable).", repeatable: true, completion: .sortField),
            OptionSpec("limit", value: "n", help: "Records per page, at most 200.", rule: .integer(min: 1)),
            OptionSpec("cursor", value: "cursor", help: "Continue after the page that printed this cursor."),
            OptionSpec("all", help: "Follow cursors to the last page."),
            RecordCommand.keysOption,
            OptionSpec("zone-wide", help: "Search every zone of the database."),
            OptionSpec("filters-json", value: "json", help: "Web Services filters: {\"filterBy\": [...], \"sortBy\": [...]} or an array of filters."),
            OptionSpec("filters", value: "filter", help: "cktool filter \"FIELD OP VALUE\", e.g. \"price > 4.60\" (repeatable).", repeatable: true),
            OptionSpec("explain", help: "Print the parsed predicate, bound values, filters and needed indexes; run nothing."),
        ],
        examples: [
            ("ck query Note \"title BEGINSWITH 'Shop' AND done == NO\" --sort -modificationDate", "Notes starting with 'Shop', not done, newest first (sorting on modificationDate needs: ck schema index Note ___modTime --sortable)."),
            ("ck query Note 'due < %@' --arg 2026-12-01T00:00:00Z", "A date bound from an argument."),
            ("ck query Note \"self CONTAINS 'milk'\"", "Token search over searchable text fields."),
            ("ck query Place 'distanceToLocation:fromLocation:(location, %@) < 5000' --arg location:37.33,-122.03", "Within 5 km."),
            ("ck query Note --filters 'priority >= 2' --limit 20", "A cktool-style filter."),
        ],
        run: run)

    static func request(_ inv: Invocation) throws -> QueryRequest {
        guard let type = inv.positionals.first, inv.positionals.count <= 2 else {
            throw UsageError("expected <record-type> [<predicate>] (quote the predicate)", command: inv.command.path)
        }
        var req = QueryRequest(recordType: type, predicate: inv.positionals.count > 1 ? inv.positionals[1] : nil,
                               arguments: inv.parsed.all("arg"), zoneWide: inv.parsed.flag("zone-wide"),
                               desiredKeys: RecordCommand.keys(inv))
        if req.zoneWide && inv.parsed.value("zone") != nil {
            throw UsageError("--zone and --zone-wide exclude each other", command: inv.command.path)
        }
        for s in inv.parsed.all("sort") { req.sort.append(try sortDescriptor(s, inv: inv)) }
        if let j = inv.parsed.value("filters-json") {
            let json: JSON
            do { json = try JSON.parse(j) } catch {
                throw CKError(.invalidArguments, "--filters-json:\(error.line):\(error.column): invalid JSON: \(error.message)")
            }
            let ws = try QueryFilter.webServices(json, label: "--filters-json")
            if let t = ws.recordType, t != type {
                throw CKError(.invalidArguments, "--filters-json names recordType '\(t)' but the query is for '\(type)'")
            }
            req.filters += ws.filters
            req.sort += ws.sort
        }
        for f in inv.parsed.all("filters") { req.filters.append(try QueryFilter.cktool(f)) }
        req.limit = try pageLimit(inv) ?? (inv.terminal.stdoutIsTTY ? 100 : CKDatabase.maxQueryResults)
        req.cursor = inv.parsed.value("cursor")
        return req
    }

    /// `--limit n`: records per page, capped at CloudKit's 200 with a note; nil when not given.
    static func pageLimit(_ inv: Invocation) throws -> Int? {
        guard let l = inv.parsed.value("limit") else { return nil }
        guard let n = Int(l), n >= 1 else { throw UsageError("--limit takes a whole number from 1 to 200", command: inv.command.path) }
        if n > CKDatabase.maxQueryResults { inv.note("--limit \(n) is more than CloudKit's 200 records per page; pages hold 200") }
        return min(n, CKDatabase.maxQueryResults)
    }

    static func sortDescriptor(_ s: String, inv: Invocation) throws -> QuerySort {
        if let at = s.firstIndex(of: "@") {
            let field = String(s[..<at])
            let loc = try ValueParser.location(String(s[s.index(after: at)...]), path: "--sort \(s)")
            return QuerySort(distanceOf: field, from: loc).given(as: "--sort \(s)")
        }
        if s.hasPrefix("-") { return QuerySort(String(s.dropFirst()), ascending: false).given(as: "--sort \(s)") }
        if s.hasPrefix("+") { return QuerySort(String(s.dropFirst())).given(as: "--sort \(s)") }
        guard !s.isEmpty else { throw UsageError("--sort needs a field name", command: inv.command.path) }
        return QuerySort(s).given(as: "--sort \(s)")
    }

    static func run(_ inv: Invocation) throws -> Int32 {
        var req = try request(inv)
        let db = try inv.database()
        if inv.parsed.flag("explain") { return try explain(req, db: db, inv: inv) }
        var output = try inv.stream(Pages(keys: req.desiredKeys, database: db, width: inv.terminal.width))
        let firstPage = req.cursor == nil
        var found = 0
        repeat {
            let page: QueryResult
            do { page = try db.query(req, zone: inv.zone) } catch { throw listingHint(error, recordType: req.recordType) }
            found += page.records.count
            output.add(page)
            req.cursor = page.cursor
        } while inv.parsed.flag("all") && req.cursor != nil
        output.finish()
        if found == 0 && firstPage && !req.zoneWide { noteOtherZones(req.recordType, db: db, inv: inv) }
        return ExitCode.success
    }

    /// CloudKit's rule stays, but a user who only wants to see a type's records without the ___recordID index is
    /// told of ck's own listing.
    static func listingHint(_ error: CKError, recordType: String) -> CKError {
        guard error.reason == CKDatabase.notIndexableReason else { return error }
        var e = error
        e.hint = (e.hint.map { $0 + "; " } ?? "") + "or list them without the index: ck record list \(recordType) (ck's own listing, not a CloudKit query)"
        return e
    }

    /// After an empty answer: one line on stderr naming the other zones that hold records of the type, since a
    /// forgotten -z otherwise looks like "no such records" to a script. Best effort: stdout and the exit code stay.
    /// `zoneWide`: the command takes --zone-wide, so the note may offer it.
    static func noteOtherZones(_ recordType: String, db: CKDatabase, inv: Invocation, zoneWide: Bool = true) {
        let asked = inv.zone
        guard let zones = try? db.zonesHolding(recordType), !zones.isEmpty, !zones.contains(asked) else { return }
        let these = zones.count == 1 ? "zone \(zones[0]) does" : "zones \(zones.joined(separator: ", ")) do"
        let fix = zones.map { "-z \($0)" }.joined(separator: ", ") + (zones.count == 1 || !zoneWide ? "" : " or --zone-wide")
        inv.note("zone \(asked) holds no \(recordType) records; \(these): add \(fix)")
    }

    static func explain(_ req: QueryRequest, db: CKDatabase, inv: Invocation) throws -> Int32 {
        let text = req.predicate ?? ""
        let tree = text.isEmpty ? PredicateNode.constant(true, column: 1) : try PredicateParser.parse(text, arguments: req.arguments)
        try inv.emit(Explain(plan: try db.plan(req), predicate: text.isEmpty ? "TRUEPREDICATE" : text, tree: tree,
                             arguments: req.arguments, environment: try inv.environment()))
        return ExitCode.success
    }
}
