import CKModel

/// A constant in a predicate: a literal, or a `%@` argument bound when parsing.
public indirect enum QueryValue: Equatable, Sendable {
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)
    /// ms since 1970.
    case date(Int64)
    case reference(Reference)
    case location(Location)
    case bytes([UInt8])
    case list([QueryValue])

    /// A short name of the value's type for messages: `STRING`, `INT64`, `TIMESTAMP`, …
    public var typeName: String {
        switch self {
        case .string: return "STRING"
        case .int: return "INT64"
        case .double: return "DOUBLE"
        case .bool: return "BOOLEAN"
        case .date: return "TIMESTAMP"
        case .reference: return "REFERENCE"
        case .location: return "LOCATION"
        case .bytes: return "BYTES"
        case .list(let items): return "LIST<\(items.first?.typeName ?? "EMPTY")>"
        }
    }
}

/// One side of a comparison in a parsed predicate.
public indirect enum PredicateExpression: Equatable, Sendable {
    /// A field or system-field name (`title`, `creationDate`, `self`), written or bound with `%K`.
    case key(String, column: Int)
    /// A constant: literal or bound `%d` / `%f`.
    case value(QueryValue, column: Int)
    /// A `%@` argument: its text and the value inferred from it. The validator retypes an untyped
    /// argument by the field's type (`--arg 007` is the string "007" for a STRING field).
    case argument(String, QueryValue, column: Int)
    /// `{a, b, c}`.
    case aggregate([PredicateExpression], column: Int)
    /// `distanceToLocation:fromLocation:(key, location)`.
    case distance(key: String, from: PredicateExpression, column: Int)
    /// `now()` or `now`.
    case now(column: Int)
    /// `CAST(x, "NSDate")`.
    case cast(PredicateExpression, type: String, column: Int)

    /// 1-based column where the expression starts.
    public var column: Int {
        switch self {
        case .key(_, let c), .value(_, let c), .argument(_, _, let c), .aggregate(_, let c), .distance(_, _, let c), .now(let c),
             .cast(_, _, let c): return c
        }
    }
}

/// A comparison `lhs op rhs`, with an optional ANY/SOME modifier.
public struct PredicateComparison: Equatable, Sendable {
    public enum Operator: String, Sendable {
        case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case between = "BETWEEN", `in` = "IN", beginsWith = "BEGINSWITH", contains = "CONTAINS"
        /// `allTokens TOKENMATCHES[cdl] %@`, the older spelling of `self CONTAINS`.
        case tokenMatches = "TOKENMATCHES"
    }

    public var any: Bool
    public var lhs: PredicateExpression
    public var op: Operator
    public var rhs: PredicateExpression
    /// 1-based column of the operator.
    public var column: Int

    public init(any: Bool = false, lhs: PredicateExpression, op: Operator, rhs: PredicateExpression, column: Int) {
        self.any = any
        self.lhs = lhs
        self.op = op
        self.rhs = rhs
        self.column = column
    }
}

/// A parsed NSPredicate in CloudKit's subset (OR, ALL, LIKE, … are refused by the parser).
public indirect enum PredicateNode: Equatable, Sendable {
    /// TRUEPREDICATE or FALSEPREDICATE.
    case constant(Bool, column: Int)
    case and([PredicateNode], column: Int)
    case not(PredicateNode, column: Int)
    case comparison(PredicateComparison)

    /// 1-based column where the node starts.
    public var column: Int {
        switch self {
        case .constant(_, let c), .and(_, let c), .not(_, let c): return c
        case .comparison(let cmp): return cmp.lhs.column
        }
    }
}
