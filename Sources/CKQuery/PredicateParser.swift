import CKModel

/// Parses NSPredicate format strings in CloudKit's subset into a `PredicateNode`.
///
/// Syntax CloudKit never accepts (OR, ALL, LIKE, modifiers, key paths, nil, …) is refused here with a column and a
/// hint; rules that need the schema or the shape of the whole predicate (NOT around AND, CONTAINS on a string
/// field, types) are the validator's.
public enum PredicateParser {
    /// Parses an NSPredicate format string in CloudKit's subset, binding %@ %K %d %f from `arguments` in order.
    public static func parse(_ text: String, arguments: [String] = []) throws(CKError) -> PredicateNode {
        let lexed = PredicateLexer.tokenize(text)
        var state = State(text: text, tokens: lexed.tokens, lexError: lexed.error, arguments: arguments)
        return try state.predicate()
    }

    /// Deepest nesting of parentheses, NOT, braces and function calls accepted; deeper input is refused.
    package static let maxDepth = 64

    /// Hints shared by the parser's refusals (the validator may reuse them).
    package enum Hint {
        package static let or = "run one query per arm and merge the results, or use field IN {a, b} when the arms test one field for equality"
        package static let all = "test list membership with ANY tags == 'x', tags CONTAINS 'x' or 'x' IN tags"
        package static let none = "CloudKit has no NONE; write NOT (tags CONTAINS 'x') for a list that must not hold a value"
        package static let stringOperator = "use BEGINSWITH for a prefix, or self CONTAINS 'word' to find a word"
        package static let modifier = "CloudKit does not support comparison modifiers; BEGINSWITH is case-sensitive; token search (self CONTAINS) is case- and diacritic-insensitive"
        package static let keyPath = "compare recordID == %@ with a reference, or query the related type itself"
        package static let collectionOperator = "store the value you need (a count, a sum) in a field of its own and query that field"
        package static let subquery = "query the related record type itself, or test list membership with ANY, IN or CONTAINS"
        package static let function = "CloudKit predicates allow only distanceToLocation:fromLocation:(field, %@), now() and CAST(value, \"NSDate\")"
        package static let nilValue = "CloudKit can't test for a missing value; use a flag field, or field >= \"\" for any non-empty string"
        package static let placeholders = "pass one --arg per placeholder (%@, %K, %d, %f), in the order they appear"
        package static let reserved = "write #name or use %K to use a reserved word as a field name"
    }
}

extension PredicateParser {
    /// Recursive-descent parser over the token list; `pos` never passes the final `.end` token.
    package struct State {
        package let text: String
        package let tokens: [PredicateToken]
        /// The lexer's error, thrown when the parser reaches the `.invalid` token.
        package let lexError: CKError?
        package let arguments: [String]
        package var pos = 0
        package var placeholdersSeen = 0

        /// Words with a meaning in NSPredicate; as a bare operand they are refused, `#word` makes them keys.
        package static let reserved: Set<String> = [
            "AND", "OR", "NOT", "ANY", "SOME", "ALL", "NONE", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS",
            "LIKE", "MATCHES", "TOKENMATCHES", "TRUEPREDICATE", "FALSEPREDICATE", "NIL", "NULL", "SUBQUERY", "FUNCTION",
        ]

        package init(text: String, tokens: [PredicateToken], lexError: CKError?, arguments: [String]) {
            self.text = text
            // The lexer always ends with .end or .invalid; keep the invariant even for an empty list.
            self.tokens = tokens.isEmpty ? [PredicateToken(kind: .end, column: 1, text: "")] : tokens
            self.lexError = lexError
            self.arguments = arguments
        }

        package var token: PredicateToken { tokens[min(pos, tokens.count - 1)] }

        package mutating func advance() { if pos < tokens.count - 1 { pos += 1 } }

        package func fail(_ column: Int, _ message: String, hint: String) -> CKError {
            PredicateLexer.failure(text, column: column, message, hint: hint)
        }

        /// The keyword a word token spells, upper-cased; nil for other tokens.
        package func keyword(_ t: PredicateToken) -> String? {
            if case .word(let w) = t.kind { return w.uppercased() }
            return nil
        }

        package func isSymbol(_ t: PredicateToken, _ s: String) -> Bool { t.kind == .symbol(s) }

        package func describe(_ t: PredicateToken) -> String { t.kind == .end ? "the end of the predicate" : "'\(t.text)'" }

        // MARK: Predicates

        package mutating func predicate() throws(CKError) -> PredicateNode {
            if token.kind == .end {
                throw fail(1, "the predicate is empty", hint: "use TRUEPREDICATE to match every record")
            }
            let node = try conjunction(depth: 0)
            if token.kind != .end {
                try refuseUnsupported(token)
                if isSymbol(token, ")") {
                    throw fail(token.column, "')' has no matching '('", hint: "remove it or add the missing '('")
                }
                throw fail(token.column, "unexpected \(describe(token)) after the end of a complete predicate",
                           hint: "join conditions with AND")
            }
            if arguments.count > placeholdersSeen {
                throw fail(token.column, "\(count(arguments.count, "argument")) \(arguments.count == 1 ? "was" : "were") given but the predicate has only \(count(placeholdersSeen, "placeholder"))",
                           hint: Hint.placeholders)
            }
            return node
        }

        package func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

        /// `a AND b && c`, flattened into one `.and` that carries the column of its first token.
        package mutating func conjunction(depth: Int) throws(CKError) -> PredicateNode {
            let column = token.column
            var items = [try unary(depth: depth)]
            while keyword(token) == "AND" || isSymbol(token, "&&") {
                advance()
                items.append(try unary(depth: depth))
            }
            return items.count == 1 ? items[0] : .and(items, column: column)
        }

        /// NOT / `!`, a parenthesised predicate, TRUEPREDICATE / FALSEPREDICATE or a comparison.
        package mutating func unary(depth: Int) throws(CKError) -> PredicateNode {
            let t = token
            if depth > PredicateParser.maxDepth {
                throw fail(t.column, "the predicate nests deeper than \(PredicateParser.maxDepth) levels", hint: "simplify the predicate")
            }
            switch keyword(t) {
            case "NOT":
                advance()
                return .not(try unary(depth: depth + 1), column: t.column)
            case "TRUEPREDICATE":
                advance()
                return .constant(true, column: t.column)
            case "FALSEPREDICATE":
                advance()
                return .constant(false, column: t.column)
            default: break
            }
            if isSymbol(t, "!") {
                advance()
                return .not(try unary(depth: depth + 1), column: t.column)
            }
            if isSymbol(t, "(") {
                advance()
                let inner = try conjunction(depth: depth + 1)
                try close(")", opener: t, what: "parentheses")
                return inner
            }
            return try comparison(depth: depth)
        }

        /// Consumes the closing `)` or `}` of `opener`, or says what is wrong.
        package mutating func close(_ symbol: String, opener: PredicateToken, what: String) throws(CKError) {
            if isSymbol(token, symbol) { advance(); return }
            if token.kind == .end {
                throw fail(opener.column, "unbalanced \(what): '\(opener.text)' at column \(opener.column) is never closed",
                           hint: "add the missing '\(symbol)'")
            }
            try refuseUnsupported(token)
            throw fail(token.column, "expected '\(symbol)' to close the '\(opener.text)' at column \(opener.column), found \(describe(token))",
                       hint: what == "parentheses" ? "join conditions with AND" : "separate the items with ','")
        }

        /// `[ANY|SOME] lhs op[modifier] rhs`.
        package mutating func comparison(depth: Int) throws(CKError) -> PredicateNode {
            var any = false
            if keyword(token) == "ANY" || keyword(token) == "SOME" {
                any = true
                advance()
            }
            let lhs = try expression(depth: depth)
            let opToken = token
            let op: PredicateComparison.Operator
            switch opToken.kind {
            case .symbol("=="): op = .equal
            case .symbol("!="): op = .notEqual
            case .symbol("<"): op = .less
            case .symbol("<="): op = .lessOrEqual
            case .symbol(">"): op = .greater
            case .symbol(">="): op = .greaterOrEqual
            default:
                switch keyword(opToken) {
                case "BETWEEN": op = .between
                case "IN": op = .in
                case "BEGINSWITH": op = .beginsWith
                case "CONTAINS": op = .contains
                case "TOKENMATCHES": op = .tokenMatches
                default:
                    try refuseUnsupported(opToken)
                    throw fail(opToken.column, "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, BEGINSWITH, CONTAINS), found \(describe(opToken))",
                               hint: "write a comparison such as title == 'x' or tags CONTAINS 'x'")
                }
            }
            advance()
            if case .modifier(let letters) = token.kind {
                if op == .tokenMatches {
                    // [cdl] in any order, with l required: the spellings tutorials report working.
                    let set = Set(letters)
                    guard set.contains("l"), set.isSubset(of: ["c", "d", "l"]), set.count == letters.count else {
                        throw fail(token.column, "TOKENMATCHES takes the modifier [l], [cl], [dl] or [cdl], not \(token.text)",
                                   hint: "write allTokens TOKENMATCHES[cdl] %@, or self CONTAINS 'word'")
                    }
                    advance()
                } else {
                    throw fail(token.column, "comparison modifier \(token.text) is not supported", hint: Hint.modifier)
                }
            }
            let rhsToken = token
            let rhs = try expression(depth: depth)
            if case .key(let name, let column) = rhs, op != .in, op != .contains {
                if case .placeholder = rhsToken.kind {
                    throw fail(column, "%K binds the field name '\(name)', but the right of \(opToken.text) must be a value",
                               hint: "use %@ to pass a value; CloudKit compares a field with a constant, not with another field")
                }
                let example: String
                if case .key(let field, _) = lhs { example = "\(field) \(op.rawValue) '\(name)'" } else { example = "'\(name)'" }
                throw fail(column, "'\(name)' on the right of \(opToken.text) is a key path, not a value",
                           hint: "quote the string: \(example) (a bare word is a key path)")
            }
            return .comparison(PredicateComparison(any: any, lhs: lhs, op: op, rhs: rhs, column: opToken.column))
        }

        // MARK: Expressions

        package mutating func expression(depth: Int) throws(CKError) -> PredicateExpression {
            let t = token
            if depth > PredicateParser.maxDepth {
                throw fail(t.column, "the predicate nests deeper than \(PredicateParser.maxDepth) levels", hint: "simplify the predicate")
            }
            switch t.kind {
            case .string(let s):
                advance()
                return .value(.string(s), column: t.column)
            case .int(let n):
                advance()
                return .value(.int(n), column: t.column)
            case .double(let d):
                advance()
                return .value(.double(d), column: t.column)
            case .placeholder(let kind, let index):
                advance()
                return try bind(kind, index: index, at: t)
            case .escapedWord(let name):
                advance()
                return .key(name, column: t.column)
            case .symbol("{"):
                return try aggregate(depth: depth)
            case .selector(let name):
                if name == "distanceToLocation:fromLocation:" { return try distance(depth: depth) }
                try refuseUnsupported(t)
            case .word(let w):
                try refuseUnsupported(t)
                switch w.uppercased() {
                case "YES", "TRUE":
                    advance()
                    return .value(.bool(true), column: t.column)
                case "NO", "FALSE":
                    advance()
                    return .value(.bool(false), column: t.column)
                case "NOW":
                    advance()
                    if isSymbol(token, "(") {
                        let open = token
                        advance()
                        if !isSymbol(token, ")"), token.kind != .end {
                            try refuseUnsupported(token)
                            throw fail(token.column, "now() takes no arguments", hint: "write now() or now")
                        }
                        try close(")", opener: open, what: "parentheses")
                    }
                    return .now(column: t.column)
                case "CAST":
                    return try cast(depth: depth)
                case "ANY", "SOME":
                    throw fail(t.column, "\(w) goes before the key on the left of a comparison",
                               hint: "write ANY tags == 'x'")
                case let k where State.reserved.contains(k):
                    throw fail(t.column, "expected a key or a value, found the keyword '\(w)'", hint: Hint.reserved)
                default:
                    advance()
                    if isSymbol(token, "(") {
                        throw fail(t.column, "function \(w)() is not supported", hint: Hint.function)
                    }
                    return .key(w, column: t.column)
                }
            case .end:
                throw fail(t.column, "the predicate ends where a key or a value was expected",
                           hint: "complete the comparison, such as title == 'x'")
            default:
                try refuseUnsupported(t)
            }
            throw fail(t.column, "expected a key or a value, found \(describe(t))",
                       hint: "keys are bare names; quote strings with ' or \"; pass values with %@")
        }

        /// `{a, b, …}`; `{}` is allowed; the items must be constants.
        package mutating func aggregate(depth: Int) throws(CKError) -> PredicateExpression {
            let open = token
            advance()
            var items: [PredicateExpression] = []
            if isSymbol(token, "}") {
                advance()
                return .aggregate(items, column: open.column)
            }
            while true {
                if token.kind == .end { try close("}", opener: open, what: "braces") }
                let item = try expression(depth: depth + 1)
                if case .key(let name, let column) = item {
                    throw fail(column, "'\(name)' in a list is a key path, not a value",
                               hint: "quote the string: {'\(name)'} (a bare word is a key path)")
                }
                items.append(item)
                if isSymbol(token, ",") { advance(); continue }
                try close("}", opener: open, what: "braces")
                return .aggregate(items, column: open.column)
            }
        }

        /// `CAST(value, "NSDate")`: the one type CloudKit predicates convert to.
        package mutating func cast(depth: Int) throws(CKError) -> PredicateExpression {
            let start = token
            advance()
            let open = try expectOpen(after: "CAST", example: "CAST(%@, \"NSDate\")")
            let value = try expression(depth: depth + 1)
            if case .key(let name, let column) = value {
                throw fail(column, "CAST takes a constant or a placeholder, not the key '\(name)'",
                           hint: "write CAST(%@, \"NSDate\") or CAST(757382400, \"NSDate\")")
            }
            try expectComma(in: "CAST", example: "CAST(%@, \"NSDate\")")
            let typeToken = token
            guard case .string(let type) = typeToken.kind else {
                try refuseUnsupported(typeToken)
                throw fail(typeToken.column, "CAST needs a quoted type name, found \(describe(typeToken))",
                           hint: "write CAST(%@, \"NSDate\")")
            }
            guard type == "NSDate" else {
                throw fail(typeToken.column, "CAST to \"\(type)\" is not supported",
                           hint: "CloudKit predicates accept only CAST(value, \"NSDate\")")
            }
            advance()
            try close(")", opener: open, what: "parentheses")
            return .cast(value, type: type, column: start.column)
        }

        /// `distanceToLocation:fromLocation:(key, location)`.
        package mutating func distance(depth: Int) throws(CKError) -> PredicateExpression {
            let start = token
            let example = "distanceToLocation:fromLocation:(location, %@) < 1000"
            advance()
            let open = try expectOpen(after: "distanceToLocation:fromLocation:", example: example)
            let field = try expression(depth: depth + 1)
            guard case .key(let key, _) = field else {
                throw fail(field.column, "the first argument of distanceToLocation:fromLocation: must be a location field",
                           hint: "write \(example), passing the point with --arg location:LAT,LON")
            }
            try expectComma(in: "distanceToLocation:fromLocation:", example: example)
            let from = try expression(depth: depth + 1)
            switch from {
            case .value, .argument: break
            default:
                throw fail(from.column, "the second argument of distanceToLocation:fromLocation: must be a location value or %@",
                           hint: "write \(example), passing the point with --arg location:LAT,LON")
            }
            try close(")", opener: open, what: "parentheses")
            return .distance(key: key, from: from, column: start.column)
        }

        package mutating func expectOpen(after name: String, example: String) throws(CKError) -> PredicateToken {
            let t = token
            guard isSymbol(t, "(") else {
                try refuseUnsupported(t)
                throw fail(t.column, "expected '(' after \(name), found \(describe(t))", hint: "write \(example)")
            }
            advance()
            return t
        }

        package mutating func expectComma(in name: String, example: String) throws(CKError) {
            if isSymbol(token, ",") { advance(); return }
            try refuseUnsupported(token)
            throw fail(token.column, "expected ',' between the arguments of \(name), found \(describe(token))",
                       hint: "write \(example)")
        }

        // MARK: Placeholders

        /// Binds placeholder `index` (0-based, text order) from the arguments, typed by its specifier.
        package mutating func bind(_ kind: PredicateToken.Placeholder, index: Int, at t: PredicateToken) throws(CKError) -> PredicateExpression {
            placeholdersSeen = max(placeholdersSeen, index + 1)
            guard index < arguments.count else {
                let total = tokens.filter { if case .placeholder = $0.kind { return true }; return false }.count
                throw fail(t.column, "the predicate has \(count(total, "placeholder")) but \(count(arguments.count, "argument")) \(arguments.count == 1 ? "was" : "were") given; \(t.text) at column \(t.column) has none",
                           hint: Hint.placeholders)
            }
            let arg = arguments[index]
            let path = "argument \(index + 1)"
            switch kind {
            case .value:
                do throws(CKError) {
                    return .argument(arg, try QueryValue.argument(arg, path: path), column: t.column)
                } catch {
                    throw fail(t.column, "\(error.reason) (bound to %@ at column \(t.column))",
                               hint: error.hint ?? "type the argument with a prefix such as string:, int64:, timestamp:, ref: or location:")
                }
            case .key:
                if arg.contains(".") {
                    throw fail(t.column, "\(path) for %K is the key path '\(arg)'; CloudKit keys can't contain '.'", hint: Hint.keyPath)
                }
                let scalars = Array(arg.unicodeScalars)
                guard let first = scalars.first, PredicateLexer.isIdentStart(first),
                      scalars.allSatisfy({ PredicateLexer.isIdentChar($0) }) else {
                    throw fail(t.column, "\(path) for %K is not a field name: '\(arg)'",
                               hint: "field names are letters, digits and _, starting with a letter or _")
                }
                return .key(arg, column: t.column)
            case .int:
                guard let n = Int64(arg) else {
                    throw fail(t.column, "\(path) for \(t.text) is not a 64-bit integer: '\(arg)'", hint: "pass an integer such as 42, or use %@")
                }
                return .value(.int(n), column: t.column)
            case .double:
                guard ValueParser.looksNumeric(arg), let d = Double(arg), d.isFinite else {
                    throw fail(t.column, "\(path) for \(t.text) is not a number: '\(arg)'", hint: "pass a number such as 2.5, or use %@")
                }
                return .value(.double(d), column: t.column)
            }
        }

        // MARK: Refusals

        /// Throws CloudKit's refusal when `t` is a form CloudKit never supports; returns for anything else.
        package func refuseUnsupported(_ t: PredicateToken) throws(CKError) {
            switch t.kind {
            case .invalid:
                throw lexError ?? fail(t.column, "unreadable text", hint: PredicateLexer.stringHint)
            case .symbol("||"):
                throw fail(t.column, "'||' (OR) is not supported: CloudKit allows only AND compound predicates", hint: Hint.or)
            case .symbol(let s) where ["+", "-", "*", "/", "**"].contains(s):
                throw fail(t.column, "arithmetic ('\(s)') is not supported in CloudKit predicates",
                           hint: "compute the value first and pass it with %@ and --arg")
            case .symbol("["), .symbol("]"):
                throw fail(t.column, "subscripts ('[') are not supported in CloudKit predicates",
                           hint: "test list membership with tags CONTAINS 'x' or ANY tags == 'x'")
            case .modifier:
                throw fail(t.column, "comparison modifier \(t.text) is not supported", hint: Hint.modifier)
            case .variable(let v):
                throw fail(t.column, "variables (\(v)) are not supported", hint: "use a %@ placeholder and pass the value with --arg")
            case .selector(let name):
                if name == "tokenize:using:" {
                    throw fail(t.column, "tokenize:using: is not supported",
                               hint: "search words with self CONTAINS 'word' (one clause per word, joined with AND)")
                }
                if name != "distanceToLocation:fromLocation:" {
                    throw fail(t.column, "function \(name) is not supported", hint: Hint.function)
                }
            case .word(let w):
                let scalars = Array(w.unicodeScalars)
                if let at = scalars.firstIndex(of: "@") {
                    var end = at + 1
                    while end < scalars.count, PredicateLexer.isIdentChar(scalars[end]) { end += 1 }
                    var op = String.UnicodeScalarView()
                    op.append(contentsOf: scalars[at..<end])
                    throw fail(t.column + at, "collection operator \(String(op)) in '\(w)' is not supported by CloudKit",
                               hint: Hint.collectionOperator)
                }
                if w.contains(".") {
                    throw fail(t.column, "key path '\(w)' is not supported: CloudKit keys can't contain '.'", hint: Hint.keyPath)
                }
                switch w.uppercased() {
                case "OR":
                    throw fail(t.column, "OR is not supported: CloudKit allows only AND compound predicates", hint: Hint.or)
                case "ALL":
                    throw fail(t.column, "ALL is not supported by CloudKit", hint: Hint.all)
                case "NONE":
                    throw fail(t.column, "NONE is not supported by CloudKit", hint: Hint.none)
                case "LIKE", "MATCHES", "ENDSWITH":
                    throw fail(t.column, "\(w.uppercased()) is not supported by CloudKit", hint: Hint.stringOperator)
                case "SUBQUERY":
                    throw fail(t.column, "SUBQUERY is not supported by CloudKit", hint: Hint.subquery)
                case "FUNCTION":
                    throw fail(t.column, "FUNCTION(…) is not supported by CloudKit", hint: Hint.function)
                case "NIL", "NULL":
                    throw fail(t.column, "comparisons with \(w) are not supported", hint: Hint.nilValue)
                default: break
                }
            default: break
            }
        }
    }
}
