
/// URL-safe base64 without padding: opaque tokens that survive shells and URLs unquoted. Written out rather than
/// through Foundation's Data and replacingOccurrences, which cost a twentieth of a query page in a static binary.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            out.append(alphabet[Int(n >> 6 & 63)]); out.append(alphabet[Int(n & 63)])
            i += 3
        }
        let rest = bytes.count - i
        if rest > 0 {
            let n = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
            out.append(alphabet[Int(n >> 18 & 63)]); out.append(alphabet[Int(n >> 12 & 63)])
            if rest == 2 { out.append(alphabet[Int(n >> 6 & 63)]) }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of a token; nil when it is not URL-safe base64 (padding is accepted, as before).
    package static func decode(_ text: String) -> [UInt8]? {
        var values: [UInt8] = []
        values.reserveCapacity(text.utf8.count)
        var padding = 0
        for c in text.utf8 {
            if c == UInt8(ascii: "=") { padding += 1; continue }
            // Nothing may follow padding.
            guard padding == 0, let v = value(c) else { return nil }
            values.append(v)
        }
        // Four characters carry three bytes; a lone sixth bit pattern (one left over) is no encoding.
        guard values.count % 4 != 1, (values.count + padding) % 4 == 0 || padding == 0 else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(values.count * 3 / 4)
        var i = 0
        while i + 4 <= values.count {
            let n = UInt32(values[i]) << 18 | UInt32(values[i + 1]) << 12 | UInt32(values[i + 2]) << 6 | UInt32(values[i + 3])
            out.append(UInt8(n >> 16 & 0xFF)); out.append(UInt8(n >> 8 & 0xFF)); out.append(UInt8(n & 0xFF))
            i += 4
        }
        let rest = values.count - i
        if rest >= 2 {
            let n = UInt32(values[i]) << 18 | UInt32(values[i + 1]) << 12 | (rest == 3 ? UInt32(values[i + 2]) << 6 : 0)
            out.append(UInt8(n >> 16 & 0xFF))
            if rest == 3 { out.append(UInt8(n >> 8 & 0xFF)) }
        }
        return out
    }

    private static func value(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return c - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return c - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0") + 52
        // The standard alphabet's two characters are read too, as the Foundation decoder before this one did.
        case UInt8(ascii: "-"), UInt8(ascii: "+"): return 62
        case UInt8(ascii: "_"), UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
