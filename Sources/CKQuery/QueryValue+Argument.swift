import Foundation
import CKModel

extension QueryValue {
    /// Types a `--arg` value as field values are typed: an explicit `type:` prefix (`timestamp:`, `ref:`,
    /// `location:`, `string:`, `int64:`, `double:`, `bytes:`, and lists such as `string[]:a,b`), a JSON array,
    /// else inferred: integer, double, ISO 8601 date, string.
    public static func argument(_ text: String, path: String) throws(CKError) -> QueryValue {
        if let colon = text.firstIndex(of: ":"), let type = FieldType(cliName: String(text[..<colon])) {
            let rest = String(text[text.index(after: colon)...])
            var parser = ValueParser()
            return QueryValue(try parser.parse(rest, as: type, path: path))
        }
        if text.hasPrefix("[") {
            let json: JSON
            do { json = try JSON.parse(text) } catch {
                throw CKError.invalid("\(path): list is not valid JSON at column \(error.column): \(error.message)")
            }
            guard case .array(let items) = json else { throw CKError.invalid("\(path): expected a JSON array") }
            var out: [QueryValue] = []
            for (i, item) in items.enumerated() {
                switch item {
                case .string(let s): out.append(try argument(s, path: "\(path)[\(i)]"))
                case .int(let n): out.append(.int(n))
                case .double(let d): out.append(.double(d))
                case .bool(let b): out.append(.bool(b))
                default: throw CKError.invalid("\(path)[\(i)]: list items are strings, numbers or booleans")
                }
            }
            return .list(out)
        }
        var parser = ValueParser()
        return QueryValue(try parser.parse(text, as: ValueParser.inferType(text), path: path))
    }

    /// The query constant for a field value.
    public init(_ v: FieldValue) {
        switch v {
        case .string(let s): self = .string(s)
        case .int64(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .timestamp(let t): self = .date(t)
        case .bytes(let b): self = .bytes(b)
        case .reference(let r): self = .reference(r)
        case .location(let l): self = .location(l)
        case .asset(let a): self = .string(a.sha256)
        case .list(_, let items): self = .list(items.map(QueryValue.init))
        // Opaque to the server: matches nothing (queryValue(of:field:) never even hands it out).
        case .encrypted: self = .list([])
        }
    }
}
