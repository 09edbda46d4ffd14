import CKModel

/// One token of an NSPredicate format string, with the 1-based column (in Unicode scalars) where it starts.
package struct PredicateToken: Equatable, Sendable {
    /// What a `%` placeholder binds: `%@` a value, `%K` a key, `%d` an integer, `%f` a double.
    package enum Placeholder: Equatable, Sendable { case value, key, int, double }

    package enum Kind: Equatable, Sendable {
        /// An identifier or keyword; may hold `.` and `@` segments (key paths, `@count`), which the parser refuses.
        case word(String)
        /// `#name`: a key even when the name is a reserved word.
        case escapedWord(String)
        /// A selector-style function name such as `distanceToLocation:fromLocation:`.
        case selector(String)
        case string(String)
        case int(Int64)
        case double(Double)
        /// `index` counts placeholders from 0 in text order; it picks the argument.
        case placeholder(Placeholder, index: Int)
        /// `$name`.
        case variable(String)
        /// `[cd]`-style comparison modifier, letters lower-cased.
        case modifier(String)
        /// Punctuation and operators, with operator spellings normalised (`=` → `==`, `<>` → `!=`, `=<` → `<=`, `=>` → `>=`).
        case symbol(String)
        /// Where lexing failed; the parser throws the lexer's error when it gets here.
        case invalid
        case end
    }

    package var kind: Kind
    package var column: Int
    /// The token as written, for messages.
    package var text: String
}

/// Splits an NSPredicate format string into tokens; refuses unterminated strings, bad escapes and unknown characters.
package struct PredicateLexer {
    package let source: String
    package let scalars: [Unicode.Scalar]
    package var i = 0
    package var placeholderCount = 0

    /// Tokenizes `text`. The tokens end with `.end`, or with `.invalid` at the first lexical error, which is
    /// returned too: the parser throws it only when it reaches it, so errors come in reading order.
    package static func tokenize(_ text: String) -> (tokens: [PredicateToken], error: CKError?) {
        var lexer = PredicateLexer(source: text, scalars: Array(text.unicodeScalars))
        var out: [PredicateToken] = []
        while true {
            let column = lexer.i + 1
            do throws(CKError) {
                let t = try lexer.next()
                out.append(t)
                if t.kind == .end { return (out, nil) }
            } catch {
                let at = error.details["column"].flatMap { $0.int64Value }.map { Int($0) } ?? column
                out.append(PredicateToken(kind: .invalid, column: at, text: ""))
                return (out, error)
            }
        }
    }

    /// The error every predicate refusal uses: invalidArguments, the column in the reason and in the details.
    package static func failure(_ text: String, column: Int, _ message: String, hint: String) -> CKError {
        let col = max(1, column)
        return CKError(.invalidArguments, "column \(col): \(message)", hint: hint,
                       details: ["column": .int(Int64(col)), "predicate": .string(text)])
    }

    package static let stringHint = "quote strings with ' or \"; escapes are \\n \\t \\r \\\\ \\' \\\" and \\uXXXX"

    package func fail(_ column: Int, _ message: String, hint: String) -> CKError {
        PredicateLexer.failure(source, column: column, message, hint: hint)
    }

    package func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let k = i + offset
        return k >= 0 && k < scalars.count ? scalars[k] : nil
    }

    package func text(_ from: Int, _ to: Int) -> String {
        var v = String.UnicodeScalarView()
        // One scalar at a time: append(contentsOf:) is a generic whose first call costs more than a short query.
        for c in scalars[max(0, from)..<min(to, scalars.count)] { v.append(c) }
        return String(v)
    }

    package static func isIdentStart(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return (c >= "A" && c <= "Z") || (c >= "a" && c <= "z") || c == "_"
    }

    package static func isDigit(_ c: Unicode.Scalar?) -> Bool {
        guard let c else { return false }
        return c >= "0" && c <= "9"
    }

    package static func isIdentChar(_ c: Unicode.Scalar?) -> Bool { isIdentStart(c) || isDigit(c) }

    /// How a character is shown in a message: itself when printable, else U+XXXX.
    package static func show(_ c: Unicode.Scalar) -> String {
        if c.value < 0x20 || c.value == 0x7F || c.properties.isWhitespace || !c.properties.isAlphabetic && c.value > 0x7F {
            let hex = String(c.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
        return "'\(c)'"
    }

    package mutating func next() throws(CKError) -> PredicateToken {
        while let c = peek(), c.properties.isWhitespace { i += 1 }
        let start = i
        let col = i + 1
        guard let c = peek() else { return PredicateToken(kind: .end, column: col, text: "") }

        func symbol(_ canonical: String, length: Int) -> PredicateToken {
            i += length
            return PredicateToken(kind: .symbol(canonical), column: col, text: text(start, i))
        }

        if PredicateLexer.isIdentStart(c) || c == "@" { return try word() }
        if PredicateLexer.isDigit(c) || (c == "." && PredicateLexer.isDigit(peek(1))) { return try number() }
        switch c {
        case "-":
            // A sign glued to a number is part of it; CloudKit predicates have no arithmetic to confuse it with.
            if PredicateLexer.isDigit(peek(1)) || (peek(1) == "." && PredicateLexer.isDigit(peek(2))) { return try number() }
            return symbol("-", length: 1)
        case "'", "\"": return try string()
        case "%": return try placeholder()
        case "#":
            guard PredicateLexer.isIdentStart(peek(1)) else {
                throw fail(col, "'#' must be followed by a key name", hint: "write #name to use a reserved word as a key")
            }
            i += 1
            while PredicateLexer.isIdentChar(peek()) { i += 1 }
            return PredicateToken(kind: .escapedWord(text(start + 1, i)), column: col, text: text(start, i))
        case "$":
            i += 1
            while PredicateLexer.isIdentChar(peek()) { i += 1 }
            return PredicateToken(kind: .variable(text(start, i)), column: col, text: text(start, i))
        case "[":
            var j = i + 1
            while let l = (j < scalars.count ? scalars[j] : nil), (l >= "a" && l <= "z") || (l >= "A" && l <= "Z") { j += 1 }
            if j > i + 1, j < scalars.count, scalars[j] == "]" {
                let letters = text(i + 1, j).lowercased()
                i = j + 1
                return PredicateToken(kind: .modifier(letters), column: col, text: text(start, i))
            }
            return symbol("[", length: 1)
        case "(", ")", "{", "}", ",", "]", "+", "/":
            return symbol(String(c), length: 1)
        case "*":
            return peek(1) == "*" ? symbol("**", length: 2) : symbol("*", length: 1)
        case "=":
            switch peek(1) {
            case "=": return symbol("==", length: 2)
            case "<": return symbol("<=", length: 2)
            case ">": return symbol(">=", length: 2)
            default: return symbol("==", length: 1)
            }
        case "!":
            return peek(1) == "=" ? symbol("!=", length: 2) : symbol("!", length: 1)
        case "<":
            switch peek(1) {
            case "=": return symbol("<=", length: 2)
            case ">": return symbol("!=", length: 2)
            default: return symbol("<", length: 1)
            }
        case ">":
            return peek(1) == "=" ? symbol(">=", length: 2) : symbol(">", length: 1)
        case "&":
            guard peek(1) == "&" else { throw fail(col, "'&' alone is not an operator", hint: "join conditions with AND or &&") }
            return symbol("&&", length: 2)
        case "|":
            guard peek(1) == "|" else {
                throw fail(col, "'|' alone is not an operator; CloudKit supports only AND compound predicates",
                           hint: PredicateParser.Hint.or)
            }
            return symbol("||", length: 2)
        default:
            throw fail(col, "unexpected character \(PredicateLexer.show(c))",
                       hint: "keys are ASCII letters, digits and _; " + PredicateLexer.stringHint)
        }
    }

    /// Identifier, keyword, key path (`a.b`, `tags.@count`) or selector (`distanceToLocation:fromLocation:`).
    package mutating func word() throws(CKError) -> PredicateToken {
        let start = i
        let col = i + 1
        /// End of one segment (`name` or `@name`) starting at `j`, or nil.
        func segmentEnd(_ j: Int) -> Int? {
            var k = j
            if k < scalars.count, scalars[k] == "@" { k += 1 }
            guard k < scalars.count, PredicateLexer.isIdentStart(scalars[k]) else { return nil }
            while k < scalars.count, PredicateLexer.isIdentChar(scalars[k]) { k += 1 }
            return k
        }
        guard var end = segmentEnd(i) else {
            throw fail(col, "'@' must start a collection operator such as @count, and those are not supported",
                       hint: "store the value you need (a count, a sum) in a field of its own and query that field")
        }
        var plain = scalars[i] != "@"
        while end < scalars.count, scalars[end] == ".", let next = segmentEnd(end + 1) {
            plain = false
            end = next
        }
        i = end
        var name = text(start, i)
        if plain, peek() == ":" {
            // Selector-style function names are words each followed by ':' (`distanceToLocation:fromLocation:`).
            while peek() == ":" {
                i += 1
                name += ":"
                var j = i
                guard PredicateLexer.isIdentStart(peek()) else { break }
                while j < scalars.count, PredicateLexer.isIdentChar(scalars[j]) { j += 1 }
                guard j < scalars.count, scalars[j] == ":" else { break }
                name += text(i, j)
                i = j
            }
            return PredicateToken(kind: .selector(name), column: col, text: name)
        }
        return PredicateToken(kind: .word(name), column: col, text: name)
    }

    /// Integer or double, with an optional leading '-', fraction and exponent.
    package mutating func number() throws(CKError) -> PredicateToken {
        let start = i
        let col = i + 1
        var isDouble = false
        if peek() == "-" { i += 1 }
        while PredicateLexer.isDigit(peek()) { i += 1 }
        if peek() == ".", PredicateLexer.isDigit(peek(1)) {
            isDouble = true
            i += 1
            while PredicateLexer.isDigit(peek()) { i += 1 }
        }
        if peek() == "e" || peek() == "E" {
            var k = 1
            if peek(1) == "+" || peek(1) == "-" { k = 2 }
            if PredicateLexer.isDigit(peek(k)) {
                isDouble = true
                i += k
                while PredicateLexer.isDigit(peek()) { i += 1 }
            }
        }
        if PredicateLexer.isIdentChar(peek()) || peek() == "." {
            var j = i
            while j < scalars.count, PredicateLexer.isIdentChar(scalars[j]) || scalars[j] == "." { j += 1 }
            throw fail(col, "malformed number '\(text(start, j))'",
                       hint: "write numbers as 42, -3, 2.5 or 1e6; quote strings with ' or \"")
        }
        var literal = text(start, i)
        if isDouble {
            // Swift's Double(String) wants a digit before the point.
            if literal.hasPrefix(".") { literal = "0" + literal } else if literal.hasPrefix("-.") { literal = "-0" + literal.dropFirst() }
            guard let d = Double(literal), d.isFinite else {
                throw fail(col, "number '\(text(start, i))' is out of range", hint: "use a finite double")
            }
            return PredicateToken(kind: .double(d), column: col, text: text(start, i))
        }
        guard let n = Int64(literal) else {
            throw fail(col, "integer '\(literal)' is out of the 64-bit range",
                       hint: "integers range from -9223372036854775808 to 9223372036854775807; write a double as 1e20")
        }
        return PredicateToken(kind: .int(n), column: col, text: literal)
    }

    /// A single- or double-quoted string with backslash escapes.
    package mutating func string() throws(CKError) -> PredicateToken {
        let start = i
        let col = i + 1
        guard let quote = peek() else { throw fail(col, "expected a string", hint: PredicateLexer.stringHint) }
        i += 1
        var out = String.UnicodeScalarView()
        let unterminated = fail(col, "unterminated string: no closing \(quote) for the quote at column \(col)",
                                hint: "close the string with the quote it starts with; escape a quote inside it as \\\(quote)")
        while true {
            guard let c = peek() else { throw unterminated }
            if c == quote { i += 1; break }
            guard c == "\\" else { out.append(c); i += 1; continue }
            let escCol = i + 1
            guard let e = peek(1) else { throw unterminated }
            switch e {
            case "n": out.append("\n"); i += 2
            case "t": out.append("\t"); i += 2
            case "r": out.append("\r"); i += 2
            case "\\", "'", "\"": out.append(e); i += 2
            case "u":
                guard let high = hex4(at: i + 2) else {
                    throw fail(escCol, "\\u must be followed by 4 hex digits", hint: PredicateLexer.stringHint)
                }
                var value = high
                var length = 6
                if (0xD800...0xDBFF).contains(high) {
                    // A UTF-16 surrogate pair spelled as two escapes.
                    guard peek(6) == "\\", peek(7) == "u", let low = hex4(at: i + 8), (0xDC00...0xDFFF).contains(low) else {
                        throw fail(escCol, "\\u escape is half of a surrogate pair", hint: "write the pair as \\uD83D\\uDE00")
                    }
                    value = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
                    length = 12
                }
                guard let scalar = Unicode.Scalar(value) else {
                    throw fail(escCol, "\\u escape is not a Unicode character", hint: PredicateLexer.stringHint)
                }
                out.append(scalar)
                i += length
            default:
                throw fail(escCol, "unknown escape '\\\(e)' in a string", hint: PredicateLexer.stringHint)
            }
        }
        return PredicateToken(kind: .string(String(out)), column: col, text: text(start, i))
    }

    package func hex4(at k: Int) -> UInt32? {
        guard k >= 0, k + 4 <= scalars.count else { return nil }
        var v: UInt32 = 0
        for c in scalars[k..<(k + 4)] {
            guard let d = Int(String(c), radix: 16) else { return nil }
            v = v * 16 + UInt32(d)
        }
        return v
    }

    /// `%@`, `%K`, `%d` (also `%i`, `%ld`, `%lld`) and `%f` (also `%lf`).
    package mutating func placeholder() throws(CKError) -> PredicateToken {
        let start = i
        let col = i + 1
        let forms: [(String, PredicateToken.Placeholder)] = [
            ("%@", .value), ("%K", .key), ("%d", .int), ("%i", .int), ("%ld", .int), ("%lld", .int),
            ("%f", .double), ("%lf", .double),
        ]
        for (form, kind) in forms.sorted(by: { $0.0.count > $1.0.count }) {
            let f = Array(form.unicodeScalars)
            if i + f.count <= scalars.count, Array(scalars[i..<(i + f.count)]) == f {
                i += f.count
                defer { placeholderCount += 1 }
                return PredicateToken(kind: .placeholder(kind, index: placeholderCount), column: col, text: text(start, i))
            }
        }
        let shown = peek(1).map { PredicateLexer.show($0) } ?? "the end"
        throw fail(col, "unsupported format specifier: '%' followed by \(shown)",
                   hint: "use %@ for a value, %K for a field name, %d for an integer and %f for a double")
    }
}
