import CKModel

extension QueryValue {
    /// The value as a predicate would write it, with its type: `"Hi"`, `3`, `2026-01-01T00:00:00.000Z`.
    public var literal: String {
        switch self {
        case .string(let s): return JSON.string(s).serialized()
        case .int(let i): return String(i)
        case .double(let d): return "\(d)"
        case .bool(let b): return b ? "YES" : "NO"
        case .date(let d): return ISO8601.format(milliseconds: d)
        case .reference(let r): return "ref:" + r.recordName + (r.zoneName.map { "@" + $0 } ?? "")
        case .location(let l): return "location:\(l.latitude),\(l.longitude)"
        case .bytes(let b): return "bytes(\(b.count))"
        case .list(let items): return "{" + items.map(\.literal).joined(separator: ", ") + "}"
        }
    }
}

extension PredicateExpression {
    /// The expression as text, constants with their types.
    public var text: String {
        switch self {
        case .key(let k, _): return k
        case .value(let v, _), .argument(_, let v, _): return "\(v.literal) (\(v.typeName))"
        case .aggregate(let items, _): return "{" + items.map(\.text).joined(separator: ", ") + "}"
        case .distance(let k, let from, _): return "distanceToLocation:fromLocation:(\(k), \(from.text))"
        case .now: return "now()"
        case .cast(let e, let t, _): return "CAST(\(e.text), \"\(t)\")"
        }
    }
}

extension PredicateNode {
    /// The parsed tree, one node per line, indented by depth.
    public func treeLines(indent: String = "") -> [String] {
        switch self {
        case .constant(let b, _): return [indent + (b ? "TRUEPREDICATE" : "FALSEPREDICATE")]
        case .and(let children, _): return [indent + "AND"] + children.flatMap { $0.treeLines(indent: indent + "  ") }
        case .not(let child, _): return [indent + "NOT"] + child.treeLines(indent: indent + "  ")
        case .comparison(let c):
            return [indent + (c.any ? "ANY " : "") + "\(c.lhs.text) \(c.op.rawValue) \(c.rhs.text)"]
        }
    }
}

extension QueryFilter {
    /// `count GREATER_THAN 2 (INT64)`.
    public var summary: String {
        var s = "\(displayName) \(comparator.rawValue) \(value.literal) (\(value.typeName))"
        if let d = distance { s += " within \(d) m" }
        return s
    }
}
