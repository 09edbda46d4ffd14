import CKCore

extension RecordSaveCommand {
    /// The results of a save or a batch, printed as its requests become durable: jsonl, plain and name a request's
    /// results as they come; json one `RecordCommand.Records` document and a table once all are in (a batch's
    /// table shows at most `page` rows and ends with a summary line).
    struct Results: StreamedOutput {
        var keys: [String]?
        var database: CKDatabase
        var width: Int?
        /// A batch: a list of records for people, and a summary.
        var batch: Bool
        /// The rows a batch's table shows (nil: all).
        var page: Int?
        /// The results json and table print at the end.
        private var kept: [RecordResult] = []

        init(keys: [String]?, database: CKDatabase, width: Int?, batch: Bool, page: Int?) {
            self.keys = keys
            self.database = database
            self.width = width
            self.batch = batch
            self.page = page
        }

        private func records(_ results: [RecordResult], list: Bool = false) -> RecordCommand.Records {
            RecordCommand.Records(results, keys: keys, database: database, width: width, list: list, page: list ? page : nil)
        }

        mutating func add(_ results: [RecordResult], as format: OutputFormat) -> String {
            guard format != .json && format != .table else {
                kept += results
                return ""
            }
            return records(results).rendered(as: format).text
        }

        func end(as format: OutputFormat) -> Rendered {
            switch format {
            case .table where batch:
                let shown = records(kept, list: true).rendered(as: .table)
                return Rendered(shown.text + summary(kept, shown: page) + "\n", notes: shown.notes)
            case .table: return kept.isEmpty ? Rendered("") : records(kept).rendered(as: .table)
            case .json: return records(kept).rendered(as: .json)
            case .jsonl, .plain, .name: return Rendered("")
            }
        }
    }
}
