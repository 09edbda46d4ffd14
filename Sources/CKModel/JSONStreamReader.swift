import Glibc

/// Reads one JSON document a piece at a time from a file descriptor (or bytes in memory): an object's members one
/// by one, an array's elements one by one, each value parsed alone. Only a 64 KB window and the value being read
/// are in memory, so a document far larger than memory can be read (`ck import`). Errors name the byte offset in
/// the whole document.
package struct JSONStreamReader {
    /// Where the bytes come from: a descriptor read with `pread` from an offset (so a file can be read again), or
    /// bytes already in memory.
    package enum Source {
        case file(fd: Int32, from: Int)
        case bytes([UInt8])
    }

    /// The document's name in errors (a file name or `<stdin>`).
    package let input: String
    /// The most bytes one value read by `value()` may take, and what that limit is called in a refusal.
    package var valueLimit: (bytes: Int, name: String)
    private let source: Source
    private var window: [UInt8] = []
    /// The next byte to read in `window`, and the document offset of `window[0]`.
    private var pos = 0
    private var base: Int
    private var atEnd = false
    /// The line and column (in characters) of the next byte, for messages.
    private var line = 1
    private var column = 1
    /// Where the last key read by `nextKey` starts: its offset, line and column.
    private var keyPlace = (offset: 0, line: 1, column: 1)
    /// Whether each open container has had no member yet, innermost last.
    private var fresh: [Bool] = []

    package init(_ source: Source, input: String, valueLimit: (bytes: Int, name: String)) {
        self.source = source
        self.input = input
        self.valueLimit = valueLimit
        switch source {
        case .file(_, let from): base = from
        case .bytes(let b): base = 0; window = b; atEnd = true
        }
    }

    /// The document offset of the next byte.
    package var offset: Int { base + pos }

    /// Moves to `offset` of a document in memory (a file is read from an offset by making a reader there).
    package mutating func skip(to offset: Int) throws(CKError) {
        guard case .bytes = source, offset >= 0, offset <= window.count else { throw CKError.internalError("JSONStreamReader: cannot move to byte \(offset)") }
        pos = offset
    }

    // MARK: Structure

    /// Reads the `{` that opens an object (the document, or a member's value).
    package mutating func beginObject() throws(CKError) {
        try skipSpace()
        guard try peek() == UInt8(ascii: "{") else { throw try unexpected("'{' (an object)") }
        advance()
        fresh.append(true)
    }

    /// Whether the next value is an array; if so its `[` is read and its elements follow through `nextElement`.
    package mutating func beginArrayIfAny() throws(CKError) -> Bool {
        try skipSpace()
        guard try peek() == UInt8(ascii: "[") else { return false }
        advance()
        fresh.append(true)
        return true
    }

    /// Whether the next value is an object; if so its `{` is read and its members follow through `nextKey`.
    package mutating func beginObjectIfAny() throws(CKError) -> Bool {
        try skipSpace()
        guard try peek() == UInt8(ascii: "{") else { return false }
        advance()
        fresh.append(true)
        return true
    }

    /// The next member's key of the open object (its `:` read, its value next), or nil at its `}`.
    package mutating func nextKey() throws(CKError) -> String? {
        guard try nextItem(close: UInt8(ascii: "}")) else { return nil }
        guard try peek() == UInt8(ascii: "\"") else { throw try unexpected("a string key") }
        keyPlace = (offset, line, column)
        let at = offset
        guard case .string(let key) = try value() else { throw fail("expected a string key", at: at) }
        try skipSpace()
        guard try peek() == UInt8(ascii: ":") else { throw try unexpected("':' after the key") }
        advance()
        return key
    }

    /// Whether the open array has another element (read it next with `value` or `skipValue`); false at its `]`.
    package mutating func nextElement() throws(CKError) -> Bool {
        try nextItem(close: UInt8(ascii: "]"))
    }

    /// After the document's value: anything but white space is an error.
    package mutating func end() throws(CKError) {
        try skipSpace()
        if try peek() != nil { throw fail("unexpected text after the JSON value", at: offset) }
    }

    /// Reads and parses the next value; with its document offset.
    package mutating func value() throws(CKError) -> JSON {
        let v = try rawValue()
        do { return try JSON.parse(utf8: v.bytes) } catch { throw fail(error, in: v) }
    }

    /// Reads the next value and checks that it is JSON, building nothing.
    package mutating func skipValue() throws(CKError) {
        let v = try rawValue()
        do { try JSON.validate(utf8: v.bytes) } catch { throw fail(error, in: v) }
    }

    private mutating func nextItem(close: UInt8) throws(CKError) -> Bool {
        try skipSpace()
        guard let first = fresh.last else { throw CKError.internalError("JSONStreamReader: no container is open") }
        if try peek() == close {
            advance()
            fresh.removeLast()
            return false
        }
        if !first {
            guard try peek() == UInt8(ascii: ",") else { throw try unexpected("',' or '\(String(UnicodeScalar(close)))'") }
            advance()
            try skipSpace()
        }
        fresh[fresh.count - 1] = false
        return true
    }

    // MARK: Bytes

    /// The next value's bytes, found by its brackets and quotes (parsing checks them), and where it starts.
    private mutating func rawValue() throws(CKError) -> (bytes: [UInt8], start: Int, line: Int, column: Int) {
        try skipSpace()
        let start = offset
        let (startLine, startColumn) = (line, column)
        guard let first = try peek() else { throw cutShort("a value") }
        var out: [UInt8] = []
        var depth = 0, inString = false, escaped = false
        let scalar = first != UInt8(ascii: "{") && first != UInt8(ascii: "[") && first != UInt8(ascii: "\"")
        var done = false
        while !done {
            if pos == window.count {
                guard try refill() else {
                    if scalar && !out.isEmpty { break }
                    throw cutShort(out.isEmpty ? "a value" : "the end of the value that starts at byte \(start)")
                }
            }
            let from = pos
            while pos < window.count {
                let b = window[pos]
                if scalar {
                    if b == UInt8(ascii: ",") || b == UInt8(ascii: "}") || b == UInt8(ascii: "]") || b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 {
                        done = true
                        break
                    }
                    pos += 1
                    continue
                }
                pos += 1
                if inString {
                    if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") {
                        inString = false
                        if depth == 0 { done = true; break }
                    }
                    continue
                }
                switch b {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { done = true }
                default: break
                }
                if done { break }
            }
            out.append(contentsOf: window[from..<pos])
            for b in window[from..<pos] { count(b) }
            if out.count > valueLimit.bytes {
                throw CKError(.limitExceeded, "\(input): the value at byte \(start) is larger than \(valueLimit.bytes) bytes (\(InputLimit.describe(valueLimit.bytes))), \(valueLimit.name)",
                              hint: "nothing was imported")
            }
        }
        return (out, start, startLine, startColumn)
    }

    /// Steps over one structural byte (a bracket, a comma, a colon) that `peek` returned.
    private mutating func advance() {
        count(window[pos])
        pos += 1
    }

    /// Moves the line and column past one byte.
    private mutating func count(_ b: UInt8) {
        if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
    }

    private mutating func skipSpace() throws(CKError) {
        while true {
            while pos < window.count {
                let b = window[pos]
                guard b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 else { return }
                count(b)
                pos += 1
            }
            guard try refill() else { return }
        }
    }

    /// The next byte, or nil at the end of the document.
    private mutating func peek() throws(CKError) -> UInt8? {
        if pos == window.count, try !refill() { return nil }
        return window[pos]
    }

    /// Drops the bytes read and reads up to 64 KB more; false at the end.
    private mutating func refill() throws(CKError) -> Bool {
        guard !atEnd, case .file(let fd, _) = source else { return false }
        base += pos
        pos = 0
        window = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = window.withUnsafeMutableBytes { b in pread(fd, b.baseAddress, b.count, off_t(base)) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw CKError(.invalidArguments, "cannot read \(input): \(String(cString: strerror(errno)))") }
            window.removeSubrange(n...)
            if n == 0 { atEnd = true }
            return n > 0
        }
    }

    // MARK: Errors

    /// The refusal of an invalid document at byte `at` (named with the line and column of the next byte).
    package func fail(_ message: String, at: Int) -> CKError {
        fail(message, at: at, line: line, column: column)
    }

    /// The refusal of the last key read (a duplicate).
    package func failAtKey(_ message: String) -> CKError {
        fail(message, at: keyPlace.offset, line: keyPlace.line, column: keyPlace.column)
    }

    private func fail(_ message: String, at: Int, line: Int, column: Int) -> CKError {
        CKError(.invalidArguments, "\(input):\(line):\(column): invalid JSON at byte \(at): \(message)", hint: "nothing was imported")
    }

    /// A value that does not parse, at the place in the document the parser's error names.
    private func fail(_ error: JSONParseError, in v: (bytes: [UInt8], start: Int, line: Int, column: Int)) -> CKError {
        let at = v.start + JSONStreamReader.offset(of: error, in: v.bytes)
        let line = v.line + error.line - 1
        let column = error.line == 1 ? v.column + error.column - 1 : error.column
        return fail(error.message, at: at, line: line, column: column)
    }

    private mutating func unexpected(_ wanted: String) throws(CKError) -> CKError {
        guard let b = try peek() else { return cutShort(wanted) }
        return fail("expected \(wanted), found '\(String(decoding: [b], as: UTF8.self))'", at: offset)
    }

    private func cutShort(_ wanted: String) -> CKError {
        CKError(.invalidArguments, "\(input):\(line):\(column): the document ends at byte \(offset), expecting \(wanted): it is cut short",
                hint: "nothing was imported")
    }

    /// The byte offset, within `bytes`, of the line and column a parse error names (columns count characters).
    static func offset(of error: JSONParseError, in bytes: [UInt8]) -> Int {
        var line = 1, col = 1, k = 0
        while k < bytes.count, line < error.line || col < error.column {
            if bytes[k] == 0x0A { line += 1; col = 1 } else if bytes[k] & 0xC0 != 0x80 { col += 1 }
            k += 1
        }
        // Past continuation bytes of the character before.
        while k < bytes.count, bytes[k] & 0xC0 == 0x80 { k += 1 }
        return k
    }
}
