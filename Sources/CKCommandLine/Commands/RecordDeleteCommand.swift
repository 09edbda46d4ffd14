import CKCore

enum RecordDeleteCommand {
    static let spec = CommandSpec(
        "delete", summary: "Delete records by name, or every record a query matches.",
        discussion: """
        Deleting a record also deletes the records in its zone that point at it with a DELETE_SELF reference: at once in a custom zone (printed with it), after the request in the default zone (not printed; gone by the next command), as in CloudKit. A missing name is reported as unknownItem. With several names, ck asks first on a terminal unless -y is given.

        With --query the arguments are a record type and an optional predicate, as for 'ck query' (the same indexes and permissions apply; --arg and --filters work as there). ck lists every match, then deletes them in requests of at most 200 (CloudKit's limit per request), each deletion on its own; a record changed since it was listed is refused with serverRecordChanged, not deleted. --dry-run prints what would go and deletes nothing. A delete by query asks first on a terminal; elsewhere it needs -y.
        """,
        arguments: [ArgumentSpec("name", help: "Record names (with --query: <record-type> [<predicate>]).", repeatable: true, completion: .recordName)],
        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation."),
                  OptionSpec("if-tag", value: "tag", help: "Delete only if the server's change tag is still <tag> (one name only)."),
                  RecordCommand.noAtomicOption,
                  OptionSpec("query", help: "Delete every record of <record-type> that [<predicate>] matches.",
                             positionals: [ArgumentSpec("record-type", help: "Record type.", completion: .recordType),
                                           ArgumentSpec("predicate", help: "NSPredicate format string.", optional: true)]),
                  OptionSpec("arg", value: "value", help: "With --query: value for the next %@, %K, %d or %f (repeatable).", repeatable: true),
                  OptionSpec("filters", value: "filter", help: "With --query: cktool filter \"FIELD OP VALUE\" (repeatable).", repeatable: true),
                  OptionSpec("dry-run", help: "With --query: print the records that would be deleted; delete nothing.")],
        examples: [("ck record delete note-1", "Delete one record."),
                   ("ck record delete note-1 --if-tag 3", "Delete it only if nobody changed it since tag 3."),
                   ("ck record delete --query Note 'done == 1' --dry-run", "List the done notes a delete by query would remove."),
                   ("ck record delete --query Note 'done == 1' -y", "Delete them without asking.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        if inv.parsed.flag("query") { return try runQuery(inv) }
        if let stray = ["dry-run", "arg", "filters"].first(where: { inv.parsed.flag($0) || !inv.parsed.all($0).isEmpty }) {
            throw UsageError("--\(stray) goes with --query", command: inv.command.path)
        }
        let names = inv.positionals
        guard !names.isEmpty else { throw UsageError("expected at least one record name", command: inv.command.path) }
        let tag = inv.parsed.value("if-tag")
        if tag != nil && names.count > 1 { throw UsageError("--if-tag takes one record name", command: inv.command.path) }
        if names.count > 1 && !inv.parsed.flag("yes") && !inv.confirm("Delete \(names.count) records?") {
            inv.note("nothing deleted")
            return ExitCode.failure
        }
        let db = try inv.database()
        let ops = names.map { n in RecordOperation(type: tag == nil ? .forceDelete : .delete, recordName: n, changeTag: tag) }
        var results: [RecordResult] = []
        try db.modify(requests: RecordSaveCommand.chunks(ops, inv: inv), zone: inv.zone, atomic: try RecordCommand.atomic(inv)) { results += $0.results }
        let failures = results.compactMap { r in r.error.map { CKError.ItemFailure(id: r.recordName, error: $0) } }
        try RecordCommand.printResults(results, inv, database: db)
        if let e = RecordCommand.failure(failures, total: names.count, verb: "delete") { throw e }
        return ExitCode.success
    }

    /// `--query <type> [<predicate>]`: list the matches, then (unless a dry run) delete them.
    static func runQuery(_ inv: Invocation) throws -> Int32 {
        if let stray = ["if-tag", "no-atomic"].first(where: { inv.parsed.flag($0) || inv.parsed.value($0) != nil }) {
            throw UsageError("--\(stray) can't be used with --query (each deletion of a query is checked against the change tag it was listed with)",
                             command: inv.command.path)
        }
        let request = try QueryCommand.request(inv)
        let db = try inv.database()
        let matches = try db.allMatches(request, zone: inv.zone)
        let type = request.recordType
        if inv.parsed.flag("dry-run") {
            try RecordCommand.printResults(matches.map { .saved($0) }, inv, database: db)
            inv.note("dry run: \(count(matches.count, type)) would be deleted; nothing deleted")
            return ExitCode.success
        }
        guard !matches.isEmpty else {
            try RecordCommand.printResults([], inv, database: db)
            inv.note("no \(type) records match; nothing deleted")
            return ExitCode.success
        }
        if try !inv.confirmDestructive("Delete \(count(matches.count, type))?") {
            inv.note("nothing deleted")
            return ExitCode.failure
        }
        RecordSaveCommand.noteRequests(matches.count, inv: inv)
        var results: [RecordResult] = []
        try db.deleteListed(matches, zone: inv.zone) { results += $0.results }
        let failures = results.compactMap { r in r.error.map { CKError.ItemFailure(id: r.recordName, error: $0) } }
        try RecordCommand.printResults(results, inv, database: db)
        if let e = RecordCommand.failure(failures, total: matches.count, verb: "delete") { throw e }
        return ExitCode.success
    }

    /// `1 Note record`, `3 Note records`.
    static func count(_ n: Int, _ type: String) -> String { "\(n) \(type) record\(n == 1 ? "" : "s")" }
}
