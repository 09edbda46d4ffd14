import CKModel

/// CloudKit's schema language (.ckdb): parsing hand-written or exported text, and printing cktool's export layout.
public enum CKDB {
    /// Parses .ckdb text into a schema. `file` names the source in error messages.
    public static func parse(_ text: String, file: String) throws(CKError) -> Schema {
        let tokens = try CKDBLexer.tokenize(text, file: file)
        var parser = CKDBParser(tokens: tokens, file: file)
        return try parser.parseSchema()
    }

    /// Parses .ckdb file bytes; bytes that are not UTF-8 are an error with their line and column.
    public static func parse(_ bytes: [UInt8], file: String) throws(CKError) -> Schema {
        // Invalid sequences decode to U+FFFD, which the lexer reports at its position.
        try parse(String(decoding: bytes, as: UTF8.self), file: file)
    }

    /// The canonical text cktool's export-schema writes for a schema.
    public static func print(_ schema: Schema) -> String {
        CKDBPrinter.render(schema)
    }
}

extension CKDB {
    /// Words that must be quoted to be used as a name (Apple's list).
    package static let reservedWords: Set<String> = ["grant", "preferred", "queryable", "sortable", "searchable"]

    /// The three roles every container has.
    package static let builtInRoles = ["_creator", "_icloud", "_world"]

    /// `[A-Za-z][A-Za-z0-9_]*`: a name that may be written without quotes (unless it is reserved).
    package static func isPlainIdentifier(_ s: String) -> Bool {
        guard let first = s.utf8.first, Names.isLetter(first) else { return false }
        return s.utf8.allSatisfy { Names.isLetter($0) || Names.isDigit($0) || $0 == 95 }
    }

    package static func isReserved(_ s: String) -> Bool { reservedWords.contains(s.lowercased()) }

    /// A name as the schema language writes it: bare when plain and not reserved, else in double quotes.
    package static func quoted(_ s: String) -> String {
        isPlainIdentifier(s) && !isReserved(s) ? s : "\"" + s + "\""
    }

    /// cktool sorts names by their bytes (case-sensitive, uppercase before `_` before lowercase).
    package static func byteOrder(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Merges grants per role and orders them as exports do: built-in roles first, then custom roles by bytes.
    package static func canonicalGrants(_ grants: [Grant]) -> [Grant] {
        var perms: [String: Set<Grant.Permission>] = [:]
        for g in grants { perms[g.role, default: []].formUnion(g.permissions) }
        let custom = perms.keys.filter { !builtInRoles.contains($0) }.sorted(by: byteOrder)
        return (builtInRoles.filter { perms[$0] != nil } + custom).compactMap { role in
            let ps = Grant.Permission.allCases.filter { perms[role]?.contains($0) ?? false }
            return ps.isEmpty ? nil : Grant(role: role, permissions: ps)
        }
    }

    /// A positioned parse error: `file:line:column: message`, with line and column also in `details`.
    package static func error(file: String, line: Int, column: Int, _ message: String, hint: String? = nil) -> CKError {
        CKError(.invalidArguments, "\(file):\(line):\(column): \(message)",
                hint: hint ?? "a schema is DEFINE SCHEMA, then CREATE ROLE name; and RECORD TYPE Name ( field TYPE [QUERYABLE|SORTABLE|SEARCHABLE], GRANT READ|CREATE|WRITE TO role );",
                details: ["line": .int(Int64(line)), "column": .int(Int64(column)), "path": .string(file)])
    }
}
