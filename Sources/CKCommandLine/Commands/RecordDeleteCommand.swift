import CKCore

enum RecordDeleteCommand {
    static let spec = CommandSpec(
        "delete", summary: "Delete records by name.",
        discussion: "Deleting a record also deletes the records in its zone that point at it with a DELETE_SELF reference. A missing name is reported as unknownItem. With several names, ck asks first on a terminal unless -y is given.",
        arguments: [ArgumentSpec("name", help: "Record names.", repeatable: true, completion: .recordName)],
        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation."),
                  OptionSpec("if-tag", value: "tag", help: "Delete only if the server's change tag is still <tag> (one name only)."),
                  RecordCommand.noAtomicOption],
        examples: [("ck record delete note-1", "Delete one record."),
                   ("ck record delete note-1 --if-tag 3", "Delete it only if nobody changed it since tag 3.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
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
        try RecordCommand.printResults(results, inv)
        if let e = RecordCommand.failure(failures, total: names.count, verb: "delete") { throw e }
        return ExitCode.success
    }
}
