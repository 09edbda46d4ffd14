import CKCore
import Foundation

/// cktool's record verbs over ck's record, query and delete-by-query operations.
extension CktoolCommand {
    static let createRecord = verb(
        "create-record", summary: "Create a record from cktool's fields JSON and print it as JSON.",
        discussion: "Fields are {\"KEY\": {\"type\": \"stringType\", \"value\": …}} (cktool's or Web Services' type names), from --fields-json, --fields-file or --fields-stdin. An assetType value names a key given with --asset-files KEY=path. The record gets a new UUID as its name; the printed record shows it.",
        required: [teamID, containerID, environment, databaseType, recordType],
        optional: [zoneName,
                   OptionSpec("fields-file", value: "fields-file", help: "Read the fields JSON from a file.", completion: .file),
                   OptionSpec("fields-json", value: "fields-json", help: "The fields JSON."),
                   OptionSpec("fields-stdin", help: "Read the fields JSON from stdin."),
                   OptionSpec("asset-files", value: "key=path", help: "An asset field whose value is <key> takes the bytes of <path> (repeatable).",
                              repeatable: true, completion: .file),
                   token],
        run: { inv in
            try target(inv)
            let fields = try RecordSaveCommand.jsonFields(inv, assetOption: "asset-files")
            let op = RecordOperation.save(recordType: inv.parsed.value(recordType.long) ?? "", recordName: nil, fields: fields,
                                          ifTag: nil, policy: nil)
            let result = try inv.database().modify([op], zone: inv.zone)
            if let failure = result.failures.first { throw failure.error }
            for case .saved(let record) in result.results {
                inv.line(CktoolJSON.record(try RecordCommand.recordJSON(record, inv)).pretty())
            }
            return ExitCode.success
        })

    static let queryRecords = verb(
        "query-records", summary: "Print the records a query matches as JSON, with continuationToken at the top level when more follow.",
        discussion: "No filter lists every record of the type (that needs ___recordID QUERYABLE, as in CloudKit); filter fields must be QUERYABLE and sort fields SORTABLE. At most 200 records per page (--limit, default 200).",
        required: [teamID, containerID, environment, databaseType],
        optional: [zoneName, queriedType, filters,
                   OptionSpec("sort-by", value: "sort-by", help: "\"FIELD ASC\" or \"FIELD DESC\" (repeatable).", repeatable: true, completion: .field),
                   OptionSpec("requested-fields", value: "requested-fields", help: "Only these fields (repeatable; commas also separate).", repeatable: true, completion: .field),
                   OptionSpec("limit", value: "limit", help: "Records per page, 1 to 200 (default 200)."),
                   OptionSpec("continuation-token", value: "continuation-token", help: "Continue after the page that printed this token."),
                   token],
        run: { inv in
            var request = try query(inv)
            request.sort = try inv.parsed.all("sort-by").map { try sortBy($0, inv) }
            let fields = inv.parsed.all("requested-fields").flatMap { $0.split(separator: ",") }
                .map { $0.trimmingBlanks }.filter { !$0.isEmpty }
            request.desiredKeys = fields.isEmpty ? nil : fields
            request.limit = try QueryCommand.pageLimit(inv)
            request.cursor = inv.parsed.value("continuation-token")
            try target(inv)
            let page = try inv.database().query(request, zone: inv.zone)
            let records = try page.records.map { try RecordCommand.recordJSON($0, inv, keys: request.desiredKeys) }
            inv.line(CktoolJSON.records(records, continuationToken: page.cursor).pretty())
            return ExitCode.success
        })

    static let deleteRecord = verb(
        "delete-record", summary: "Delete one record by name; asks on a terminal unless -y.",
        discussion: "Records pointing at it with a DELETE_SELF reference go too. Prints nothing on success; a missing record fails (exit 1). Where stdin is not a terminal, -y is required.",
        required: [containerID, environment, databaseType],
        optional: [zoneName, OptionSpec("record-name", value: "record-name", help: "Record name.", completion: .recordName), yes, teamID, token],
        run: { inv in
            guard let name = inv.parsed.value("record-name") else {
                throw UsageError("missing expected argument '--record-name <record-name>'", command: inv.command.path)
            }
            try target(inv)
            if try !inv.confirmDestructive("Delete record \(name)?") {
                inv.note("nothing deleted")
                return ExitCode.failure
            }
            let result = try inv.database().modify([RecordOperation(type: .forceDelete, recordName: name)], zone: inv.zone)
            if let failure = result.failures.first { throw failure.error }
            return ExitCode.success
        })

    static let deleteRecords = verb(
        "delete-records", summary: "Delete every record a query matches; a dry run unless --dry-run false.",
        discussion: "As cktool, --dry-run defaults to true: ck prints 'Dry run. Found N matching records to delete.' and deletes nothing. With --dry-run false the matches are deleted in requests of at most 200 (CloudKit's limit per request) and ck prints 'Deleted N records.'; it asks first on a terminal, and elsewhere needs -y. A record changed since it was listed is refused, not deleted.",
        required: [containerID, environment, databaseType],
        optional: [zoneName, queriedType, filters,
                   OptionSpec("dry-run", value: "true|false", help: "Only count the matches (default: true).", choices: ["true", "false"]),
                   yes, teamID, token],
        run: { inv in
            let request = try query(inv)
            try target(inv)
            let db = try inv.database()
            let matches = try db.allMatches(request, zone: inv.zone)
            if inv.parsed.value("dry-run") != "false" {
                inv.line("Dry run. Found \(SyncCommand.plural(matches.count, "matching record")) to delete.")
                return ExitCode.success
            }
            if !matches.isEmpty, try !inv.confirmDestructive("Delete \(SyncCommand.plural(matches.count, "matching record"))?") {
                inv.note("nothing deleted")
                return ExitCode.failure
            }
            RecordSaveCommand.noteRequests(matches.count, inv: inv)
            var deleted = 0
            var failures: [CKError.ItemFailure] = []
            try db.deleteListed(matches, zone: inv.zone) { result in
                for case .deleted in result.results { deleted += 1 }
                failures += result.failures
            }
            inv.line("Deleted \(SyncCommand.plural(deleted, "record")).")
            if let e = RecordCommand.failure(failures, total: matches.count, verb: "delete") { throw e }
            return ExitCode.success
        })

    /// The query of --record-type and --filters (CloudKit queries one type at a time, so the type is needed).
    static func query(_ inv: Invocation) throws -> QueryRequest {
        guard let type = inv.parsed.value(recordType.long) else {
            throw UsageError("missing expected argument '--record-type <record-type>' (CloudKit queries one record type at a time)",
                             command: inv.command.path)
        }
        var request = QueryRequest(recordType: type)
        for f in inv.parsed.all(filters.long) { request.filters.append(try QueryFilter.cktool(f)) }
        return request
    }

    /// `--sort-by "field ASC|DESC"` (ASC when no direction is given).
    static func sortBy(_ text: String, _ inv: Invocation) throws -> QuerySort {
        let parts = text.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let field = parts.first, parts.count <= 2 else {
            throw UsageError("--sort-by takes \"FIELD ASC\" or \"FIELD DESC\", got '\(text)'", command: inv.command.path)
        }
        switch parts.count == 2 ? parts[1].uppercased() : "ASC" {
        case "ASC": return QuerySort(field).given(as: "--sort-by '\(text)'")
        case "DESC": return QuerySort(field, ascending: false).given(as: "--sort-by '\(text)'")
        default: throw UsageError("--sort-by direction is ASC or DESC, got '\(parts[1])'", command: inv.command.path)
        }
    }
}
