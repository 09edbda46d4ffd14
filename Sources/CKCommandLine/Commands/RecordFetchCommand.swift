import CKCore

enum RecordFetchCommand {
    static let spec = CommandSpec(
        "fetch", summary: "Fetch records by name.",
        discussion: "Prints each record found. A name that is not there is reported as unknownItem (exit 3); when several names are fetched and some are missing, the found records print and the command ends with partialFailure (exit 10).",
        arguments: [ArgumentSpec("name", help: "Record names.", repeatable: true, completion: .recordName)],
        options: [RecordCommand.keysOption],
        examples: [("ck record fetch note-1 note-2", "Fetch two records."),
                   ("ck record fetch note-1 --keys title -o json", "Only the title field, as JSON.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard !inv.positionals.isEmpty else { throw UsageError("expected at least one record name", command: inv.command.path) }
        let db = try inv.database()
        let results = try db.fetch(inv.positionals, zone: inv.zone)
        let failures = results.compactMap { r in r.error.map { CKError.ItemFailure(id: r.recordName, error: $0) } }
        try RecordCommand.printResults(results, inv, database: db, keys: RecordCommand.keys(inv))
        if let e = RecordCommand.failure(failures, total: results.count, verb: "fetch") { throw e }
        return ExitCode.success
    }
}
