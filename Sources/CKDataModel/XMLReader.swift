import CKModel

/// An element of an XML document, with where it starts.
package struct XMLElement: Sendable {
    package var name: String
    package var attributes: [String: String]
    package var children: [XMLElement]
    /// Character data directly inside the element.
    package var text: String
    package var line: Int
    package var column: Int

    package func child(_ name: String) -> XMLElement? { children.first { $0.name == name } }
    package func children(_ name: String) -> [XMLElement] { children.filter { $0.name == name } }
}

/// A small XML reader for model files (Core Data's `contents`, `.xccurrentversion` plists): elements,
/// attributes, text, comments, CDATA, processing instructions, a DOCTYPE, and the predefined and numeric
/// entities. Written here rather than using FoundationXML, which would tie ck to libxml2 at run time.
package struct XMLReader {
    private let s: [Unicode.Scalar]
    private var i = 0
    private var line = 1
    private var column = 1

    private init(_ text: String) { s = Array(text.unicodeScalars) }

    /// Parses a document and returns its root element; malformed XML fails with the line and column.
    package static func parse(_ text: String) throws(ModelReadFailure) -> XMLElement {
        var r = XMLReader(text)
        return try r.document()
    }

    private func peek(_ k: Int = 0) -> Unicode.Scalar? { i + k < s.count ? s[i + k] : nil }

    private mutating func advance(_ n: Int = 1) {
        for _ in 0..<n where i < s.count {
            if s[i] == "\n" { line += 1; column = 1 } else { column += 1 }
            i += 1
        }
    }

    private func fail(_ message: String, line l: Int? = nil, column c: Int? = nil) -> ModelReadFailure {
        ModelReadFailure(line: l ?? line, column: c ?? column, message: message)
    }

    private func lookingAt(_ text: String) -> Bool {
        var k = 0
        for u in text.unicodeScalars {
            guard peek(k) == u else { return false }
            k += 1
        }
        return true
    }

    private mutating func skipSpace() {
        while let c = peek(), c.properties.isWhitespace { advance() }
    }

    /// Skips to just after `end`; fails naming `what` if the file ends first.
    private mutating func skip(past end: String, what: String) throws(ModelReadFailure) {
        let l = line, c = column
        while !lookingAt(end) {
            guard peek() != nil else { throw fail("unterminated \(what)", line: l, column: c) }
            advance()
        }
        advance(end.unicodeScalars.count)
    }

    private mutating func misc() throws(ModelReadFailure) {
        while true {
            skipSpace()
            if lookingAt("<?") { try skip(past: "?>", what: "processing instruction") }
            else if lookingAt("<!--") { try skip(past: "-->", what: "comment") }
            else if lookingAt("<!DOCTYPE") { try skip(past: ">", what: "DOCTYPE") }
            else { return }
        }
    }

    private mutating func document() throws(ModelReadFailure) -> XMLElement {
        if peek() == "\u{FEFF}" { advance() }
        try misc()
        guard peek() == "<" else { throw fail(peek() == nil ? "empty document: expected an XML element" : "expected '<' to start the root element") }
        let root = try element(depth: 0)
        try misc()
        if peek() != nil { throw fail("content after the root element </\(root.name)>") }
        return root
    }

    private static func isNameChar(_ c: Unicode.Scalar) -> Bool {
        c.properties.isAlphabetic || ("0"..."9").contains(c) || c == "_" || c == "-" || c == "." || c == ":"
    }

    private mutating func name() throws(ModelReadFailure) -> String {
        var n = ""
        while let c = peek(), Self.isNameChar(c) { n.unicodeScalars.append(c); advance() }
        if n.isEmpty { throw fail("expected a name") }
        return n
    }

    /// Model files nest a few levels; a limit keeps hostile input off the stack.
    package static let maxDepth = 256

    private mutating func element(depth: Int) throws(ModelReadFailure) -> XMLElement {
        let l = line, c = column
        if depth >= Self.maxDepth { throw fail("elements nested more than \(Self.maxDepth) deep") }
        advance() // <
        let tag = try name()
        var e = XMLElement(name: tag, attributes: [:], children: [], text: "", line: l, column: c)
        while true {
            skipSpace()
            if lookingAt("/>") { advance(2); return e }
            if peek() == ">" { advance(); break }
            guard peek() != nil else { throw fail("unterminated start tag <\(tag)", line: l, column: c) }
            let al = line, ac = column
            let attr = try name()
            skipSpace()
            guard peek() == "=" else { throw fail("expected '=' after attribute \(attr)") }
            advance()
            skipSpace()
            guard let q = peek(), q == "\"" || q == "'" else { throw fail("expected a quoted value for attribute \(attr)") }
            advance()
            var value = ""
            while let d = peek(), d != q {
                if d == "<" { throw fail("'<' in the value of attribute \(attr)") }
                if d == "&" { value += try entity() } else { value.unicodeScalars.append(d); advance() }
            }
            guard peek() == q else { throw fail("unterminated value of attribute \(attr)", line: al, column: ac) }
            advance()
            if e.attributes[attr] != nil { throw fail("attribute \(attr) given twice", line: al, column: ac) }
            e.attributes[attr] = value
        }
        // Content.
        while true {
            guard let d = peek() else { throw fail("<\(tag)> is never closed", line: l, column: c) }
            if lookingAt("</") {
                advance(2)
                let cl = line, cc = column
                let closing = try name()
                guard closing == tag else {
                    throw fail("found </\(closing)>, expected </\(tag)> to close <\(tag)> at \(l):\(c)", line: cl, column: cc)
                }
                skipSpace()
                guard peek() == ">" else { throw fail("expected '>' after </\(closing)") }
                advance()
                return e
            }
            if lookingAt("<!--") { try skip(past: "-->", what: "comment"); continue }
            if lookingAt("<![CDATA[") {
                let cl = line, cc = column
                advance(9)
                while !lookingAt("]]>") {
                    guard let x = peek() else { throw fail("unterminated CDATA section", line: cl, column: cc) }
                    e.text.unicodeScalars.append(x)
                    advance()
                }
                advance(3)
                continue
            }
            if lookingAt("<?") { try skip(past: "?>", what: "processing instruction"); continue }
            if d == "<" { e.children.append(try element(depth: depth + 1)); continue }
            if d == "&" { e.text += try entity(); continue }
            e.text.unicodeScalars.append(d)
            advance()
        }
    }

    private mutating func entity() throws(ModelReadFailure) -> String {
        let l = line, c = column
        advance() // &
        var body = ""
        while let d = peek(), d != ";" {
            guard body.count < 12, !d.properties.isWhitespace else { throw fail("'&' that starts no entity (write &amp;)", line: l, column: c) }
            body.unicodeScalars.append(d)
            advance()
        }
        guard peek() == ";" else { throw fail("unterminated entity &\(body)", line: l, column: c) }
        advance()
        switch body {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            let value: UInt32?
            if body.hasPrefix("#x") { value = UInt32(body.dropFirst(2), radix: 16) }
            else if body.hasPrefix("#") { value = UInt32(body.dropFirst()) }
            else { value = nil }
            guard let v = value, let u = Unicode.Scalar(v) else { throw fail("unknown entity &\(body);", line: l, column: c) }
            return String(Character(u))
        }
    }
}
