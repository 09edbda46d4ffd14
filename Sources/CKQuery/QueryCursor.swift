import Foundation
import CKModel

/// Where a page ended: the last record's sort values, zone and name. Opaque to users.
package struct QueryCursor {
    package var fingerprint: String
    package var key: SortKey

    package static let prefix = "ck1."

    package var encoded: String {
        let json = JSON.object(["q": .string(fingerprint), "k": key.json])
        return QueryCursor.prefix + Base64URL.encode(Array(json.serialized().utf8))
    }

    package init(fingerprint: String, key: SortKey) {
        self.fingerprint = fingerprint
        self.key = key
    }

    /// Reads a cursor, refusing one made for another query, zone or environment.
    package init(decoding text: String, expected fingerprint: String) throws(CKError) {
        let bad = CKError.invalid("invalid cursor: it was not made by ck, or it is damaged",
                                  hint: "pass the cursor printed by the previous page of the same query")
        guard text.hasPrefix(QueryCursor.prefix) else { throw bad }
        guard let bytes = Base64URL.decode(String(text.dropFirst(QueryCursor.prefix.count))), let json = try? JSON.parse(utf8: bytes),
              let q = json["q"]?.stringValue, let k = json["k"], let key = SortKey(json: k) else { throw bad }
        guard q == fingerprint else {
            throw CKError.invalid("this cursor belongs to another query, zone, database or environment",
                                  hint: "a cursor continues exactly the query that printed it; run the query again without --cursor")
        }
        self.init(fingerprint: q, key: key)
    }
}

/// A record's position in a query's order: its sort values, then zone and name to break ties.
package struct SortKey {
    package var values: [QueryValue?]
    package var zone: String
    package var name: String

    package var json: JSON {
        .object(["v": .array(values.map(SortKey.encode)), "z": .string(zone), "n": .string(name)])
    }

    package init(values: [QueryValue?], zone: String, name: String) {
        self.values = values
        self.zone = zone
        self.name = name
    }

    package init?(json: JSON) {
        guard let vs = json["v"]?.arrayValue, let z = json["z"]?.stringValue, let n = json["n"]?.stringValue else { return nil }
        var values: [QueryValue?] = []
        for v in vs {
            if v.isNull { values.append(nil); continue }
            if let s = v["s"]?.stringValue { values.append(.string(s)) }
            else if let d = v["d"]?.int64Value { values.append(.date(d)) }
            else if let x = v["x"]?.doubleValue { values.append(.double(x)) }
            else { return nil }
        }
        self.init(values: values, zone: z, name: n)
    }

    package static func encode(_ v: QueryValue?) -> JSON {
        switch v {
        case .string(let s)?: return .object(["s": .string(s)])
        case .date(let d)?: return .object(["d": .int(d)])
        case let v?: return v.numeric.map { .object(["x": .double($0)]) } ?? .null
        case nil: return .null
        }
    }

    /// Orders two keys under the descriptors' directions; missing values sort last either way. Ties go by
    /// zone and record name, in the direction of the first descriptor (so an index serves the order).
    package static func compare(_ a: SortKey, _ b: SortKey, ascending: [Bool]) -> ComparisonResult {
        for (i, asc) in ascending.enumerated() {
            let x = i < a.values.count ? a.values[i] : nil, y = i < b.values.count ? b.values[i] : nil
            switch (x, y) {
            case (nil, nil): continue
            case (nil, _): return .orderedDescending
            case (_, nil): return .orderedAscending
            case let (x?, y?):
                let c = x.queryCompare(y) ?? .orderedSame
                if c != .orderedSame { return asc ? c : (c == .orderedAscending ? .orderedDescending : .orderedAscending) }
            }
        }
        let up = ascending.first ?? true
        func directed(_ less: Bool) -> ComparisonResult { less == up ? .orderedAscending : .orderedDescending }
        if a.zone != b.zone { return directed(a.zone.utf8.lexicographicallyPrecedes(b.zone.utf8)) }
        if a.name != b.name { return directed(a.name.utf8.lexicographicallyPrecedes(b.name.utf8)) }
        return .orderedSame
    }
}
