import Foundation
import CKCore

enum RecordSaveCommand {
    static let spec = CommandSpec(
        "save", summary: "Save a record: create it, or update it by change tag or save policy.",
        discussion: """
        Fields are field[:type]=value. Without a type, a field the schema knows takes its schema type; a new field is typed from the value: integer, true/false/yes/no as INT64 1/0 (CloudKit stores a Bool so), double, ISO 8601 date, else string (done:string=true keeps the word). Types: string, int64, double, timestamp, bytes (base64 or @file), reference (recordName[@zone]; add :deleteSelf or :validate for the action, e.g. owner:reference:deleteSelf=note-1), location (lat,lon), asset (@file, at most 50 MB) and lists of each (tags:string[]=a,b; location lists separate items with ';'; a JSON array also works). encrypted_<type> keeps a value in encryptedValues (secret:encrypted_string=…); references and assets can't be encrypted, and encrypted fields can't be queried or sorted.

        Saving a name that exists fails with serverRecordChanged (exit 4), as CloudKit's save of an existing record ID does, unless --if-tag names the server's current change tag or a --policy overwrites.

        --batch reads JSON Lines: each line a record dictionary ({"recordName", "recordType", "recordChangeTag", "fields", "parent"}) or a Web Services operation ({"operationType": "forceUpdate", "record": {…}}). CloudKit takes at most 200 operations and 2 MB of record data per request: larger inputs are sent as several requests (with --atomic they are refused with limitExceeded).

        Ctrl-C during --batch stops it after the request in flight: ck says how many operations were saved and from which line the rest were not sent, and exits 130. Run again, the saved records fail as existing (serverRecordChanged); --policy changed-keys overwrites them with the file's values and saves the rest.
        """,
        arguments: [ArgumentSpec("record-type", help: "Record type (created just in time in development).", optional: true, completion: .recordType),
                    ArgumentSpec("field[:type]=value", help: "Field values to set.", optional: true, repeatable: true, completion: .fieldAssignment)],
        options: [
            OptionSpec("name", value: "name", help: "Record name (default: a new UUID).", completion: .recordName),
            OptionSpec("parent", value: "name", help: "Parent record (CKRecord.parent) in the same zone, existing or saved in the same request.", completion: .recordName),
            OptionSpec("if-tag", value: "tag", help: "Update only if the server's change tag is still <tag> (ifServerRecordUnchanged)."),
            OptionSpec("policy", value: "policy", help: "Overwrite without a tag check: changed-keys or all-keys (both keep server fields you do not send).", choices: ["changed-keys", "all-keys"]),
            OptionSpec("unset", value: "field", help: "Remove a field (repeatable).", repeatable: true, completion: .field),
            OptionSpec("fields-json", value: "json", help: "Fields as JSON: {\"title\": {\"value\": \"x\", \"type\": \"STRING\"}} (Web Services or cktool type names)."),
            OptionSpec("fields-file", value: "file", help: "Read the fields JSON from a file.", completion: .file),
            OptionSpec("fields-stdin", help: "Read the fields JSON from stdin."),
            OptionSpec("asset-file", value: "key=path", help: "cktool's --asset-files: an asset field whose JSON value is <key> takes the bytes of <path> (repeatable).", repeatable: true, completion: .file),
            OptionSpec("batch", value: "file", help: "Save JSON Lines records from <file> ('-' for stdin).", completion: .file),
            OptionSpec("atomic", help: "All or nothing per request (the default in zones with the atomic capability)."),
            RecordCommand.noAtomicOption,
            RecordCommand.keysOption,
        ],
        examples: [
            ("ck record save Note --name note-1 title=\"Hello CloudKit\" tags:string[]=work,todo", "Create note-1 with a title and a tag list."),
            ("ck record save Note --name note-1 --if-tag 1 title=\"Edited\"", "Update it only if its change tag is still 1 (as saved above)."),
            ("ck record save Note --name note-1 --policy changed-keys done=1", "Overwrite one field whatever the server has."),
            ("ck record save Note --fields-json '{\"title\":{\"value\":\"x\",\"type\":\"stringType\"}}'", "Fields in cktool's JSON shape."),
            ("ck record save --batch notes.jsonl", "Save many records from JSON Lines."),
        ],
        run: run)

    static func policy(_ inv: Invocation) throws -> SavePolicy? {
        switch inv.parsed.value("policy") {
        case nil: return nil
        case "changed-keys": return .changedKeys
        default: return .allKeys
        }
    }

    static func run(_ inv: Invocation) throws -> Int32 {
        let policy = try policy(inv)
        if inv.parsed.value("if-tag") != nil && policy != nil {
            throw UsageError("--if-tag and --policy exclude each other: --if-tag checks the change tag, a policy overwrites", command: inv.command.path)
        }
        if let batch = inv.parsed.value("batch") { return try runBatch(inv, file: batch, policy: policy) }
        if inv.parsed.flag("atomic") || inv.parsed.flag("no-atomic") {
            throw UsageError("--atomic and --no-atomic go with --batch", command: inv.command.path)
        }
        guard let type = inv.positionals.first else {
            throw UsageError("expected a record type (or --batch <file>)", command: inv.command.path)
        }
        var fields: [String: FieldInput] = try jsonFields(inv)
        for a in inv.positionals.dropFirst() {
            let (key, input) = try assignment(a, inv: inv)
            fields[key] = input
        }
        for key in inv.parsed.all("unset") { fields[key] = .unset }
        var op = RecordOperation.save(recordType: type, recordName: inv.parsed.value("name"), fields: fields,
                                      ifTag: inv.parsed.value("if-tag"), policy: policy)
        if let parent = inv.parsed.value("parent") { op.parent = .set(parent, zone: nil) }
        return try finish(try inv.database(), requests: [[op]], inv: inv, total: 1)
    }

    /// `field[:type[:action]]=value`.
    static func assignment(_ a: String, inv: Invocation) throws -> (String, FieldInput) {
        guard let eq = a.firstIndex(of: "=") else {
            throw UsageError("expected field=value, got '\(a)'", command: inv.command.path)
        }
        let lhs = a[..<eq].split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let value = String(a[a.index(after: eq)...])
        guard let key = lhs.first, !key.isEmpty, lhs.count <= 3 else {
            throw UsageError("expected field[:type[:action]]=value, got '\(a)'", command: inv.command.path)
        }
        var type: FieldType? = nil
        var encrypted = false
        if lhs.count >= 2 {
            // encrypted_string, encrypted_int64[], …: the value goes into encryptedValues.
            var name = lhs[1]
            if name.lowercased().hasPrefix(FieldType.encryptedCLIPrefix) {
                encrypted = true
                name = String(name.dropFirst(FieldType.encryptedCLIPrefix.count))
            }
            guard let t = FieldType(cliName: name) else {
                throw UsageError("unknown type '\(lhs[1])' for field '\(key)': use string, int64, double, timestamp, bytes, reference, location, asset, a list like string[], or encrypted_<type> (encrypted_string, encrypted_bytes[], …)", command: inv.command.path)
            }
            type = t
        }
        var action: Reference.Action? = nil
        if lhs.count == 3 {
            guard type?.base == .reference else {
                throw UsageError("'\(lhs[2])' in '\(a)': only references take an action", command: inv.command.path)
            }
            switch lhs[2].lowercased() {
            case "none": action = Reference.Action.none
            case "deleteself", "delete_self", "delete-self": action = .deleteSelf
            case "validate": action = .validate
            default: throw UsageError("unknown reference action '\(lhs[2])': use none, deleteSelf or validate", command: inv.command.path)
            }
        }
        return (key, .text(value, type: type, action: action, encrypted: encrypted))
    }

    /// `--fields-json`, `--fields-file`, `--fields-stdin`: an object of field dictionaries. Asset keys name
    /// files given with `assetOption` (ck's --asset-file, cktool's --asset-files).
    static func jsonFields(_ inv: Invocation, assetOption: String = "asset-file") throws -> [String: FieldInput] {
        var sources: [(String, [UInt8])] = []
        if let j = inv.parsed.value("fields-json") { sources.append(("--fields-json", Array(j.utf8))) }
        if let f = inv.parsed.value("fields-file") { sources.append((f, try inv.readInput(f, limit: InputLimit.recordJSON, limitName: InputLimit.recordJSONName))) }
        if inv.parsed.flag("fields-stdin") { sources.append(("<stdin>", try inv.readStdin("the fields (one JSON object)", limit: InputLimit.recordJSON, limitName: InputLimit.recordJSONName))) }
        guard sources.count <= 1 else {
            throw UsageError("give fields with one of --fields-json, --fields-file, --fields-stdin", command: inv.command.path)
        }
        guard let (label, bytes) = sources.first else { return [:] }
        let json: JSON
        do { json = try JSON.parse(utf8: bytes) } catch {
            throw CKError(.invalidArguments, "\(label):\(error.line):\(error.column): invalid JSON: \(error.message)")
        }
        guard case .object(let o) = json else {
            throw CKError(.invalidArguments, "\(label): expected an object of fields, found \(json.kindName)",
                          hint: "{\"title\": {\"value\": \"Hello\", \"type\": \"STRING\"}}")
        }
        let assets = try assetFiles(inv, option: assetOption)
        var out: [String: FieldInput] = [:]
        for (k, v) in o {
            guard case .object = v else {
                throw CKError(.invalidArguments, "\(label): field '\(k)': expected {\"value\": …, \"type\": …}, found \(v.kindName)")
            }
            if let t = v["type"]?.stringValue, let ft = FieldType(name: t), ft.base == .asset {
                out[k] = try assetInput(v["value"], list: ft.isList, key: k, assets: assets, label: label, option: assetOption)
                continue
            }
            out[k] = (v["value"]?.isNull ?? true) ? .unset : .json(v)
        }
        return out
    }

    static func assetFiles(_ inv: Invocation, option: String) throws -> [String: String] {
        var map: [String: String] = [:]
        for item in inv.parsed.all(option) {
            guard let eq = item.firstIndex(of: "=") else {
                throw UsageError("--\(option) takes key=path, got '\(item)'", command: inv.command.path)
            }
            map[String(item[..<eq])] = String(item[item.index(after: eq)...])
        }
        return map
    }

    /// cktool's asset values name a key given with --asset-files.
    static func assetInput(_ value: JSON?, list: Bool, key: String, assets: [String: String], label: String,
                           option: String) throws -> FieldInput {
        func path(_ j: JSON) throws -> String {
            guard let k = j.stringValue else {
                throw CKError(.invalidArguments, "\(label): field '\(key)': an asset value names an --\(option) key")
            }
            guard let p = assets[k] else {
                throw CKError(.invalidArguments, "\(label): field '\(key)': no --\(option) given for key '\(k)'",
                              hint: "add --\(option) \(k)=<path>")
            }
            return p
        }
        guard let value else { return .unset }
        if case .object = value { return .json(.object(["value": value, "type": .string(list ? "ASSETID_LIST" : "ASSETID")])) }
        if list {
            guard let items = value.arrayValue else { throw CKError(.invalidArguments, "\(label): field '\(key)': expected a list of asset keys") }
            var paths: [String] = []
            for i in items { paths.append(try path(i)) }
            return .text("[" + paths.map { JSON.string("@" + $0).serialized() }.joined(separator: ",") + "]", type: FieldType(.asset, list: true), action: nil)
        }
        return .text("@" + (try path(value)), type: .asset, action: nil)
    }

    // MARK: Batches

    static func runBatch(_ inv: Invocation, file: String, policy: SavePolicy?) throws -> Int32 {
        let stray = ["name", "parent", "if-tag", "unset", "fields-json", "fields-file", "asset-file"].filter { !inv.parsed.all($0).isEmpty }
            + (inv.parsed.flag("fields-stdin") ? ["fields-stdin"] : [])
        guard inv.positionals.isEmpty, stray.isEmpty else {
            let what = stray.isEmpty ? "a record type or fields" : stray.map { "--" + $0 }.joined(separator: ", ")
            throw UsageError("--batch takes its records from the file, so \(what) cannot be given on the command line (each line carries its own recordName, recordChangeTag and fields)", command: inv.command.path)
        }
        var batch = RecordBatch(bytes: try inv.readInput(file, what: "the batch (one JSON request a line)", limit: InputLimit.document,
                                                           limitName: "the most ck reads for a batch file", lineLimit: InputLimit.recordJSON), label: file == "-" ? "<stdin>" : file)
        let explicit = inv.parsed.flag("atomic")
        let atomic = try RecordCommand.atomic(inv)
        if explicit && batch.count > CKDatabase.maxOperationsPerRequest {
            throw CKError(.limitExceeded, "\(batch.count) operations in one atomic request; CloudKit allows \(CKDatabase.maxOperationsPerRequest)",
                          hint: "atomicity holds per request: split the file into requests of at most 200, or drop --atomic")
        }
        let db = try inv.database()
        // Every line is checked (syntax, shape, types against the schema) before anything is written; the
        // operations the check kept (up to a memory budget) are reused, the others read again request by
        // request, so a large file never sits in memory as records.
        try batch.check(for: db, zone: inv.zone, policy: policy)
        let checked = batch
        if explicit {
            let zone = try db.zones().first { $0.zoneID.zoneName == inv.zone }
            if zone?.capabilities.contains(.atomic) != true {
                inv.note("warning: zone \(inv.zone) has no atomic capability; --atomic has no effect there, as in CloudKit")
            }
        }
        let size = CKDatabase.maxOperationsPerRequest
        // An explicit --atomic is one request (refused above 200); otherwise requests of CloudKit's size, each atomic by default.
        let spans = explicit && batch.count > 0 ? [0..<batch.count] : requestSpans((0..<batch.count).map(batch.length))
        if spans.count > (batch.count + size - 1) / size {
            inv.note("\(batch.count) operations: sending \(spans.count) requests of at most \(size) operations and 2 MB of records (CloudKit's limits per request)")
        } else if spans.count > 1 {
            inv.note("\(batch.count) operations: sending \(spans.count) requests of at most \(size) (CloudKit's limit per request)")
        }
        // After Ctrl-C no further request is taken: the one in flight completes and is reported.
        let tally = Tally()
        let requests = spans.lazy.prefix { _ in !Interrupt.isRequested }.map { span -> [RecordOperation] in
            tally.sent = span.upperBound
            return span.map { i -> RecordOperation in
                do throws(CKError) { return try checked.operation(i, policy: policy, zone: inv.zone) } catch {
                    return RecordOperation.invalid(error, recordName: checked.place(i))
                }
            }
        }
        Interrupt.catchSIGINT()
        let code: Int32
        do {
            code = try finish(db, requests: requests, inv: inv, total: batch.count, atomic: atomic, batch: true,
                              policy: policy, tally: tally)
        } catch let error as CKError where Interrupt.isRequested {
            return interrupted(inv, batch: checked, tally: tally, failure: error)
        }
        return Interrupt.isRequested ? interrupted(inv, batch: checked, tally: tally, failure: nil) : code
    }

    /// Lines grouped into requests of at most 200 operations and 2 MB of JSON (the text is at least as long
    /// as the record data it carries, so no request exceeds CloudKit's 2 MB guideline).
    static func requestSpans(_ lengths: [Int]) -> [Range<Int>] {
        var spans: [Range<Int>] = []
        var start = 0, bytes = 0
        for (i, length) in lengths.enumerated() {
            if i > start && (i - start >= CKDatabase.maxOperationsPerRequest || bytes + length > CKDatabase.maxRequestSize) {
                spans.append(start..<i)
                start = i
                bytes = 0
            }
            bytes += length
        }
        if start < lengths.count { spans.append(start..<lengths.count) }
        return spans
    }

    /// The last line of a batch on a terminal: what it did, and how many rows the page left out.
    static func summary(_ results: [RecordResult], shown: Int?) -> String {
        var saved = 0, deleted = 0, failed = 0
        for r in results {
            switch r {
            case .saved: saved += 1
            case .deleted: deleted += 1
            case .failed: failed += 1
            }
        }
        let counts = [(saved, "saved"), (deleted, "deleted"), (failed, "failed")].filter { $0.0 > 0 || $0.1 == "saved" }
        var text = "Batch of \(results.count) operation\(results.count == 1 ? "" : "s"): " + counts.map { "\($0.0) \($0.1)" }.joined(separator: ", ")
        let rows = saved + deleted
        if let shown, rows > shown { text += " (showing the first \(shown); all of them with -o plain or -o json)" }
        return text
    }

    /// Splits operations into requests of at most 200, saying so when it does.
    static func chunks(_ ops: [RecordOperation], inv: Invocation) -> [[RecordOperation]] {
        noteRequests(ops.count, inv: inv)
        let size = CKDatabase.maxOperationsPerRequest
        return stride(from: 0, to: ops.count, by: size).map { Array(ops[$0..<min($0 + size, ops.count)]) }
    }

    /// Says how many requests `count` operations take, when they take more than one.
    static func noteRequests(_ count: Int, inv: Invocation) {
        let size = CKDatabase.maxOperationsPerRequest
        if count > size {
            inv.note("\(count) operations: sending \((count + size - 1) / size) requests of at most \(size) (CloudKit's limit per request)")
        }
    }

    /// Applies requests under one lock and prints their results once they are durable. A `batch` prints as a
    /// list; on a terminal (no -o, stdout a tty) it prints a summary and at most a page of rows.
    static func finish<S: Sequence>(_ db: CKDatabase, requests: S, inv: Invocation, total: Int, atomic: Bool = false,
                                    batch: Bool = false, stagedAssets: [String: [UInt8]] = [:], policy: SavePolicy? = nil,
                                    tally: Tally? = nil) throws -> Int32 where S.Element == [RecordOperation] {
        var output = try inv.stream(Results(keys: RecordCommand.keys(inv), database: db, width: inv.terminal.width, batch: batch,
                                            page: batch && inv.onTerminal ? max(inv.terminal.height - 4, 5) : nil))
        var failures: [CKError.ItemFailure] = []
        // Results print only once synced (what ck prints as saved is on disk), and only after the store's lock is
        // released: what is durable while it is held waits in a spool, so a stopped reader never holds the lock.
        var held = inv.holdOutput()
        var done = 0
        let progress = Progress(inv, total: total, verb: "saved")
        do {
            try db.modify(requests: requests, zone: inv.zone, atomic: atomic, stagedAssets: stagedAssets, durable: {
                inv.spoolHeld(held)
                held = inv.holdOutput()
            }) { result in
                done += result.results.count
                progress.update(done)
                failures += result.failures
                tally?.applied += result.results.count - result.failures.count
                output.add(result.results)
            }
        } catch {
            // What was durable before the failure is printed, as it was saved.
            inv.releaseSpool()
            throw error
        }
        progress.finish()
        output.finish()
        inv.release(held)
        if var e = RecordCommand.failure(failures, total: total, verb: "save") {
            // A batch run again (after Ctrl-C, say) fails on every record it saved before: one hint, not one per record.
            let existing = failures.filter { $0.error.serverErrorCode == "EXISTS" }.count
            if batch && policy == nil && existing > 0 && total > 1 {
                e.hint = "\(existing) record\(existing == 1 ? "" : "s") already exist\(existing == 1 ? "s" : "") (saved by an earlier run?); with --policy changed-keys the batch overwrites \(existing == 1 ? "it" : "them") with the file's values instead of failing"
            }
            if failures.contains(where: { $0.error.code == .batchRequestFailed }) {
                // As CloudKit answers an atomic request: partialFailure, whose items are the real failures and
                // batchRequestFailed for the rest.
                throw CKError(.partialFailure, "Failed to modify some records: \(failures.filter { $0.error.code != .batchRequestFailed }.count) of \(total) operations were rejected, so the atomic request applied none", hint: e.hint, items: failures)
            }
            throw e
        }
        return ExitCode.success
    }
}
