import Foundation
import CKModel

/// Where a page ended: the last record's sort values, zone and name, and when the cursor was issued. Opaque to users.
package struct QueryCursor {
    package var fingerprint: String
    package var key: SortKey
    /// When the page that printed it was read (ms on the store's clock).
    package var issued: Int64

    package static let prefix = "ck1."
    /// How long a cursor continues its query, on the store's clock. CloudKit documents no lifetime for
    /// CKQueryOperation.Cursor or continuationMarker, only that they mark where a query stopped; ck picks one hour,
    /// long enough for any paging and short enough that an app meets the refusal it must handle (docs/cli.md).
    package static let lifetime: Int64 = 3_600_000

    package var encoded: String {
        let json = JSON.object(["q": .string(fingerprint), "k": key.json, "t": .int(issued)])
        return QueryCursor.prefix + Base64URL.encode(Array(json.serialized().utf8))
    }

    package init(fingerprint: String, key: SortKey, issued: Int64) {
        self.fingerprint = fingerprint
        self.key = key
        self.issued = issued
    }

    /// Reads a cursor, refusing one made for another query, zone or environment, or issued more than `lifetime`
    /// before `now` (the store's clock).
    package init(decoding text: String, expected fingerprint: String, now: Int64) throws(CKError) {
        let bad = CKError.invalid("invalid cursor: it was not made by ck, or it is damaged",
                                  hint: "pass the cursor printed by the previous page of the same query")
        guard text.hasPrefix(QueryCursor.prefix) else { throw bad }
        guard let bytes = Base64URL.decode(String(text.dropFirst(QueryCursor.prefix.count))), let json = try? JSON.parse(utf8: bytes),
              let q = json["q"]?.stringValue, let k = json["k"], let key = SortKey(json: k) else { throw bad }
        guard q == fingerprint else {
            throw CKError.invalid("this cursor belongs to another query, zone, database or environment",
                                  hint: "a cursor continues exactly the query that printed it; run the query again without --cursor")
        }
        // A cursor without its issue time was made by an older ck: it is as stale as an expired one.
        let issued = json["t"]?.int64Value
        guard let issued, now - issued <= QueryCursor.lifetime else {
            let when = issued.map { " (issued \(ISO8601.format(milliseconds: $0)), now \(ISO8601.format(milliseconds: now)) on the store's clock)" } ?? ""
            throw CKError.invalid("this cursor expired\(when): a query cursor continues its query for 1 hour; start the query again",
                                  hint: "run the query again without --cursor (or without continuationMarker) and page from the start")
        }
        self.init(fingerprint: q, key: key, issued: issued)
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
