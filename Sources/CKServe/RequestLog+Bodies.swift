import Foundation

/// The bodies a request log entry keeps: text cut at `maxBodyText` bytes, a size for bytes that are not text, and
/// never a secret (web auth tokens, wherever they appear, become `"<redacted>"`).
extension RequestLog {
    /// The most of each body an entry keeps, in bytes.
    public static let maxBodyText = 16 * 1024
    /// What a secret is replaced with.
    static let redacted = "<redacted>"
    /// JSON keys whose string values are secrets: the sign-in answer's `ckSession`, and web auth tokens by any of
    /// the names clients use for them.
    static let secretKeys = ["ckSession", "ckWebAuthToken", "webAuthToken", "sessionToken"]
    /// The query parameter a web auth token may travel in.
    static let tokenParameter = "ckWebAuthToken"
}

extension RequestLog.Entry {
    /// Keeps the request's and the response's bodies, and removes secrets from everything the entry keeps: the web
    /// auth token the request sent (query, header, or inside the path), the one the response hands back, an S2S
    /// signature; and the values of `secretKeys` in the bodies.
    mutating func keepBodies(request: HTTPRequest, response: HTTPResponse) {
        // A read of the log is not logged: no need to copy its (large) answer.
        if RequestLog.isLogRead(method: method, path: path) { return }
        var secrets: [String] = []
        for value in [request.query[RequestLog.tokenParameter], request.header(Authenticator.webTokenHeader),
                      request.header(Authenticator.signatureHeader), response.header(Authenticator.webTokenHeader)] + RequestLog.tokens(inPath: path) {
            // A token sent unencoded in the query had its `+` decoded as a space.
            guard let v = value?.replacingOccurrences(of: " ", with: "+"), v.utf8.count >= RequestLog.minSecretLength else { continue }
            for form in [v, v.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? v] where !secrets.contains(form) {
                secrets.append(form)
            }
        }
        if !secrets.isEmpty {
            path = RequestLog.scrub(path, secrets)
            operation = operation.map { RequestLog.scrub($0, secrets) }
            reason = reason.map { RequestLog.scrub($0, secrets) }
        }
        (requestBody, requestBodyTruncated) = RequestLog.text(request.body, secrets: secrets)
        (responseBody, responseBodyTruncated) = response.stream == nil ? RequestLog.text(response.body, secrets: secrets) : ("", false)
    }
}

extension RequestLog {
    /// A body as kept: `""` when empty; `"<N bytes>"` when it is not UTF-8 (an asset); else its text with secrets
    /// redacted, cut at `maxBodyText` bytes on a character boundary (and whether it was cut).
    static func text(_ body: [UInt8], secrets: [String]) -> (String, Bool) {
        if body.isEmpty { return ("", false) }
        // Secrets are redacted before the cut, over a little more than is kept, so no token is kept in part.
        let margin = 512
        let head = prefix(body, maxBodyText + margin)
        guard let whole = String(validating: body[..<head], as: UTF8.self) else { return ("<\(body.count) bytes>", false) }
        let text = redactingKeys(scrub(whole, secrets))
        let utf8 = Array(text.utf8)
        let cut = head < body.count || utf8.count > maxBodyText
        guard cut else { return (text, false) }
        let end = prefix(utf8, maxBodyText)
        return (String(decoding: utf8[..<end], as: UTF8.self), true)
    }

    /// How many of `bytes`' first bytes make at most `limit` bytes without splitting a UTF-8 sequence.
    static func prefix(_ bytes: [UInt8], _ limit: Int) -> Int {
        guard bytes.count > limit else { return bytes.count }
        var end = limit
        // A continuation byte (10xxxxxx) at the cut belongs to the character before it: cut before that one.
        while end > 0 && end > limit - 4 && bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return end
    }

    /// A JSON text with the string value of every `secretKeys` key replaced by `"<redacted>"`, formatting kept. A
    /// value cut off by the end of the text is redacted to the end. This runs on every logged body: one pass over
    /// the text's own bytes, and a copy only when there is something to redact.
    static func redactingKeys(_ text: String) -> String {
        var t = text
        let values = t.withUTF8 { secretValues(in: $0) }
        guard !values.isEmpty else { return text }
        var bytes = Array(t.utf8)
        // From the last to the first, so the earlier ranges stay where they were.
        for range in values.reversed() { bytes.replaceSubrange(range, with: redactedBytes) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Where the string values of `secretKeys` keys lie in a JSON text, in order.
    static func secretValues(in bytes: UnsafeBufferPointer<UInt8>) -> [Range<Int>] {
        var found: [Range<Int>] = []
        let quote = UInt8(ascii: "\""), backslash = UInt8(ascii: "\\")
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
        /// The end of the string whose contents start at `i`: its closing quote, or the end of the text.
        func stringEnd(_ from: Int) -> Int {
            var j = from
            while j < bytes.count, bytes[j] != quote { j += bytes[j] == backslash ? 2 : 1 }
            return min(j, bytes.count)
        }
        var i = 0
        while i < bytes.count {
            guard bytes[i] == quote else { i += 1; continue }
            // A key is a string followed by `:`; strings are skipped whole, so a quote inside one is not a key's.
            let end = stringEnd(i + 1)
            let name = UnsafeBufferPointer(rebasing: bytes[(i + 1)..<end])
            i = end + 1
            guard secretKeyBytes.contains(where: { $0.elementsEqual(name) }) else { continue }
            var k = i
            while k < bytes.count, isSpace(bytes[k]) { k += 1 }
            guard k < bytes.count, bytes[k] == UInt8(ascii: ":") else { continue }
            k += 1
            while k < bytes.count, isSpace(bytes[k]) { k += 1 }
            guard k < bytes.count, bytes[k] == quote else { continue }
            let valueEnd = stringEnd(k + 1)
            found.append((k + 1)..<valueEnd)
            i = valueEnd + 1
        }
        return found
    }

    private static let secretKeyBytes = secretKeys.map { Array($0.utf8) }
    private static let redactedBytes = Array(redacted.utf8)

    /// The shortest value taken for a secret: a shorter one (no real token) would redact ordinary text.
    static let minSecretLength = 8

    /// `text` with every secret replaced by `"<redacted>"`.
    static func scrub(_ text: String, _ secrets: [String]) -> String {
        var t = text
        for secret in secrets where t.contains(secret) { t = t.replacingOccurrences(of: secret, with: redacted) }
        return t
    }

    /// The values of `ckWebAuthToken` parameters inside a path (a client that escaped the `?`), as sent and
    /// decoded: each ends at `&`, `/` or an escaped `&`.
    static func tokens(inPath path: String) -> [String?] {
        // Web Services paths hold no `=`, escaped or not: most paths need no search.
        guard path.utf8.contains(UInt8(ascii: "=")) || path.utf8.contains(UInt8(ascii: "%")) else { return [] }
        var found: [String?] = []
        var rest = Substring(path)
        while let r = rest.range(of: tokenParameter + "=", options: .caseInsensitive) ?? rest.range(of: tokenParameter + "%3D", options: .caseInsensitive) {
            var value = rest[r.upperBound...]
            if let end = value.firstIndex(where: { $0 == "&" || $0 == "/" }) { value = value[..<end] }
            if let amp = value.range(of: "%26", options: .caseInsensitive) { value = value[..<amp.lowerBound] }
            found.append(String(value))
            found.append(HTTPRequest.percentDecoded(value))
            rest = rest[value.endIndex...]
        }
        return found
    }
}
