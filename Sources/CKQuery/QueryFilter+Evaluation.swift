import Foundation
import CKModel

/// A record's value for a filter or sort field: a user field, or a system field as a comparable value.
package func queryValue(of record: Record, field: String) -> QueryValue? {
    switch field {
    case "___recordID": return .string(record.recordName)
    case "___createTime": return .date(record.created.timestamp)
    case "___modTime": return .date(record.modified.timestamp)
    case "___createdBy": return .string(record.created.userRecordName)
    case "___modifiedBy": return .string(record.modified.userRecordName)
    // The server can't read an encrypted value, so no filter or sort sees it.
    default: return record.fields[field].flatMap { $0.isEncrypted ? nil : QueryValue($0) }
    }
}

extension QueryValue {
    /// Equality as CloudKit queries use it: strings case-insensitively, numbers numerically, references by name.
    package func queryEquals(_ other: QueryValue) -> Bool {
        switch (self, other) {
        case (.string(let a), .string(let b)): return a.compare(b, options: .caseInsensitive) == .orderedSame
        case (.reference(let a), .reference(let b)): return a.recordName == b.recordName
        case (.reference(let a), .string(let b)), (.string(let b), .reference(let a)): return a.recordName == b
        default:
            if let a = numeric, let b = other.numeric { return a == b }
            return self == other
        }
    }

    package var numeric: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// Ordering for range filters and sorting: numbers, dates, strings by bytes. nil when not comparable.
    package func queryCompare(_ other: QueryValue) -> ComparisonResult? {
        if let a = numeric, let b = other.numeric { return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame) }
        switch (self, other) {
        case (.date(let a), .date(let b)): return a < b ? .orderedAscending : (a > b ? .orderedDescending : .orderedSame)
        case (.string(let a), .string(let b)):
            if a == b { return .orderedSame }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? .orderedAscending : .orderedDescending
        default: return nil
        }
    }
}

/// Great-circle distance in metres (haversine, mean Earth radius).
package func distanceMetres(_ a: Location, _ b: Location) -> Double {
    let r = 6_371_008.8
    let rad = Double.pi / 180
    let dLat = (b.latitude - a.latitude) * rad, dLon = (b.longitude - a.longitude) * rad
    let h = sin(dLat / 2) * sin(dLat / 2) + cos(a.latitude * rad) * cos(b.latitude * rad) * sin(dLon / 2) * sin(dLon / 2)
    return 2 * r * asin(min(1, sqrt(h)))
}

extension QueryFilter {
    /// Whether a record matches. A record without the field matches no filter on it, negative ones included.
    package func matches(_ record: Record, searchableFields: [String]) -> Bool {
        if comparator == .CONTAINS_ALL_TOKENS || comparator == .CONTAINS_ANY_TOKENS {
            guard case .string(let text) = value else { return false }
            // Each wanted token is ticked off as the record's tokens go by, compared as bytes; reading stops once
            // the answer is known.
            let want = Tokenizer.tokens(text).map { Array($0.utf8) }
            var found = [Bool](repeating: false, count: want.count)
            var missing = want.count
            let all = comparator == .CONTAINS_ALL_TOKENS
            func see(_ token: UnsafeBufferPointer<UInt8>) -> Bool {
                for (i, w) in want.enumerated() where !found[i] && w.count == token.count {
                    if w.withUnsafeBufferPointer({ $0.elementsEqual(token) }) {
                        found[i] = true
                        missing -= 1
                    }
                }
                return all ? missing > 0 : missing == want.count
            }
            for f in searchableFields where all ? missing > 0 : missing == want.count {
                switch record.fields[f] {
                case .string(let s)?: Tokenizer.forEachTokenBytes(s, see)
                case .list(.string, let items)?:
                    for case .string(let s) in items { Tokenizer.forEachTokenBytes(s, see) }
                default: break
                }
            }
            return all ? missing == 0 : missing < want.count
        }
        guard let actual = queryValue(of: record, field: field) else { return false }
        let members: [QueryValue] = { if case .list(let items) = actual { return items }; return [] }()
        let wanted: [QueryValue] = { if case .list(let items) = value { return items }; return [value] }()
        func prefix(_ v: QueryValue) -> Bool {
            guard case .string(let s) = v, case .string(let p) = value else { return false }
            return s.hasPrefix(p)
        }
        switch comparator {
        case .EQUALS: return actual.queryEquals(value)
        case .NOT_EQUALS: return !actual.queryEquals(value)
        case .LESS_THAN: return actual.queryCompare(value) == .orderedAscending
        case .LESS_THAN_OR_EQUALS: return [.orderedAscending, .orderedSame].contains(actual.queryCompare(value))
        case .GREATER_THAN: return actual.queryCompare(value) == .orderedDescending
        case .GREATER_THAN_OR_EQUALS: return [.orderedDescending, .orderedSame].contains(actual.queryCompare(value))
        case .IN: return wanted.contains { actual.queryEquals($0) }
        case .NOT_IN: return !wanted.contains { actual.queryEquals($0) }
        case .LIST_CONTAINS: return members.contains { $0.queryEquals(value) }
        case .NOT_LIST_CONTAINS: return !members.contains { $0.queryEquals(value) }
        case .LIST_CONTAINS_ANY: return wanted.contains { w in members.contains { $0.queryEquals(w) } }
        case .NOT_LIST_CONTAINS_ANY: return !wanted.contains { w in members.contains { $0.queryEquals(w) } }
        case .LIST_CONTAINS_ALL: return wanted.allSatisfy { w in members.contains { $0.queryEquals(w) } }
        case .NOT_LIST_CONTAINS_ALL: return !wanted.allSatisfy { w in members.contains { $0.queryEquals(w) } }
        case .BEGINS_WITH: return prefix(actual)
        case .NOT_BEGINS_WITH: return !prefix(actual)
        case .LIST_MEMBER_BEGINS_WITH: return members.contains(where: prefix)
        case .NOT_LIST_MEMBER_BEGINS_WITH: return !members.contains(where: prefix)
        case .NEAR:
            guard case .location(let here) = actual, case .location(let centre) = value, let d = distance else { return false }
            return distanceMetres(here, centre) <= d
        case .CONTAINS_ALL_TOKENS, .CONTAINS_ANY_TOKENS: return false
        }
    }
}
