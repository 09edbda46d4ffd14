extension StoredRecord {
    /// A user field's value as the scan left it: the common types as their JSON text, the others decoded.
    package enum Value {
        /// A STRING's body (between the quotes), still JSON-escaped.
        case string(Range<Int>)
        /// An INT64's digits.
        case int64(Range<Int>)
        case timestamp(Int64)
        /// A list's items (between the brackets) and their type: strings, INT64s or TIMESTAMPs.
        case list(Range<Int>, FieldType.Base)
        case decoded(FieldValue)
    }

    /// Calls `body` with each user field in stored order: its name (ASCII, no escapes) and its value. The scan
    /// checked every byte of the fields, so this walk only finds where each one is.
    package func forEachField(_ body: (_ key: Range<Int>, _ value: Value) -> Void) {
        let b = bytes
        var i = fields.lowerBound
        var next = 0
        while i < fields.upperBound {
            // "key":
            let keyEnd = ByteSearch.first(UInt8(ascii: "\""), in: b, from: i + 1) ?? fields.upperBound
            let key = i + 1..<keyEnd
            let field = keyEnd + 2
            if next < decoded.count, decoded[next].field.lowerBound == field {
                body(key, .decoded(decoded[next].value))
                i = decoded[next].field.upperBound + 1
                next += 1
                continue
            }
            // {"value":V,"type":"T"}
            let v = field + #"{"value":"#.utf8.count
            let end: Int
            switch b[v] {
            case UInt8(ascii: "\""): end = StoredRecord.stringEnd(b, from: v)
            case UInt8(ascii: "["): end = StoredRecord.listEnd(b, from: v)
            default: end = ByteSearch.first(UInt8(ascii: ","), in: b, from: v) ?? fields.upperBound
            }
            let t = end + #","type":""#.utf8.count
            let typeEnd = ByteSearch.first(UInt8(ascii: "\""), in: b, from: t) ?? fields.upperBound
            // The scan let only STRING, INT64, TIMESTAMP and their lists through here: the first letter and the
            // length tell them apart.
            let isList = typeEnd - t > 9
            let base: FieldType.Base = b[t] == UInt8(ascii: "S") ? .string : b[t] == UInt8(ascii: "I") ? .int64 : .timestamp
            if isList {
                body(key, .list(v + 1..<end - 1, base))
            } else {
                switch base {
                case .string: body(key, .string(v + 1..<end - 1))
                case .int64: body(key, .int64(v..<end))
                default: body(key, .timestamp(StoredRecord.integer(b[v..<end])))
                }
            }
            // "}" and the "," before the next field.
            i = typeEnd + 3
        }
    }

    /// Calls `body` with each item of a list's text (`Value.list`): a string's body (still escaped) or an
    /// integer's digits.
    package func forEachItem(_ items: Range<Int>, _ body: (Range<Int>) -> Void) {
        let b = bytes
        var i = items.lowerBound
        while i < items.upperBound {
            if b[i] == UInt8(ascii: "\"") {
                let end = StoredRecord.stringEnd(b, from: i)
                body(i + 1..<end - 1)
                i = end + 1
            } else {
                let end = min(ByteSearch.first(UInt8(ascii: ","), in: b, from: i) ?? items.upperBound, items.upperBound)
                body(i..<end)
                i = end + 1
            }
        }
    }

    /// The value of an integer's digits (the scan checked them).
    package static func integer(_ digits: ArraySlice<UInt8>) -> Int64 {
        var v: Int64 = 0
        let negative = digits.first == UInt8(ascii: "-")
        for c in digits.dropFirst(negative ? 1 : 0) { v = v * 10 + Int64(c - 48) }
        return negative ? -v : v
    }

    /// Just past the closing quote of the string that opens at `start`: memchr to each quote, kept when an even
    /// number of backslashes comes before it (byte at a time cost more than the rest of the walk).
    static func stringEnd(_ b: ArraySlice<UInt8>, from start: Int) -> Int {
        var j = start + 1
        while let q = ByteSearch.first(UInt8(ascii: "\""), in: b, from: j) {
            var slashes = 0
            while b[q - 1 - slashes] == UInt8(ascii: "\\") { slashes += 1 }
            if slashes % 2 == 0 { return q + 1 }
            j = q + 1
        }
        return b.endIndex
    }

    /// Just past the closing bracket of the list of strings or integers that opens at `start`.
    static func listEnd(_ b: ArraySlice<UInt8>, from start: Int) -> Int {
        var j = start + 1
        while b[j] != UInt8(ascii: "]") { j = b[j] == UInt8(ascii: "\"") ? stringEnd(b, from: j) : j + 1 }
        return j + 1
    }
}
