import Foundation
import CKModel
import CKSchema

/// A query checked against CloudKit's rules: its filters (ANDed), sort, and the indexes it needs.
public struct QueryPlan: Sendable {
    public var recordType: String
    public var filters: [QueryFilter]
    /// FALSEPREDICATE (or NOT TRUEPREDICATE): nothing matches.
    public var matchesNothing: Bool
    public var sort: [QuerySort]
    /// Each index the query needs, with the field it is for: `___recordID QUERYABLE`, `title SORTABLE`, …
    public var requiredIndexes: [(field: String, index: String)]

    package init(recordType: String, filters: [QueryFilter], matchesNothing: Bool, sort: [QuerySort],
                 requiredIndexes: [(field: String, index: String)]) {
        self.recordType = recordType
        self.filters = filters
        self.matchesNothing = matchesNothing
        self.sort = sort
        self.requiredIndexes = requiredIndexes
    }
}

/// Turns a parsed predicate and filters into a plan, refusing what CloudKit refuses.
package struct QueryCompiler {
    package let recordType: String
    package let type: RecordTypeSchema
    package let environment: Environment
    package let predicateText: String
    package let now: Int64
    package var filters: [QueryFilter] = []
    package var matchesNothing = false

    package init(recordType: String, schema: Schema, environment: Environment, predicateText: String, now: Int64) throws(CKError) {
        try Names.validateRecordType(recordType)
        guard let t = schema.recordTypes[recordType] else {
            if recordType == "Users" {
                throw CKError.invalid("Users records can't be queried", hint: "CloudKit reserves the Users type; fetch a user's record by name instead")
            }
            // CloudKit answers an unknown type with unknownItem ("Did not find record type: …"), not invalidArguments.
            let close = Names.closest(to: recordType, among: Array(schema.recordTypes.keys)).map { "did you mean '\($0)'? Otherwise " } ?? ""
            throw CKError(.unknownItem, "Did not find record type: \(recordType)",
                          hint: close + (environment == .production
                              ? "the production schema has no type '\(recordType)'; deploy it from development with 'ck schema deploy'"
                              : "save a record of that type first, or import a schema that defines it ('ck schema show' lists types)"))
        }
        self.recordType = recordType
        self.type = t
        self.environment = environment
        self.predicateText = predicateText
        self.now = now
    }

    package func fail(_ column: Int?, _ message: String, hint: String? = nil) -> CKError {
        // Columns are 1-based: 0 is what checks outside the predicate (sorts, filters) pass, and names no column.
        let column = column == 0 ? nil : column
        var details: [String: JSON] = [:]
        if let column { details["column"] = .int(Int64(column)); details["predicate"] = .string(predicateText) }
        return CKError(.invalidArguments, (column.map { "column \($0): " } ?? "") + message, hint: hint, details: details)
    }

    // MARK: Fields

    /// What a key names: a user field, a system field, or token search.
    package enum Target {
        case user(String, FieldSchema)
        case system(String, FieldType)
    }

    package func resolve(_ key: String, column: Int) throws(CKError) -> Target {
        if let sys = QueryFilter.systemFieldNames[key], let t = RecordTypeSchema.systemFields[sys] {
            return .system(sys, t)
        }
        if key.hasPrefix("___") {
            throw fail(column, "'\(key)' is not a system field CloudKit queries accept",
                       hint: "system fields are recordName, recordID, creationDate, modificationDate, creatorUserRecordID, lastModifiedUserRecordID")
        }
        guard let f = type.fields[key] else {
            throw fail(column, "Did not find field: '\(key)' in type: '\(recordType)'",
                       hint: "fields of \(recordType): " + type.fields.keys.filter { !$0.hasPrefix("___") }.sorted().joined(separator: ", "))
        }
        if f.encrypted { throw QueryCompiler.encryptedField(key, schema: f, column: column, compiler: self) }
        return .user(key, f)
    }

    package static func fieldName(_ t: Target) -> String {
        switch t { case .user(let n, _), .system(let n, _): return n }
    }

    package static func fieldType(_ t: Target) -> FieldType {
        switch t { case .user(_, let f): return f.type; case .system(_, let ft): return ft }
    }

    // MARK: Values

    /// The constant an expression denotes; keys and distances are not constants.
    package func constant(_ e: PredicateExpression) throws(CKError) -> QueryValue {
        switch e {
        case .value(let v, _), .argument(_, let v, _): return v
        case .now: return .date(now)
        case .aggregate(let items, _):
            var out: [QueryValue] = []
            for i in items { out.append(try constant(i)) }
            return .list(out)
        case .cast(let inner, let type, let c):
            guard type == "NSDate" else { throw fail(c, "CAST to \"\(type)\" is not supported", hint: "CAST(…, \"NSDate\") makes a date") }
            switch try constant(inner) {
            case .date(let d): return .date(d)
            case .string(let s):
                guard let ms = ISO8601.parse(s) else { throw fail(c, "'\(s)' is not an ISO 8601 date") }
                return .date(ms)
            case .int(let i): return try castDate(Double(i), c)
            case .double(let d): return try castDate(d, c)
            default: throw fail(c, "CAST(…, \"NSDate\") takes a date string or seconds since 2001-01-01")
            }
        case .key(let k, let c):
            throw fail(c, "'\(k)' is a key path, not a value", hint: "quote a string: '\(k)'")
        case .distance(_, _, let c):
            throw fail(c, "distanceToLocation:fromLocation: can only be compared with a radius")
        }
    }

    /// Seconds since 2001-01-01 (NSDate's reference date) as a date, if within the years 0001 to 9999.
    package func castDate(_ seconds: Double, _ c: Int) throws(CKError) -> QueryValue {
        let ms = ((seconds + 978_307_200) * 1000).rounded()
        guard ms.isFinite, Double(ISO8601.validRange.lowerBound) <= ms, ms <= Double(ISO8601.validRange.upperBound) else {
            throw fail(c, "CAST(\(seconds), \"NSDate\") is outside the years 0001 to 9999")
        }
        return .date(Int64(ms))
    }

    /// Checks (and converts) a constant for a field of type `t`; `element` checks list members.
    package func typed(_ v: QueryValue, for target: Target, element: Bool, column: Int) throws(CKError) -> QueryValue {
        let ft = QueryCompiler.fieldType(target)
        let base = ft.base
        let name = QueryCompiler.fieldName(target)
        let wrong = fail(column, "value of type \(v.typeName) doesn't match field '\(name)' of type \(element ? FieldType(base).wsName : ft.wsName)",
                         hint: QueryCompiler.typeHint(base))
        if case .system(let sys, _) = target, sys == "___recordID" || sys == "___createdBy" || sys == "___modifiedBy" {
            switch v {
            case .string(let s): return .string(s)
            case .reference(let r): return .string(r.recordName)
            default: throw wrong
            }
        }
        switch (base, v) {
        case (.string, .string): return v
        case (.int64, .int), (.int64, .double), (.double, .int), (.double, .double): return v
        case (.int64, .bool(let b)), (.double, .bool(let b)): return .int(b ? 1 : 0)
        case (.timestamp, .date): return v
        case (.reference, .reference): return v
        case (.bytes, .bytes): return v
        default: throw wrong
        }
    }

    /// Types an expression's constant for a field; an untyped `%@` argument that doesn't fit is read
    /// again as the field's type, as a field value would be.
    package func typedConstant(_ e: PredicateExpression, for target: Target, element: Bool) throws(CKError) -> QueryValue {
        let v = try constant(e)
        do throws(CKError) {
            return try typed(v, for: target, element: element, column: e.column)
        } catch {
            guard case .argument(let raw, _, _) = e, !QueryCompiler.hasTypePrefix(raw) else { throw error }
            let ft = QueryCompiler.fieldType(target)
            var parser = ValueParser()
            // An argument `now` is the query's now: the store's clock, as now() in the predicate.
            let now = self.now
            parser.now = { now }
            guard let retyped = try? parser.parse(raw, as: FieldType(ft.base), path: "argument") else { throw error }
            return try typed(QueryValue(retyped), for: target, element: element, column: e.column)
        }
    }

    package static func hasTypePrefix(_ raw: String) -> Bool {
        guard let colon = raw.firstIndex(of: ":") else { return raw.hasPrefix("[") }
        return FieldType(cliName: String(raw[..<colon])) != nil
    }

    package static func typeHint(_ base: FieldType.Base) -> String {
        switch base {
        case .timestamp: return "compare dates with a date argument (--arg 2026-01-01T00:00:00Z), CAST('2026-01-01T00:00:00Z', \"NSDate\") or now()"
        case .reference: return "compare references with --arg ref:<recordName>"
        case .location: return "locations are tested with distanceToLocation:fromLocation:(field, %@) < metres"
        case .bytes: return "compare bytes with --arg bytes:<base64>"
        case .string: return "quote strings: 'text'"
        default: return "use a number"
        }
    }

    // MARK: Predicate

    package mutating func add(_ node: PredicateNode, negated: Bool) throws(CKError) {
        switch node {
        case .constant(let b, _):
            if b == negated { matchesNothing = true }
        case .and(let children, let c):
            if negated {
                throw fail(c, "NOT can't be applied to an AND of conditions",
                           hint: "negate each condition instead; CloudKit supports only AND, so NOT (a AND b) can't be expressed")
            }
            for child in children { try add(child, negated: false) }
        case .not(let child, _):
            try add(child, negated: !negated)
        case .comparison(let cmp):
            try add(cmp, negated: negated)
        }
    }

    package static func mirrored(_ op: PredicateComparison.Operator) -> PredicateComparison.Operator {
        switch op {
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return op
        }
    }

    package mutating func add(_ input: PredicateComparison, negated: Bool) throws(CKError) {
        var cmp = input
        // `5 < count` reads as `count > 5`.
        let keyLike: (PredicateExpression) -> Bool = { if case .key = $0 { return true }; if case .distance = $0 { return true }; return false }
        if !keyLike(cmp.lhs), keyLike(cmp.rhs), [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual].contains(cmp.op) {
            swap(&cmp.lhs, &cmp.rhs)
            cmp.op = QueryCompiler.mirrored(cmp.op)
        }
        let c = cmp.column

        // Token search: self CONTAINS 'words' / allTokens TOKENMATCHES[cdl] 'words'.
        if case .key(let k, _) = cmp.lhs, (k.lowercased() == "self" && cmp.op == .contains) || cmp.op == .tokenMatches {
            if cmp.op == .tokenMatches && k != "allTokens" && k.lowercased() != "self" {
                throw fail(c, "TOKENMATCHES applies to allTokens, not '\(k)'", hint: "write self CONTAINS 'word'")
            }
            if negated { throw fail(c, "NOT can't be applied to a token search", hint: "CloudKit refuses NOT with self CONTAINS") }
            if cmp.any { throw fail(c, "ANY can't be applied to a token search") }
            guard case .string(let text) = try constant(cmp.rhs) else {
                throw fail(cmp.rhs.column, "token search takes a string", hint: "self CONTAINS 'word'")
            }
            if Tokenizer.tokens(text).isEmpty {
                throw fail(cmp.rhs.column, "'\(text)' has no searchable words (stop words and punctuation are ignored)")
            }
            filters.append(QueryFilter(field: "self", displayName: "self", comparator: .CONTAINS_ALL_TOKENS, value: .string(text), column: c))
            return
        }
        if case .key(let k, let kc) = cmp.lhs, k.lowercased() == "self" {
            throw fail(kc, "self can only be used with CONTAINS (token search)", hint: "self CONTAINS 'word'")
        }

        // Radius test: distanceToLocation:fromLocation:(field, location) < metres.
        if case .distance(let key, let from, let dc) = cmp.lhs {
            if negated { throw fail(dc, "NOT can't be applied to distanceToLocation:fromLocation:", hint: "CloudKit tests only inside a circle") }
            guard cmp.op == .less || cmp.op == .lessOrEqual else {
                throw fail(c, "distanceToLocation:fromLocation: must test inside a circle (< or <=), not \(cmp.op.rawValue)",
                           hint: "CloudKit can only find records within a radius")
            }
            let target = try resolve(key, column: dc + 32)
            guard QueryCompiler.fieldType(target) == .location else {
                throw fail(dc, "'\(key)' is not a LOCATION field", hint: QueryCompiler.typeHint(.location))
            }
            guard case .location(let loc) = try constant(from) else {
                throw fail(from.column, "distanceToLocation:fromLocation: needs a location", hint: "pass --arg location:37.33,-122.03 for %@")
            }
            let radius: Double
            switch try constant(cmp.rhs) {
            case .int(let i): radius = Double(i)
            case .double(let d): radius = d
            default: throw fail(cmp.rhs.column, "the radius must be a number of metres")
            }
            filters.append(QueryFilter(field: key, displayName: key, comparator: .NEAR, value: .location(loc), distance: radius, column: c))
            return
        }
        if case .distance(_, _, let dc) = cmp.rhs { throw fail(dc, "distanceToLocation:fromLocation: belongs on the left of < radius") }

        // `'x' IN tags`: list membership with the list on the right.
        if cmp.op == .in, case .key(let key, let kc) = cmp.rhs {
            let target = try resolve(key, column: kc)
            guard QueryCompiler.fieldType(target).isList else {
                throw fail(c, "'\(key)' is not a list field; value IN field tests list membership",
                           hint: "for a string field use BEGINSWITH, or self CONTAINS 'word'")
            }
            let v = try typedConstant(cmp.lhs, for: target, element: true)
            filters.append(QueryFilter(field: QueryCompiler.fieldName(target), displayName: key,
                                       comparator: negated ? .NOT_LIST_CONTAINS : .LIST_CONTAINS, value: v, column: c))
            return
        }

        guard case .key(let key, let kc) = cmp.lhs else {
            throw fail(cmp.lhs.column, "the left side of a comparison must be a field name")
        }
        let target = try resolve(key, column: kc)
        let ft = QueryCompiler.fieldType(target)
        let field = QueryCompiler.fieldName(target)
        func add(_ comparator: QueryFilter.Comparator, _ value: QueryValue) {
            filters.append(QueryFilter(field: field, displayName: key, comparator: comparator, value: value, column: c))
        }
        if ft.base == .asset { throw fail(kc, "ASSET fields can't be queried") }
        if ft.base == .location && !ft.isList {
            throw fail(c, "a LOCATION field is tested with distanceToLocation:fromLocation:", hint: QueryCompiler.typeHint(.location))
        }

        if ft.isList {
            switch cmp.op {
            case .contains:
                if case .aggregate = cmp.rhs {
                    throw fail(cmp.rhs.column, "CONTAINS takes one value", hint: "ANY \(key) IN {a, b} matches any of several values")
                }
                add(negated ? .NOT_LIST_CONTAINS : .LIST_CONTAINS, try typedConstant(cmp.rhs, for: target, element: true))
            case .equal where cmp.any:
                add(negated ? .NOT_LIST_CONTAINS : .LIST_CONTAINS, try typedConstant(cmp.rhs, for: target, element: true))
            case .in where cmp.any:
                add(negated ? .NOT_LIST_CONTAINS_ANY : .LIST_CONTAINS_ANY, try typedList(cmp.rhs, target, element: true))
            case .beginsWith where cmp.any:
                guard ft.base == .string else { throw fail(c, "BEGINSWITH needs a string field, not \(ft.wsName)") }
                add(negated ? .NOT_LIST_MEMBER_BEGINS_WITH : .LIST_MEMBER_BEGINS_WITH, try typedConstant(cmp.rhs, for: target, element: true))
            default:
                throw fail(c, "'\(key)' is a list (\(ft.wsName)); \(cmp.any ? "ANY \(key) \(cmp.op.rawValue)" : cmp.op.rawValue) isn't a list test",
                           hint: "test membership with \(key) CONTAINS value, value IN \(key), ANY \(key) == value or ANY \(key) IN {a, b}")
            }
            return
        }
        if cmp.any { throw fail(kc, "ANY applies to list fields; '\(key)' is \(ft.wsName)") }

        switch cmp.op {
        case .contains:
            throw fail(c, "CONTAINS on the \(ft.wsName) field '\(key)' is not supported: CONTAINS tests list membership",
                       hint: "use BEGINSWITH for a prefix, or self CONTAINS 'word' for a word anywhere in the record's text")
        case .tokenMatches:
            throw fail(c, "TOKENMATCHES applies to allTokens")
        case .beginsWith:
            guard ft.base == .string else { throw fail(c, "BEGINSWITH needs a STRING field, not \(ft.wsName)") }
            add(negated ? .NOT_BEGINS_WITH : .BEGINS_WITH, try typedConstant(cmp.rhs, for: target, element: false))
        case .in:
            add(negated ? .NOT_IN : .IN, try typedList(cmp.rhs, target, element: false))
        case .between:
            if negated { throw fail(c, "NOT can't be applied to BETWEEN", hint: "write field < low and field > high as separate queries") }
            guard case .list(let bounds) = try constant(cmp.rhs), bounds.count == 2 else {
                throw fail(cmp.rhs.column, "BETWEEN takes two bounds: {low, high}")
            }
            try requireOrdered(ft, key: key, column: c)
            add(.GREATER_THAN_OR_EQUALS, try typed(bounds[0], for: target, element: false, column: cmp.rhs.column))
            add(.LESS_THAN_OR_EQUALS, try typed(bounds[1], for: target, element: false, column: cmp.rhs.column))
        case .equal, .notEqual:
            if case .aggregate = cmp.rhs { throw fail(cmp.rhs.column, "compare with one value", hint: "\(key) IN {a, b} matches any of several") }
            let v = try typedConstant(cmp.rhs, for: target, element: false)
            add((cmp.op == .equal) != negated ? .EQUALS : .NOT_EQUALS, v)
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            try requireOrdered(ft, key: key, column: c)
            let v = try typedConstant(cmp.rhs, for: target, element: false)
            let op: QueryFilter.Comparator
            switch (cmp.op, negated) {
            case (.less, false), (.greaterOrEqual, true): op = .LESS_THAN
            case (.lessOrEqual, false), (.greater, true): op = .LESS_THAN_OR_EQUALS
            case (.greater, false), (.lessOrEqual, true): op = .GREATER_THAN
            default: op = .GREATER_THAN_OR_EQUALS
            }
            add(op, v)
        }
    }

    package func requireOrdered(_ ft: FieldType, key: String, column: Int) throws(CKError) {
        if ft.base == .reference || ft.base == .bytes {
            throw fail(column, "\(ft.wsName) field '\(key)' can only be compared for equality")
        }
    }

    package func typedList(_ e: PredicateExpression, _ target: Target, element: Bool) throws(CKError) -> QueryValue {
        if case .aggregate(let items, _) = e {
            var out: [QueryValue] = []
            for i in items { out.append(try typedConstant(i, for: target, element: true)) }
            return .list(out)
        }
        let v = try constant(e)
        guard case .list(let items) = v else {
            throw fail(e.column, "IN takes a list: {a, b} or a list argument", hint: "--arg string[]:a,b or --arg '[\"a\",\"b\"]'")
        }
        var out: [QueryValue] = []
        for i in items { out.append(try typed(i, for: target, element: true, column: e.column)) }
        return .list(out)
    }
}
