import Foundation
import CKCore

enum RecordCommand {
    static let spec = CommandSpec(
        "record", summary: "Save, fetch and delete records.",
        discussion: "Records live in a zone of a database (--db, -z). Their JSON is the CloudKit Web Services record dictionary, so fixtures move between ck, cktool and Web Services clients.",
        examples: [("ck record save Note title=\"Hello CloudKit\"", "Save a new Note; in development the type and field are created just in time."),
                   ("ck record fetch note-1 -o json", "Fetch a record as JSON.")],
        subcommands: [RecordSaveCommand.spec, RecordFetchCommand.spec, RecordDeleteCommand.spec])

    /// Prints the results of a save, fetch or delete in order: records, deletions, and (in JSON) failures.
    /// Failures also end the command with an error on stderr.
    static func printResults(_ results: [RecordResult], _ inv: Invocation, keys: [String]? = nil) throws {
        let format = try inv.outputFormat()
        var items: [JSON] = []
        var blocks: [(record: Bool, text: String)] = []
        for r in results {
            switch (r, format) {
            case (.saved(let rec), .json), (.saved(let rec), .jsonl): items.append(try recordJSON(rec, inv, keys: keys))
            case (.saved(let rec), .plain): inv.line(RecordText.plain(keys == nil ? rec : limited(rec, keys)))
            case (.saved(let rec), .table): blocks.append((true, RecordText.table(rec, keys: keys) + "\n"))
            case (.deleted(let n, let t, _), .json), (.deleted(let n, let t, _), .jsonl):
                items.append(.object(["recordName": .string(n), "recordType": .string(t), "deleted": .bool(true)]))
            case (.deleted(let n, let t, _), .plain): inv.line("\(n)\t\(t)\tdeleted")
            case (.deleted(let n, let t, let cascade), .table):
                blocks.append((false, "Deleted \(t) \(n)" + (cascade ? " (DELETE_SELF reference to a deleted record)" : "") + "\n"))
            case (.failed(let n, let e), .json): items.append(failureJSON(.init(id: n, error: e)))
            case (.failed, _): break
            }
        }
        switch format {
        case .json: inv.line(JSON.object(["records": .array(items)]).pretty())
        case .jsonl: for i in items { inv.line(i.serialized()) }
        case .table:
            // A blank line between record blocks; deletions are one line each.
            for (i, b) in blocks.enumerated() {
                if i > 0 && (b.record || blocks[i - 1].record) { inv.out("\n") }
                inv.out(b.text)
            }
        case .plain: break
        }
    }

    /// A record dictionary as a fetch answers it: asset values carry their local `downloadURL`.
    static func recordJSON(_ r: Record, _ inv: Invocation, keys: [String]? = nil) throws -> JSON {
        guard r.fields.values.contains(where: { $0.type.base == .asset }) else { return r.json(keys: keys) }
        return try inv.database().responseJSON(r, keys: keys)
    }

    static func limited(_ r: Record, _ keys: [String]?) -> Record {
        var copy = r
        if let keys { copy.fields = r.fields.filter { keys.contains($0.key) } }
        return copy
    }

    /// A Web Services record fetch error dictionary.
    static func failureJSON(_ f: CKError.ItemFailure) -> JSON {
        .object(["recordName": .string(f.id), "serverErrorCode": .string(f.error.serverErrorCode),
                 "reason": .string(f.error.reason), "ckErrorCode": .string(f.error.code.name)])
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
        return k.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
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
