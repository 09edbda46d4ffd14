import Foundation
import CKModel

extension QueryFilter {
    /// Reads Web Services query JSON: a `{"filterBy", "sortBy"}` query (optionally inside `{"query": …}`),
    /// or a bare array of filter dictionaries. `label` names the input in messages.
    public static func webServices(_ json: JSON, label: String) throws(CKError) -> (filters: [QueryFilter], sort: [QuerySort], recordType: String?) {
        var query = json
        if let q = json["query"], case .object = q { query = q }
        var filterItems: [JSON] = []
        var sortItems: [JSON] = []
        var recordType: String? = nil
        switch query {
        case .array(let items): filterItems = items
        case .object(let o):
            for k in o.keys where !["filterBy", "sortBy", "recordType"].contains(k) {
                throw CKError.invalid("\(label): unknown key '\(k)' (a query has recordType, filterBy and sortBy)")
            }
            filterItems = o["filterBy"]?.arrayValue ?? []
            sortItems = o["sortBy"]?.arrayValue ?? []
            recordType = o["recordType"]?.stringValue
        default:
            throw CKError.invalid("\(label): expected {\"filterBy\": [...], \"sortBy\": [...]} or an array of filters")
        }
        var filters: [QueryFilter] = []
        for (i, f) in filterItems.enumerated() { filters.append(try filter(f, path: "\(label): filterBy[\(i)]")) }
        var sort: [QuerySort] = []
        for (i, s) in sortItems.enumerated() { sort.append(try sortDescriptor(s, path: "\(label): sortBy[\(i)]")) }
        return (filters, sort, recordType)
    }

    package static func fieldName(_ o: JSON, path: String) throws(CKError) -> String {
        if let f = o["fieldName"]?.stringValue { return f }
        if let s = o["systemFieldName"]?.stringValue {
            guard systemFieldNames[s] != nil else {
                throw CKError.invalid("\(path).systemFieldName: unknown system field '\(s)'",
                                      hint: "recordName, createdTimestamp, modifiedTimestamp, createdUserRecordName, modifiedUserRecordName")
            }
            return s
        }
        throw CKError.invalid("\(path): needs fieldName or systemFieldName")
    }

    package static func filter(_ f: JSON, path: String) throws(CKError) -> QueryFilter {
        guard case .object(let o) = f else { throw CKError.invalid("\(path): expected a filter object") }
        for k in o.keys where !["comparator", "fieldName", "systemFieldName", "fieldValue", "distance"].contains(k) {
            throw CKError.invalid("\(path): unknown key '\(k)' in a filter")
        }
        guard let c = o["comparator"]?.stringValue, let comparator = Comparator(rawValue: c) else {
            throw CKError.invalid("\(path).comparator: expected one of \(Comparator.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let tokens = comparator == .CONTAINS_ALL_TOKENS || comparator == .CONTAINS_ANY_TOKENS
        let name = tokens && o["fieldName"] == nil ? "self" : try fieldName(f, path: path)
        guard let fv = o["fieldValue"] else { throw CKError.invalid("\(path): needs fieldValue") }
        guard let v = try FieldValue.from(fieldJSON: fv, declared: nil, path: path + ".fieldValue") else {
            throw CKError.invalid("\(path).fieldValue: CloudKit can't compare with null")
        }
        return QueryFilter(field: name, comparator: comparator, value: QueryValue(v), distance: o["distance"]?.doubleValue)
    }

    package static func sortDescriptor(_ s: JSON, path: String) throws(CKError) -> QuerySort {
        guard case .object(let o) = s else { throw CKError.invalid("\(path): expected a sort object") }
        let name = try fieldName(s, path: path)
        if let rel = o["relativeLocation"] {
            guard case .location(let l)? = try FieldValue.from(fieldJSON: rel, declared: .location, path: path + ".relativeLocation") else {
                throw CKError.invalid("\(path).relativeLocation: expected a LOCATION")
            }
            return QuerySort(distanceOf: name, from: l).given(as: path)
        }
        return QuerySort(name, ascending: o["ascending"]?.boolValue ?? true).given(as: path)
    }

    /// Reads a cktool filter string: `FIELD OP VALUE`, e.g. `latteCost > 4.60`, `tags LIST_CONTAINS_ANY a,b`,
    /// `place NEAR 37.33,-122.03 1000`. Values are typed as cktool types them (double, int64, date, location,
    /// else string; `stringType:…` forces a type).
    public static func cktool(_ text: String) throws(CKError) -> QueryFilter {
        let parts = text.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 3 else {
            throw CKError.invalid("filter '\(text)': expected FIELD OPERATOR VALUE, e.g. \"latteCost > 4.60\"")
        }
        let ops: [String: Comparator] = ["==": .EQUALS, "=": .EQUALS, "!=": .NOT_EQUALS, "<": .LESS_THAN, "<=": .LESS_THAN_OR_EQUALS,
                                         ">": .GREATER_THAN, ">=": .GREATER_THAN_OR_EQUALS, "LIST_NOT_CONTAINS_ANY": .NOT_LIST_CONTAINS_ANY,
                                         "LIST_NOT_CONTAINS": .NOT_LIST_CONTAINS]
        guard let comparator = ops[parts[1]] ?? Comparator(rawValue: parts[1].uppercased()) else {
            throw CKError.invalid("filter '\(text)': unknown operator '\(parts[1])'",
                                  hint: "==, !=, <, <=, >, >=, NEAR, CONTAINS_ALL_TOKENS, CONTAINS_ANY_TOKENS, LIST_CONTAINS_ANY, LIST_NOT_CONTAINS_ANY")
        }
        var raw = parts[2]
        if raw.count >= 2, (raw.hasPrefix("\"") && raw.hasSuffix("\"")) || (raw.hasPrefix("'") && raw.hasSuffix("'")) {
            raw = String(raw.dropFirst().dropLast())
        }
        let field = parts[0]
        switch comparator {
        case .NEAR:
            let p = raw.split(separator: " ").map(String.init)
            guard p.count == 2, let radius = Double(p[1]) else {
                throw CKError.invalid("filter '\(text)': NEAR takes latitude,longitude and a radius in metres, e.g. place NEAR 37.33,-122.03 1000")
            }
            return QueryFilter(field: field, comparator: .NEAR, value: .location(try ValueParser.location(p[0], path: "filter '\(text)'")), distance: radius)
        case .CONTAINS_ALL_TOKENS, .CONTAINS_ANY_TOKENS:
            return QueryFilter(field: "self", displayName: field, comparator: comparator, value: .string(raw))
        case .IN, .NOT_IN, .LIST_CONTAINS_ANY, .NOT_LIST_CONTAINS_ANY, .LIST_CONTAINS_ALL, .NOT_LIST_CONTAINS_ALL:
            var items: [QueryValue] = []
            for item in ValueParser.split(raw, separator: ",") { items.append(try cktoolValue(item, text: text)) }
            return QueryFilter(field: field, comparator: comparator, value: .list(items))
        default:
            return QueryFilter(field: field, comparator: comparator, value: try cktoolValue(raw, text: text))
        }
    }

    package static func cktoolValue(_ raw: String, text: String) throws(CKError) -> QueryValue {
        var parser = ValueParser()
        if let colon = raw.firstIndex(of: ":"), let t = FieldType(name: String(raw[..<colon])) {
            return QueryValue(try parser.parse(String(raw[raw.index(after: colon)...]), as: t, path: "filter '\(text)'"))
        }
        let parts = raw.split(separator: ",")
        if parts.count == 2, Double(parts[0]) != nil, Double(parts[1]) != nil {
            return .location(try ValueParser.location(raw, path: "filter '\(text)'"))
        }
        return QueryValue(try parser.parse(raw, as: ValueParser.inferType(raw), path: "filter '\(text)'"))
    }
}
