import CKModel

/// A token of Swift source, with its position; enough of Swift's lexical grammar to read declarations.
package struct SwiftToken: Sendable {
    package enum Kind: Equatable, Sendable {
        /// Identifiers and keywords (backticks removed).
        case identifier(String)
        case number(String)
        /// A string literal's text without quotes (interpolations kept as written).
        case string(String)
        /// One punctuation or operator character.
        case symbol(Character)
        case end
    }

    package var kind: Kind
    package var line: Int
    package var column: Int
    /// A line break came between the previous token and this one (Swift ends statements there).
    package var newlineBefore: Bool

    package var identifier: String? { if case .identifier(let s) = kind { return s }; return nil }
    package func isSymbol(_ c: Character) -> Bool { kind == .symbol(c) }
    package func isWord(_ w: String) -> Bool { kind == .identifier(w) }

    /// The token as source text, for type names and messages.
    package var text: String {
        switch kind {
        case .identifier(let s), .number(let s): return s
        case .string(let s): return "\"" + s + "\""
        case .symbol(let c): return String(c)
        case .end: return ""
        }
    }
}

/// Why a file could not be read, and where.
package struct ModelReadFailure: Error, Sendable {
    package var line: Int
    package var column: Int
    package var message: String
}

/// Splits Swift source into tokens: comments (nested block comments too), string literals (multi-line, raw,
/// interpolated), numbers, identifiers and single-character symbols.
package struct SwiftTokenizer {
    private let s: [Unicode.Scalar]
    private var i = 0
    private var line = 1
    private var column = 1

    package init(_ text: String) { s = Array(text.unicodeScalars) }

    package static func tokenize(_ text: String) throws(ModelReadFailure) -> [SwiftToken] {
        var t = SwiftTokenizer(text)
        return try t.run()
    }

    private func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }

    private mutating func advance() {
        if s[i] == "\n" { line += 1; column = 1 } else { column += 1 }
        i += 1
    }

    private static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic || (c.value > 0x7F && !c.properties.isWhitespace && !c.properties.isPatternSyntax)
    }

    private static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        isIdentifierStart(c) || ("0"..."9").contains(c) || c.properties.generalCategory == .nonspacingMark
    }

    package mutating func run() throws(ModelReadFailure) -> [SwiftToken] {
        var out: [SwiftToken] = []
        var newline = true
        while let c = peek() {
            if c == "\n" { newline = true; advance(); continue }
            if c.properties.isWhitespace { advance(); continue }
            if c == "/" && peek(1) == "/" {
                while let d = peek(), d != "\n" { advance() }
                continue
            }
            if c == "/" && peek(1) == "*" {
                let before = line
                try blockComment()
                if line != before { newline = true }
                continue
            }
            let startLine = line, startColumn = column
            func token(_ k: SwiftToken.Kind) -> SwiftToken {
                SwiftToken(kind: k, line: startLine, column: startColumn, newlineBefore: newline)
            }
            if c == "#" || c == "\"" {
                var hashes = 0
                while peek(hashes) == "#" { hashes += 1 }
                if peek(hashes) == "\"" {
                    for _ in 0..<hashes { advance() }
                    out.append(token(.string(try stringLiteral(hashes: hashes))))
                    newline = false
                    continue
                }
            }
            if c == "`" {
                advance()
                var name = ""
                while let d = peek(), d != "`" {
                    if d == "\n" { throw ModelReadFailure(line: startLine, column: startColumn, message: "unterminated `identifier`") }
                    name.unicodeScalars.append(d)
                    advance()
                }
                guard peek() == "`" else { throw ModelReadFailure(line: startLine, column: startColumn, message: "unterminated `identifier`") }
                advance()
                out.append(token(.identifier(name)))
            } else if Self.isIdentifierStart(c) || c == "$" {
                var name = ""
                while let d = peek(), Self.isIdentifierPart(d) || d == "$" {
                    name.unicodeScalars.append(d)
                    advance()
                }
                out.append(token(.identifier(name)))
            } else if ("0"..."9").contains(c) {
                var text = ""
                while let d = peek() {
                    let exponentSign = (d == "-" || d == "+") && (text.last == "e" || text.last == "E" || text.last == "p" || text.last == "P")
                        && !text.hasPrefix("0x")
                    let fraction = d == "." && peek(1).map { ("0"..."9").contains($0) } == true
                    guard Self.isIdentifierPart(d) || fraction || exponentSign else { break }
                    text.unicodeScalars.append(d)
                    advance()
                }
                out.append(token(.number(text)))
            } else {
                advance()
                out.append(token(.symbol(Character(c))))
            }
            newline = false
        }
        out.append(SwiftToken(kind: .end, line: line, column: column, newlineBefore: true))
        return out
    }

    private mutating func blockComment() throws(ModelReadFailure) {
        let startLine = line, startColumn = column
        var depth = 0
        repeat {
            guard let c = peek() else {
                throw ModelReadFailure(line: startLine, column: startColumn, message: "unterminated /* comment")
            }
            if c == "/" && peek(1) == "*" { depth += 1; advance(); advance(); continue }
            if c == "*" && peek(1) == "/" { depth -= 1; advance(); advance(); continue }
            advance()
        } while depth > 0
    }

    /// Reads a string literal from its opening quote(s) (after any `#`s); returns its text.
    private mutating func stringLiteral(hashes: Int) throws(ModelReadFailure) -> String {
        let startLine = line, startColumn = column - hashes
        let multiline = peek(1) == "\"" && peek(2) == "\""
        for _ in 0..<(multiline ? 3 : 1) { advance() }
        var text = ""
        func fail(_ m: String) -> ModelReadFailure { ModelReadFailure(line: startLine, column: startColumn, message: m) }
        while true {
            guard let c = peek() else { throw fail("unterminated string literal") }
            if c == "\n" && !multiline { throw fail("unterminated string literal") }
            if c == "\"" && (!multiline || (peek(1) == "\"" && peek(2) == "\"")) {
                var k = multiline ? 3 : 1
                var closing = true
                for h in 0..<hashes where peek(k + h) != "#" { closing = false }
                if closing {
                    k += hashes
                    for _ in 0..<k { advance() }
                    return text
                }
            }
            if c == "\\" {
                var h = 0
                while h < hashes && peek(1 + h) == "#" { h += 1 }
                if h == hashes {
                    for _ in 0...hashes { advance() }
                    if peek() == "(" {
                        text += "\\("
                        try interpolation(into: &text)
                        continue
                    }
                    if let e = peek() { text.unicodeScalars.append("\\"); text.unicodeScalars.append(e); advance() }
                    continue
                }
            }
            text.unicodeScalars.append(c)
            advance()
        }
    }

    /// Skips `\( … )` inside a string, nested parentheses and strings included.
    private mutating func interpolation(into text: inout String) throws(ModelReadFailure) {
        let startLine = line, startColumn = column
        advance()
        var depth = 1
        while depth > 0 {
            guard let c = peek() else { throw ModelReadFailure(line: startLine, column: startColumn, message: "unterminated string interpolation") }
            if c == "\"" {
                text += "\"" + (try stringLiteral(hashes: 0)) + "\""
                continue
            }
            if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
            text.unicodeScalars.append(c)
            advance()
        }
    }
}
