import Foundation
import CKCore

enum RecordCommand {
    static let spec = CommandSpec(
        "record", summary: "Save, fetch, list and delete records.",
        discussion: "Records live in a zone of a database (--db, -z). Their JSON is the CloudKit Web Services record dictionary, so fixtures move between ck, cktool and Web Services clients.",
        examples: [("ck record save Note title=\"Hello CloudKit\"", "Save a new Note; in development the type and field are created just in time."),
                   ("ck record fetch note-1 -o json", "Fetch a record as JSON.")],
        subcommands: [RecordSaveCommand.spec, RecordFetchCommand.spec, RecordListCommand.spec, RecordDeleteCommand.spec])

    /// Prints the results of a save, fetch or delete in request order (see `Records`).
    static func printResults(_ results: [RecordResult], _ inv: Invocation, database: CKDatabase, keys: [String]? = nil) throws {
        try inv.emit(Records(results, keys: keys, database: database, width: inv.terminal.width))
    }

    /// One record's response dictionary, for commands that print a record outside a `RecordsResponse` (cktool's).
    static func recordJSON(_ r: Record, _ inv: Invocation, keys: [String]? = nil) throws -> JSON {
        try assetDatabase([r], inv)?.responseJSON(r, keys: keys) ?? r.json(keys: keys)
    }

    /// The database when a record has assets (their JSON carries a local `downloadURL`, which needs it), else nil.
    static func assetDatabase(_ records: [Record], _ inv: Invocation) throws -> CKDatabase? {
        records.contains { $0.fields.values.contains { $0.type.base == .asset } } ? try inv.database() : nil
    }

    static func limited(_ r: Record, _ keys: [String]?) -> Record {
        var copy = r
        if let keys { copy.fields = r.fields.filter { keys.contains($0.key) } }
        return copy
    }

    /// The error a command ends with when some items failed: the item's own error for one, partialFailure for several.
    static func failure(_ failures: [CKError.ItemFailure], total: Int, verb: String) -> CKError? {
        guard !failures.isEmpty else { return nil }
        if total == 1, let only = failures.first { return only.error }
        return CKError(.partialFailure, "Failed to \(verb) \(failures.count) of \(total) records", items: failures)
    }

    /// `--keys a,b`: desiredKeys (empty = no user fields).
    static func keys(_ inv: Invocation) -> [String]? {
        guard let k = inv.parsed.value("keys") else { return nil }
        return k.split(separator: ",").map { $0.trimmingBlanks }.filter { !$0.isEmpty }
    }

    static let noAtomicOption = OptionSpec("no-atomic", help: "Apply each operation on its own, even in a zone with the atomic capability.")

    /// Whether a modify is atomic: by default, as CKModifyRecordsOperation.isAtomic and Web Services' atomic
    /// (only zones with the atomic capability honour it).
    static func atomic(_ inv: Invocation) throws -> Bool {
        if inv.parsed.flag("atomic") && inv.parsed.flag("no-atomic") {
            throw UsageError("--atomic and --no-atomic exclude each other", command: inv.command.path)
        }
        return !inv.parsed.flag("no-atomic")
    }

    static let keysOption = OptionSpec("keys", value: "a,b", help: "Only these fields (desiredKeys); an empty list gives system fields only.", completion: .field)
}
