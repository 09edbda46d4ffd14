import CKCore

/// `ck changes zone|database`: the change feeds behind CloudKit sync (changes/zone, changes/database).
enum ChangesCommand {
    static let sinceOption = OptionSpec("since", value: "token",
                                        help: "Changes after this syncToken (from the previous call); omit to start from the beginning.")
    static let limitOption = OptionSpec("limit", value: "n", help: "At most n items (resultsLimit); moreComing says when to ask again.",
                                        rule: .integer(min: 1))

    static let spec = CommandSpec(
        "changes", summary: "Fetch what changed in a zone or a database since a change token.",
        discussion: "A change token (syncToken) is a position in a change feed: pass the one the previous call printed and you get only what changed since, as CKFetchRecordZoneChangesOperation and CKFetchDatabaseChangesOperation do. Tokens are opaque and bound to one environment, database, user and zone; zone and database tokens are not interchangeable. Only the private and shared databases have change feeds, and only custom zones with the fetchChanges capability (not _defaultZone). A token older than the zone's last compaction ('ck gc'), or from a zone deleted and created again, answers changeTokenExpired (exit 9): toss the local copy and fetch again without a token.",
        examples: [("ck changes zone Notes", "Everything in zone Notes, and a token."),
                   ("ck changes zone Notes --since \"$TOKEN\" -o json", "Only what changed since TOKEN."),
                   ("ck changes database", "Which custom zones were created, changed or deleted.")],
        subcommands: [
            CommandSpec("zone", summary: "Records saved or deleted in a custom zone since a token.",
                        arguments: [ArgumentSpec("zone", help: "Zone name (default: --zone).", optional: true, completion: .customZone)],
                        options: [sinceOption, limitOption, RecordCommand.keysOption],
                        run: zone),
            CommandSpec("database", summary: "Custom zones created, changed or deleted since a token.",
                        options: [sinceOption, limitOption],
                        run: database),
        ])

    /// --limit, checked by the parser.
    static func limit(_ inv: Invocation) -> Int? { inv.parsed.value("limit").flatMap { Int($0) } }

    /// Fetches the feed a server page at a time and writes each page as it comes (memory holds one page); the
    /// output is what one answer with every change would print.
    static func zone(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one zone name", command: inv.command.path) }
        let name = inv.positionals.first ?? inv.zone
        var output = try inv.stream(ZoneFeed(database: try inv.database(), width: inv.terminal.width))
        let db = output.output.database
        // A table's columns come from decoded records; the other formats are written from the log's bytes.
        let stored = try inv.outputFormat() != .table
        try db.storedZoneChanges(zone: name, since: inv.parsed.value("since"), limit: limit(inv), desiredKeys: RecordCommand.keys(inv),
                                 pageSize: CKDatabase.changesPageSize, stored: stored) { (page) throws(CKError) in output.add(page) }
        output.finish()
        return ExitCode.success
    }

    static func database(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("database takes no arguments", command: inv.command.path) }
        try inv.emit(Database(changes: try inv.database().databaseChanges(since: inv.parsed.value("since"), limit: limit(inv))))
        return ExitCode.success
    }
}
