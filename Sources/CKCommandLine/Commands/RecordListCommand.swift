import CKCore

/// `ck record list [TYPE]`: what a zone holds, without the index a CloudKit query needs.
enum RecordListCommand {
    static let spec = CommandSpec(
        "list", summary: "List the records of a zone, all or of one type (ck's own listing; needs no index).",
        discussion: """
        Lists the records of the zone (-z, else _defaultZone) that the caller may read, by record name, in the output formats of 'ck query'. It works in a fresh store: it needs no index.

        This is ck's own listing, not a CloudKit request. CloudKit itself lists a type only by a query without filters, which needs a QUERYABLE index on ___recordID (ck schema index TYPE ___recordID --queryable); 'ck query' keeps CloudKit's rule, so what it accepts works against CloudKit too.

        --limit prints at most n records; when more follow, a note on stderr gives the --after to go on with (with -o json it is the continuationMarker).
        """,
        arguments: [ArgumentSpec("record-type", help: "Only records of this type.", optional: true, completion: .recordType)],
        options: [
            OptionSpec("limit", value: "n", help: "At most n records (default: all).", rule: .integer(min: 1)),
            OptionSpec("after", value: "name", help: "Start after this record name (where an earlier --limit stopped).", completion: .recordName),
            RecordCommand.keysOption,
        ],
        examples: [
            ("ck -z Notes record list", "Every record of the zone Notes."),
            ("ck record list Note -o plain", "The Note records of _defaultZone, one a line."),
            ("ck record list Note --limit 50 --after note-0049", "The next 50 after note-0049."),
        ],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else {
            throw UsageError("expected at most one record type", command: inv.command.path)
        }
        let type = inv.positionals.first
        // The parser has checked the rule (a whole number of at least 1).
        let limit = inv.parsed.value("limit").flatMap { Int($0) }
        let db = try inv.database()
        // One read through the database's door (.recordList): permissions, faults and the zone check apply as to a fetch.
        var records = try db.records(zone: inv.zone)
        if let type { records = records.filter { $0.recordType == type } }
        if let after = inv.parsed.value("after") { records = records.filter { $0.recordName > after } }
        var cursor: String? = nil
        if let limit, records.count > limit {
            records = Array(records.prefix(limit))
            cursor = records.last?.recordName
        }
        var output = try inv.stream(QueryCommand.Pages(keys: RecordCommand.keys(inv), database: db, width: inv.terminal.width,
                                                       cursorOption: "--after"))
        output.add(QueryResult(records: records, cursor: cursor))
        output.finish()
        if records.isEmpty, let type, inv.parsed.value("after") == nil { QueryCommand.noteOtherZones(type, db: db, inv: inv, zoneWide: false) }
        return ExitCode.success
    }
}
