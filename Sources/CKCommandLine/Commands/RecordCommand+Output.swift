import CKCore

extension RecordCommand {
    /// Records a save, fetch, delete or query answered, in request order: the Web Services response
    /// `{"records": [record | {"recordName", "recordType", "deleted": true}], "errors"?, "continuationMarker"?}`;
    /// jsonl one record dictionary a line; plain one line a record; names. For people: one block for a single
    /// record (unless `list`), a line a deletion when all are deletions, else a table of at most `page` rows (the
    /// caller says how many were left out). Failures print nowhere here: the command ends with them as its error.
    struct Records: CommandOutput {
        var response: RecordsResponse
        /// Where asset values' `downloadURL`s point (the command's database; records without assets don't use it).
        var database: CKDatabase?
        /// The terminal's width, which the table's last column is cut to.
        var width: Int?
        /// A list: several records or one, always a table for people.
        var list = false
        var page: Int? = nil

        init(_ response: RecordsResponse, database: CKDatabase?, width: Int?, list: Bool = false, page: Int? = nil) {
            self.response = response
            self.database = database
            self.width = width
            self.list = list
            self.page = page
        }

        /// The results of a save, fetch or delete.
        init(_ results: [RecordResult], keys: [String]? = nil, database: CKDatabase?, width: Int?, list: Bool = false, page: Int? = nil) {
            self.init(RecordsResponse(results: results, keys: keys), database: database, width: width, list: list, page: page)
        }

        var json: JSON {
            // A failed item's error dictionary carries the request's uuid, as a Web Services one does.
            var r = response
            r.errors = r.errors.map { RecordItemError(recordName: $0.recordName, error: $0.error.answering(CommandRequest.uuid)) }
            return r.json(database: database)
        }
        var jsonLines: [JSON] { response.jsonLines(database: database) }
        var plain: [String] {
            response.records.map { item in
                switch item {
                case .record(let r): return RecordText.plain(limited(r, response.keys))
                case .deleted(let name, let type, _): return RecordText.plainDeleted(name, type)
                }
            }
        }
        var names: [String] { response.records.map(\.recordName) }
        var notes: [String] { response.records.isEmpty && response.errors.isEmpty ? ["no records"] : [] }

        var table: String {
            let records = response.records
            if records.isEmpty { return "" }
            if !list, records.count == 1, case .record(let r)? = records.first {
                return RecordText.table(r, keys: response.keys) + "\n"
            }
            let deletions = records.compactMap { item -> String? in
                guard case .deleted(let name, let type, let cascade) = item else { return nil }
                return "Deleted \(type) \(name)" + (cascade ? " (DELETE_SELF reference to a deleted record)" : "")
            }
            if !list, deletions.count == records.count { return Self.text(deletions) }
            return rows
        }

        /// One row per record: name, type, change tag, zone (when they span zones), and the fields summarised.
        private var rows: String {
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
    }
}
