import CKModel

/// One token of .ckdb text, with the 1-based position of its first character.
package struct CKDBToken: Sendable {
    package enum Kind: Equatable, Sendable {
        /// A run of letters, digits and `_` (a keyword or a bare name; the parser decides which).
        case word(String)
        /// A double-quoted name, without its quotes.
        case quoted(String)
        /// One of `( ) , ; < >`.
        case symbol(Character)
        case end
    }

    package var kind: Kind
    package var line: Int
    package var column: Int

    /// How error messages show the token.
    package var display: String {
        switch kind {
        case .word(let w): return "'\(Names.describe(w))'"
        case .quoted(let q): return "'\"\(Names.describe(q))\"'"
        case .symbol(let c): return "'\(c)'"
        case .end: return "end of file"
        }
    }

    /// The keyword this token spells (uppercased), if it is a bare word; keywords are case-insensitive.
    package var keyword: String? {
        if case .word(let w) = kind { return w.uppercased() }
        return nil
    }

    package func isSymbol(_ c: Character) -> Bool { kind == .symbol(c) }
}

/// Splits .ckdb text into tokens, dropping whitespace and `//`, `--` and `/* */` comments.
package struct CKDBLexer {
    private let bytes: [UInt8]
    private let file: String
    private var i = 0
    private var line = 1
    private var column = 1

    private init(_ text: String, file: String) {
        bytes = Array(text.utf8)
        self.file = file
    }

    /// All tokens of `text`, ending with one `.end` token placed just after the last real token.
    package static func tokenize(_ text: String, file: String) throws(CKError) -> [CKDBToken] {
        var lexer = CKDBLexer(text, file: file)
        try lexer.rejectReplacementCharacters()
        return try lexer.run()
    }

    private func fail(_ line: Int, _ column: Int, _ message: String, hint: String? = nil) -> CKError {
        CKDB.error(file: file, line: line, column: column, message, hint: hint)
    }

    private func byte(at k: Int) -> UInt8? { k < bytes.count ? bytes[k] : nil }

    /// Moves past one byte; columns count Unicode scalars, so UTF-8 continuation bytes do not advance them.
    private mutating func advance() {
        guard i < bytes.count else { return }
        let b = bytes[i]
        i += 1
        if b == 0x0A {
            line += 1
            column = 1
        } else if b & 0xC0 != 0x80 {
            column += 1
        }
    }

    /// U+FFFD stands for bytes that were not UTF-8 when the file was decoded; a schema never needs it.
    private mutating func rejectReplacementCharacters() throws(CKError) {
        var k = 0, l = 1, c = 1
        while k < bytes.count {
            if bytes[k] == 0xEF, byte(at: k + 1) == 0xBF, byte(at: k + 2) == 0xBD {
                throw fail(l, c, "found bytes that are not valid UTF-8 (U+FFFD), expected UTF-8 text",
                           hint: "save the schema file as UTF-8")
            }
            if bytes[k] == 0x0A { l += 1; c = 1 } else if bytes[k] & 0xC0 != 0x80 { c += 1 }
            k += 1
        }
    }

    private mutating func run() throws(CKError) -> [CKDBToken] {
        var tokens: [CKDBToken] = []
        var endLine = 1, endColumn = 1
        // A byte-order mark some editors write is not part of the text.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < bytes.count {
            let b = bytes[i]
            let startLine = line, startColumn = column
            switch b {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C:
                advance()
                continue
            case UInt8(ascii: "/") where byte(at: i + 1) == UInt8(ascii: "/"),
                 UInt8(ascii: "-") where byte(at: i + 1) == UInt8(ascii: "-"):
                while i < bytes.count && bytes[i] != 0x0A { advance() }
                continue
            case UInt8(ascii: "/") where byte(at: i + 1) == UInt8(ascii: "*"):
                advance(); advance()
                var closed = false
                while i < bytes.count {
                    if bytes[i] == UInt8(ascii: "*"), byte(at: i + 1) == UInt8(ascii: "/") {
                        advance(); advance()
                        closed = true
                        break
                    }
                    advance()
                }
                guard closed else {
                    throw fail(startLine, startColumn, "unterminated comment '/*', expected '*/' before the end of file",
                               hint: "close the comment with */")
                }
                continue
            case UInt8(ascii: "\""):
                advance()
                let start = i
                while i < bytes.count, bytes[i] != UInt8(ascii: "\""), bytes[i] != 0x0A, bytes[i] != 0x0D { advance() }
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                    throw fail(startLine, startColumn, "unterminated quoted name, expected a closing '\"' on the same line",
                               hint: "quoted names may not contain '\"' or a line break")
                }
                let name = String(decoding: bytes[start..<i], as: UTF8.self)
                advance()
                tokens.append(CKDBToken(kind: .quoted(name), line: startLine, column: startColumn))
            case _ where Names.isLetter(b) || Names.isDigit(b) || b == 95:
                let start = i
                while i < bytes.count, Names.isLetter(bytes[i]) || Names.isDigit(bytes[i]) || bytes[i] == 95 { advance() }
                let word = String(decoding: bytes[start..<i], as: UTF8.self)
                tokens.append(CKDBToken(kind: .word(word), line: startLine, column: startColumn))
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","), UInt8(ascii: ";"),
                 UInt8(ascii: "<"), UInt8(ascii: ">"):
                advance()
                tokens.append(CKDBToken(kind: .symbol(Character(Unicode.Scalar(b))), line: startLine, column: startColumn))
            default:
                throw fail(startLine, startColumn, "unexpected character \(describeCharacter(at: i)), expected a name, a keyword or one of ( ) , ; < >")
            }
            endLine = line
            endColumn = column
        }
        tokens.append(CKDBToken(kind: .end, line: endLine, column: endColumn))
        return tokens
    }

    /// The character starting at byte `k`, quoted when printable, else as U+XXXX.
    private func describeCharacter(at k: Int) -> String {
        var end = k + 1
        while end < bytes.count, bytes[end] & 0xC0 == 0x80 { end += 1 }
        let s = String(decoding: bytes[k..<end], as: UTF8.self)
        guard let scalar = s.unicodeScalars.first else { return "?" }
        if scalar.value < 0x20 || scalar.value == 0x7F || (scalar.value >= 0x80 && scalar.value < 0xA0) {
            return "U+" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4)
        }
        return "'\(s)'"
    }
}

private extension String {
    func leftPadded(to n: Int) -> String { count >= n ? self : String(repeating: "0", count: n - count) + self }
}
