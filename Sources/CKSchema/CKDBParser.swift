import CKModel

/// Parser for the grammar in Apple's "Integrating a Text-Based Schema into Your Workflow".
/// Loops with bounded lookahead and no recursion (the grammar never nests beyond LIST<…>), so hostile input cannot exhaust the stack.
package struct CKDBParser {
    private let tokens: [CKDBToken]
    private let file: String
    private var p = 0
    private var schema = Schema()
    /// GRANT targets, checked at the end so CREATE ROLE may come after its first use.
    private var grantTargets: [(role: String, token: CKDBToken)] = []

    private static let dataTypes = "a data type (ASSET, BYTES, DOUBLE, ENCRYPTED …, INT64, LIST<…>, LOCATION, NUMBER, REFERENCE, STRING, TIMESTAMP)"
    private static let encryptable: [String: FieldType.Base] = [
        "BYTES": .bytes, "DOUBLE": .double, "INT64": .int64, "LOCATION": .location, "STRING": .string, "TIMESTAMP": .timestamp,
    ]
    private static let primitives: [String: FieldType.Base] = encryptable.merging(["ASSET": .asset, "REFERENCE": .reference]) { a, _ in a }
    private static let options: Set<String> = ["QUERYABLE", "SORTABLE", "SEARCHABLE"]
    private static let permissions: [String: Grant.Permission] = ["READ": .read, "CREATE": .create, "WRITE": .write]

    package init(tokens: [CKDBToken], file: String) {
        self.tokens = tokens
        self.file = file
    }

    // MARK: Tokens

    private func peek(_ ahead: Int = 0) -> CKDBToken {
        let k = p + ahead
        // The lexer always ends the array with `.end`; clamp so lookahead past it sees that token.
        if k < tokens.count { return tokens[k] }
        return tokens.last ?? CKDBToken(kind: .end, line: 1, column: 1)
    }

    private mutating func next() -> CKDBToken {
        let t = peek()
        if p < tokens.count { p += 1 }
        return t
    }

    private func fail(_ t: CKDBToken, _ message: String, hint: String? = nil) -> CKError {
        CKDB.error(file: file, line: t.line, column: t.column, message, hint: hint)
    }

    /// Re-raises a naming-rule error from `Names` at the token that carried the name.
    private func fail(_ t: CKDBToken, _ e: CKError) -> CKError {
        fail(t, e.reason, hint: e.hint)
    }

    private mutating func expectKeyword(_ keyword: String, _ what: String) throws(CKError) {
        let t = peek()
        guard t.keyword == keyword else { throw fail(t, "found \(t.display), expected \(what)") }
        p += 1
    }

    private mutating func expectSymbol(_ c: Character, _ what: String, hint: String? = nil) throws(CKError) {
        let t = peek()
        guard t.isSymbol(c) else { throw fail(t, "found \(t.display), expected \(what)", hint: hint) }
        p += 1
    }

    /// A bare identifier or a quoted name, for the thing described by `what`.
    private mutating func name(_ what: String) throws(CKError) -> (String, CKDBToken) {
        let t = peek()
        switch t.kind {
        case .quoted(let q):
            guard !q.isEmpty else { throw fail(t, "found an empty quoted name, expected a \(what) name") }
            p += 1
            return (q, t)
        case .word(let w):
            guard CKDB.isPlainIdentifier(w) else {
                let hint = what == "record type" ? "record types start with a letter and use letters, digits and '_'"
                    : "names that start with '_' or a digit must be written in double quotes, e.g. \"\(Names.describe(w))\""
                throw fail(t, "found \(t.display), expected a \(what) name", hint: hint)
            }
            guard !CKDB.isReserved(w) else {
                throw fail(t, "found the reserved word \(t.display), expected a \(what) name",
                           hint: "quote it to use it as a name: \"\(w)\"")
            }
            p += 1
            return (w, t)
        default:
            throw fail(t, "found \(t.display), expected a \(what) name")
        }
    }

    // MARK: Statements

    package mutating func parseSchema() throws(CKError) -> Schema {
        try expectKeyword("DEFINE", "DEFINE SCHEMA at the start of the file")
        try expectKeyword("SCHEMA", "SCHEMA after DEFINE")
        var roleTokens: [String: CKDBToken] = [:]
        while true {
            let t = peek()
            if t.kind == .end { break }
            if t.keyword == "CREATE" {
                p += 1
                try expectKeyword("ROLE", "ROLE after CREATE")
                let (role, roleToken) = try name("role")
                if role.hasPrefix("_") {
                    throw fail(roleToken, "found the built-in or reserved role name \(roleToken.display), expected a new role name",
                               hint: "\"_creator\", \"_icloud\" and \"_world\" exist already; names starting with '_' belong to CloudKit")
                }
                if let first = roleTokens[role] {
                    throw fail(roleToken, "duplicate role \(roleToken.display) (first created at \(first.line):\(first.column)), expected each role once")
                }
                roleTokens[role] = roleToken
                schema.roles.append(role)
                try expectSymbol(";", "';' after the role name")
            } else if t.keyword == "RECORD" {
                p += 1
                try expectKeyword("TYPE", "TYPE after RECORD")
                try recordType()
            } else {
                throw fail(t, "found \(t.display), expected CREATE ROLE, RECORD TYPE or the end of the file")
            }
        }
        for (role, t) in grantTargets where !CKDB.builtInRoles.contains(role) && roleTokens[role] == nil {
            throw fail(t, "unknown role \(t.display), expected \"_creator\", \"_icloud\", \"_world\" or a role created with CREATE ROLE",
                       hint: "add CREATE ROLE \(CKDB.quoted(role)); to the schema, or grant to a built-in role")
        }
        return schema
    }

    private mutating func recordType() throws(CKError) {
        let (typeName, typeToken) = try name("record type")
        do throws(CKError) {
            try Names.validateRecordType(typeName)
        } catch {
            throw fail(typeToken, error)
        }
        if schema.recordTypes[typeName] != nil {
            throw fail(typeToken, "duplicate record type \(typeToken.display), expected each record type once")
        }
        try expectSymbol("(", "'(' after the record type name")
        var type = RecordTypeSchema(name: typeName)
        var declared: [String: CKDBToken] = [:]
        var grants: [Grant] = []
        if !peek().isSymbol(")") {
            while true {
                try checkNotMissingParen(typeName)
                if peek().keyword == "GRANT" {
                    grants.append(try grant())
                } else {
                    try field(into: &type, declared: &declared)
                }
                let t = peek()
                if t.isSymbol(",") {
                    p += 1
                    // A trailing comma before ')' is harmless; accept it.
                    if peek().isSymbol(")") { break }
                    continue
                }
                if t.isSymbol(")") { break }
                try checkNotMissingParen(typeName)
                throw fail(t, "found \(t.display), expected ',' or ')'")
            }
        }
        try expectSymbol(")", "')' to close record type '\(typeName)'")
        try expectSymbol(";", "';' after the record type", hint: "every RECORD TYPE ( … ) ends with ';'")
        type.grants = CKDB.canonicalGrants(grants)
        schema.recordTypes[typeName] = type
    }

    /// Where a statement starts (or the file ends) inside a record type, the ')' was forgotten.
    private func checkNotMissingParen(_ typeName: String) throws(CKError) {
        let t = peek()
        let startsStatement = (t.keyword == "RECORD" && peek(1).keyword == "TYPE")
            || (t.keyword == "CREATE" && peek(1).keyword == "ROLE")
        if startsStatement || t.kind == .end || t.isSymbol(";") {
            throw fail(t, "found \(t.display), expected ')' to close record type '\(typeName)'",
                       hint: "close the record type with ');'")
        }
    }

    // MARK: Items

    private mutating func field(into type: inout RecordTypeSchema, declared: inout [String: CKDBToken]) throws(CKError) {
        let (fieldName, nameToken) = try name("field")
        let systemType = RecordTypeSchema.systemFields[fieldName]
        // A share's system keys (cloudkit.title, …) are fields of cloudkit.share only.
        if systemType == nil && !(type.name == Share.recordType && Share.systemFieldKeys.contains(fieldName)) {
            do throws(CKError) {
                try Names.validateFieldName(fieldName)
            } catch {
                throw fail(nameToken, error)
            }
        }
        if let first = declared[fieldName] {
            throw fail(nameToken, "duplicate field \(nameToken.display) in record type '\(type.name)' (first declared at \(first.line):\(first.column)), expected each field once")
        }
        declared[fieldName] = nameToken
        let typeToken = peek()
        var f = try dataType()
        while let k = peek().keyword, Self.options.contains(k) {
            p += 1
            // Options form a set: order and repetition do not matter.
            switch k {
            case "QUERYABLE": f.queryable = true
            case "SORTABLE": f.sortable = true
            default: f.searchable = true
            }
        }
        let after = peek()
        if case .word = after.kind, after.keyword != "RECORD", after.keyword != "CREATE" {
            // A word on a later line is most likely the next item with the comma forgotten.
            if after.line > typeToken.line {
                throw fail(after, "found \(after.display), expected ',' before the next item", hint: "separate fields and GRANTs with ','")
            }
            throw fail(after, "unknown field option \(after.display), expected QUERYABLE, SORTABLE, SEARCHABLE, ',' or ')'")
        }
        if let systemType {
            guard f.type == systemType, !f.encrypted, !f.isNumber else {
                throw fail(typeToken, "system field \(nameToken.display) declared as \(f.schemaTypeName), expected \(systemType.schemaName) (you can't change the type of these system fields)",
                           hint: "declare it as \(CKDB.quoted(fieldName)) \(systemType.schemaName) with the indexes you want, or leave it out")
            }
            // An unindexed system field is implicit; only its indexes are schema content.
            if f.queryable || f.sortable || f.searchable { type.fields[fieldName] = f }
        } else {
            type.fields[fieldName] = f
        }
    }

    private mutating func dataType() throws(CKError) -> FieldSchema {
        guard peek().keyword == "LIST" else { return try primitiveType() }
        p += 1
        try expectSymbol("<", "'<' after LIST")
        var f = try primitiveType()
        try expectSymbol(">", "'>' to close LIST<…>")
        f.type.isList = true
        return f
    }

    private mutating func primitiveType() throws(CKError) -> FieldSchema {
        let t = peek()
        guard let k = t.keyword else { throw fail(t, "found \(t.display), expected \(Self.dataTypes)") }
        switch k {
        case "ENCRYPTED":
            p += 1
            let u = peek()
            if let b = u.keyword.flatMap({ Self.encryptable[$0] }) {
                p += 1
                return FieldSchema(type: FieldType(b), encrypted: true)
            }
            if u.keyword == "REFERENCE" || u.keyword == "ASSET" {
                throw fail(u, "ENCRYPTED \(u.keyword ?? "") is not allowed, expected ENCRYPTED BYTES, DOUBLE, INT64, LOCATION, STRING or TIMESTAMP",
                           hint: "references must stay visible to the server and assets are always encrypted; drop ENCRYPTED")
            }
            throw fail(u, "found \(u.display), expected BYTES, DOUBLE, INT64, LOCATION, STRING or TIMESTAMP after ENCRYPTED")
        case "NUMBER":
            p += 1
            var preferred: FieldType.Base?
            if peek().keyword == "PREFERRED" {
                p += 1
                try expectKeyword("AS", "AS after PREFERRED")
                let u = peek()
                switch u.keyword {
                case "INT64": preferred = .int64
                case "DOUBLE": preferred = .double
                default: throw fail(u, "found \(u.display), expected INT64 or DOUBLE after PREFERRED AS")
                }
                p += 1
            }
            return FieldSchema(type: FieldType(preferred ?? .double), isNumber: true, preferred: preferred)
        case "LIST":
            throw fail(t, "found a list inside a list, expected a primitive type inside LIST<…>")
        default:
            guard let b = Self.primitives[k] else {
                throw fail(t, "unknown type \(t.display), expected \(Self.dataTypes)")
            }
            p += 1
            return FieldSchema(type: FieldType(b))
        }
    }

    private mutating func grant() throws(CKError) -> Grant {
        p += 1
        var perms: [Grant.Permission] = []
        while true {
            let t = peek()
            guard let perm = t.keyword.flatMap({ Self.permissions[$0] }) else {
                throw fail(t, "found \(t.display), expected READ, CREATE or WRITE",
                           hint: perms.isEmpty ? "GRANT lists permissions, then TO and one role; to name a field 'grant', quote it: \"grant\"" : nil)
            }
            p += 1
            perms.append(perm)
            guard peek().isSymbol(",") else { break }
            p += 1
        }
        try expectKeyword("TO", "TO and a role after the permissions")
        let (role, roleToken) = try name("role")
        grantTargets.append((role, roleToken))
        // `TO a, b` lists a second role, which cktool rejects; a comma may only lead to the next item.
        if peek().isSymbol(",") {
            let n = peek(1)
            let nextIsItem: Bool
            switch n.kind {
            case .symbol(")"): nextIsItem = true
            case .word, .quoted:
                // A field declaration is a name followed by a type word; GRANT starts the next grant.
                if case .word = peek(2).kind { nextIsItem = true } else { nextIsItem = n.keyword == "GRANT" }
            default: nextIsItem = false
            }
            if !nextIsItem && n.kind != .end {
                throw fail(n, "found \(n.display) after the role of a GRANT, expected one role per GRANT",
                           hint: "write one GRANT line per role, e.g. GRANT CREATE TO \"_creator\", GRANT CREATE TO \"_icloud\"")
            }
        }
        return Grant(role: role, permissions: perms)
    }
}
