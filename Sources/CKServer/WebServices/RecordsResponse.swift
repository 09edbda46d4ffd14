import CKModel

/// A records/lookup, records/modify or records/query response: what `-o json` and `-o jsonl` print for records,
/// and what an HTTP endpoint would answer.
///
/// Web Services puts a failed item's error dictionary into `records` beside the records; ck keeps `records` to
/// records and deletions and lists failures under `errors`, so a script counting `.records` counts records.
public struct RecordsResponse: Sendable {
    /// One entry of `records`: a record dictionary, or a deleted record's name, type and zone with `deleted: true`.
    public enum Item: Sendable {
        case record(Record)
        /// `cascade`: a DELETE_SELF reference to a deleted record removed it.
        case deleted(recordName: String, recordType: String, cascade: Bool)

        public var recordName: String {
            switch self {
            case .record(let r): return r.recordName
            case .deleted(let name, _, _): return name
            }
        }
    }

    public var records: [Item]
    public var errors: [RecordItemError]
    /// The query cursor (`continuationMarker`) when more results wait.
    public var continuationMarker: String?
    /// desiredKeys: only these user fields in record dictionaries (nil = all).
    public var keys: [String]?

    public init(records: [Item] = [], errors: [RecordItemError] = [], continuationMarker: String? = nil, keys: [String]? = nil) {
        self.records = records
        self.errors = errors
        self.continuationMarker = continuationMarker
        self.keys = keys
    }

    /// The response to a modify or lookup, in request order.
    public init(results: [RecordResult], keys: [String]? = nil) {
        self.init(keys: keys)
        for r in results {
            switch r {
            case .saved(let rec): records.append(.record(rec))
            case .deleted(let name, let type, let cascade): records.append(.deleted(recordName: name, recordType: type, cascade: cascade))
            case .failed(let name, let error): errors.append(RecordItemError(recordName: name, error: error))
            }
        }
    }

    /// The response to a query page.
    public init(query records: [Record], continuationMarker: String?, keys: [String]?) {
        self.init(records: records.map { .record($0) }, continuationMarker: continuationMarker, keys: keys)
    }

    /// One entry of `records` as a dictionary; with a database, asset values carry their `downloadURL`.
    public func json(_ item: Item, database: CKDatabase?) -> JSON {
        switch item {
        case .record(let r): return database?.responseJSON(r, keys: keys) ?? r.json(keys: keys)
        case .deleted(let name, let type, _):
            return .object(["recordName": .string(name), "recordType": .string(type), "deleted": .bool(true)])
        }
    }

    /// `{"records": […]}`, plus `errors` when an item failed and `continuationMarker` when more results wait.
    public func json(database: CKDatabase?) -> JSON {
        var o: [String: JSON] = ["records": .array(records.map { json($0, database: database) })]
        if !errors.isEmpty { o["errors"] = .array(errors.map(\.json)) }
        if let continuationMarker { o["continuationMarker"] = .string(continuationMarker) }
        return .object(o)
    }

    /// JSON Lines: one record dictionary per line. Failures are not lines: they are the error object on stderr.
    public func jsonLines(database: CKDatabase?) -> [JSON] {
        records.map { json($0, database: database) }
    }
}

/// A Web Services per-record error dictionary: `recordName`, `reason`, `serverErrorCode` (and ck's `ckErrorCode` and its number, `code`).
public struct RecordItemError: Sendable {
    public var recordName: String
    public var error: CKError

    public init(recordName: String, error: CKError) {
        self.recordName = recordName
        self.error = error
    }

    public var json: JSON {
        var o: [String: JSON] = ["recordName": .string(recordName), "serverErrorCode": .string(error.serverErrorCode),
                                 "reason": .string(error.reason), "ckErrorCode": .string(error.code.name),
                                 "code": .int(Int64(error.code.rawValue))]
        if let uuid = error.requestID { o["uuid"] = .string(uuid) }
        return .object(o)
    }
}
