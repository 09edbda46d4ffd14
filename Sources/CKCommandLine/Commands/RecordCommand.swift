import Foundation
import CKCore

enum RecordCommand {
    static let spec = CommandSpec(
        "record", summary: "Save, fetch and delete records.",
        discussion: "Records live in a zone of a database (--db, -z). Their JSON is the CloudKit Web Services record dictionary, so fixtures move between ck, cktool and Web Services clients.",
        examples: [("ck record save Note title=\"Hello CloudKit\"", "Save a new Note; in development the type and field are created just in time."),
                   ("ck record fetch note-1 -o json", "Fetch a record as JSON.")],
        subcommands: [RecordSaveCommand.spec, RecordFetchCommand.spec, RecordDeleteCommand.spec])

    /// Prints the results of a save, fetch or delete in request order (see `printResponse`).
    static func printResults(_ results: [RecordResult], _ inv: Invocation, keys: [String]? = nil, list: Bool = false) throws {
        try printResponse(RecordsResponse(results: results, keys: keys), inv, list: list)
    }

    /// Prints a records response: its Web Services JSON, plain lines, names, or for people one block for a single
    /// record (unless `list`) and otherwise a table of one row per record. Failures print nowhere here: the
    /// command ends with them as its error. `page` limits the table's rows (the caller says how many were left out).
    static func printResponse(_ response: RecordsResponse, _ inv: Invocation, list: Bool, page: Int? = nil) throws {
        switch try inv.outputFormat() {
        case .json, .jsonl:
            let db = try assetDatabase(response.records.compactMap { item in
                if case .record(let r) = item { return r }
                return nil
            }, inv)
            try inv.printJSON(response.json(database: db), lines: response.jsonLines(database: db))
        case .plain:
            for item in response.records {
                switch item {
                case .record(let r): inv.line(RecordText.plain(limited(r, response.keys)))
                case .deleted(let name, let type, _): inv.line(RecordText.plainDeleted(name, type))
                }
            }
        case .name:
            for item in response.records { inv.line(item.recordName) }
        case .table:
            if response.records.isEmpty {
                if response.errors.isEmpty { try inv.noteEmpty("no records") }
                return
            }
            if !list, response.records.count == 1, case .record(let r)? = response.records.first {
                inv.line(RecordText.table(r, keys: response.keys))
                return
            }
            let deletions = response.records.compactMap { item -> String? in
                guard case .deleted(let name, let type, let cascade) = item else { return nil }
                return "Deleted \(type) \(name)" + (cascade ? " (DELETE_SELF reference to a deleted record)" : "")
            }
            if !list, deletions.count == response.records.count {
                for d in deletions { inv.line(d) }
                return
            }
            inv.out(table(response, page: page, width: inv.terminal.width))
        }
    }

    /// One row per record: name, type, change tag, zone (when they span zones), and the fields summarised.
    static func table(_ response: RecordsResponse, page: Int?, width: Int?) -> String {
        var zones = Set<String>()
        for case .record(let r) in response.records { zones.insert(r.zoneID.zoneName) }
        let showZone = zones.count > 1
        var t = Table(["NAME", "TYPE", "TAG"] + (showZone ? ["ZONE"] : []) + ["FIELDS"])
        for item in response.records.prefix(page ?? response.records.count) {
            switch item {
            case .record(let r):
                t.add([r.recordName, r.recordType, r.changeTag] + (showZone ? [r.zoneID.zoneName] : [])
                      + [RecordText.fieldSummary(limited(r, response.keys).fields)])
            case .deleted(let name, let type, let cascade):
                t.add([name, type, "-"] + (showZone ? ["-"] : []) + [cascade ? "(deleted by a DELETE_SELF reference)" : "(deleted)"])
            }
        }
        return t.aligned(width: width)
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
