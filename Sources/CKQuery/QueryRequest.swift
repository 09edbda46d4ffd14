import CKModel

/// How results are ordered: by a field, or by distance from a location.
public struct QuerySort: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        case field(String, ascending: Bool)
        case distance(field: String, from: Location)
    }
    public var kind: Kind
    /// Where the sort was given (`--sort created`, `sortBy[0]`), for errors about it; not part of equality.
    public var source: String?

    public init(_ field: String, ascending: Bool = true) { kind = .field(field, ascending: ascending) }
    public init(distanceOf field: String, from: Location) { kind = .distance(field: field, from: from) }

    /// This sort, saying where it was given.
    public func given(as source: String) -> QuerySort {
        var s = self
        s.source = source
        return s
    }

    /// Two sorts are the same when they sort the same way, wherever they were given.
    public static func == (a: QuerySort, b: QuerySort) -> Bool { a.kind == b.kind }
}

/// A query: a record type, a predicate (NSPredicate format) with its arguments, sorting and paging.
public struct QueryRequest: Sendable {
    public var recordType: String
    /// NSPredicate format string; nil or empty means TRUEPREDICATE.
    public var predicate: String?
    /// Values for `%@`, `%K`, `%d`, `%f`, in order (typed like field values; see QueryValue.argument).
    public var arguments: [String]
    /// Filters given as Web Services `filterBy` (ANDed with the predicate).
    public var filters: [QueryFilter]
    public var sort: [QuerySort]
    /// Records per page, at most 200 (CloudKit's limit); nil = 200.
    public var limit: Int?
    /// A cursor from an earlier page of the same query.
    public var cursor: String?
    /// Search every zone of the database instead of one.
    public var zoneWide: Bool
    /// Fields to return (nil = all).
    public var desiredKeys: [String]?

    public init(recordType: String, predicate: String? = nil, arguments: [String] = [], filters: [QueryFilter] = [],
                sort: [QuerySort] = [], limit: Int? = nil, cursor: String? = nil, zoneWide: Bool = false,
                desiredKeys: [String]? = nil) {
        self.recordType = recordType
        self.predicate = predicate
        self.arguments = arguments
        self.filters = filters
        self.sort = sort
        self.limit = limit
        self.cursor = cursor
        self.zoneWide = zoneWide
        self.desiredKeys = desiredKeys
    }
}

/// One page of results.
public struct QueryResult: Sendable {
    public var records: [Record]
    /// Present when more records match: pass it back as `QueryRequest.cursor`.
    public var cursor: String?

    package init(records: [Record], cursor: String?) {
        self.records = records
        self.cursor = cursor
    }
}
