import CKModel

/// One filter of a query, in the Web Services `filterBy` model that every input form maps onto.
public struct QueryFilter: Equatable, Sendable {
    /// The comparators of CloudKit Web Services (plus CloudKit JS's LIST_CONTAINS_ANY).
    public enum Comparator: String, CaseIterable, Sendable {
        case EQUALS, NOT_EQUALS, LESS_THAN, LESS_THAN_OR_EQUALS, GREATER_THAN, GREATER_THAN_OR_EQUALS, NEAR
        case CONTAINS_ALL_TOKENS, CONTAINS_ANY_TOKENS, IN, NOT_IN, LIST_CONTAINS, NOT_LIST_CONTAINS
        case LIST_CONTAINS_ANY, NOT_LIST_CONTAINS_ANY, BEGINS_WITH, NOT_BEGINS_WITH
        case LIST_MEMBER_BEGINS_WITH, NOT_LIST_MEMBER_BEGINS_WITH, LIST_CONTAINS_ALL, NOT_LIST_CONTAINS_ALL
    }

    /// The field: a user field name, a system index name (`___recordID`, `___createTime`, …), or `self` for tokens.
    public var field: String
    /// The name as the user wrote it (`recordName`, `creationDate`, `createdTimestamp`), for messages.
    public var displayName: String
    public var comparator: Comparator
    public var value: QueryValue
    /// NEAR: radius in metres.
    public var distance: Double?
    /// 1-based column in the predicate text, when the filter came from one.
    public var column: Int?

    public init(field: String, displayName: String? = nil, comparator: Comparator, value: QueryValue,
                distance: Double? = nil, column: Int? = nil) {
        self.field = field
        self.displayName = displayName ?? field
        self.comparator = comparator
        self.value = value
        self.distance = distance
        self.column = column
    }

    /// System fields by the names predicates, Web Services and the schema use, mapped to their index names.
    public static let systemFieldNames: [String: String] = [
        "recordName": "___recordID", "recordID": "___recordID", "___recordID": "___recordID", "___recordId": "___recordID",
        "creationDate": "___createTime", "createdTimestamp": "___createTime", "___createTime": "___createTime",
        "modificationDate": "___modTime", "modifiedTimestamp": "___modTime", "___modTime": "___modTime",
        "creatorUserRecordID": "___createdBy", "createdUserRecordName": "___createdBy", "___createdBy": "___createdBy",
        "lastModifiedUserRecordID": "___modifiedBy", "modifiedUserRecordName": "___modifiedBy", "___modifiedBy": "___modifiedBy",
    ]
}
