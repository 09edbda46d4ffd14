import Foundation
import CKModel

/// Splits text into search tokens as CloudKit's token index does: case- and diacritic-folded words,
/// stop words dropped.
public enum Tokenizer {
    /// Words CloudKit's full-text search ignores.
    public static let stopWords: Set<String> = [
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
        "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
        "will", "with",
    ]

    /// The longest stop word: a longer word needs no lookup.
    package static let longestStopWord = 5

    /// The tokens of a text, in order, without stop words.
    public static func tokens(_ text: String) -> [String] {
        var out: [String] = []
        forEachToken(text) { out.append($0); return true }
        return out
    }

    /// Calls `body` with each token of a text, in order, while it returns true.
    package static func forEachToken(_ text: String, _ body: (String) -> Bool) {
        forEachTokenBytes(text) { body(String(decoding: $0, as: UTF8.self)) }
    }

    /// Calls `body` with each token's UTF-8 bytes, in order, while it returns true (the bytes are valid only
    /// during the call).
    package static func forEachTokenBytes(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) {
        if asciiTokens(text, body) { return }
        for t in foldedTokens(text) {
            var t = t
            if !t.withUTF8(body) { return }
        }
    }

    /// The general path: Foundation folds case and diacritics, and words are runs of letters and digits.
    package static func foldedTokens(_ text: String) -> [String] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        var out: [String] = []
        var word = ""
        for ch in folded {
            if ch.isLetter || ch.isNumber {
                word.append(ch)
            } else if !word.isEmpty {
                if !stopWords.contains(word) { out.append(word) }
                word = ""
            }
        }
        if !word.isEmpty && !stopWords.contains(word) { out.append(word) }
        return out
    }

    /// The tokens of ASCII text (nil for other text), as the general path makes them.
    package static func asciiTokens(_ text: String) -> [String]? {
        var out: [String] = []
        return asciiTokens(text) { out.append(String(decoding: $0, as: UTF8.self)); return true } ? out : nil
    }

    /// The same tokens for ASCII text, read from its bytes: folding ASCII only lowercases it, and its only
    /// letters and digits are A–Z, a–z and 0–9 (`QueryPlannerTests` checks this against the general path). Most
    /// text is ASCII, and folding through Foundation costs thousands of instructions a word. False, having
    /// called `body` with nothing, for other text.
    private static func asciiTokens(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
            guard isASCII(bytes) else { return false }
            var start = -1
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: bytes.count + 1) { lower in
                for i in 0...bytes.count {
                    let b = i < bytes.count ? bytes[i] : 0
                    switch b {
                    case 0x30...0x39, 0x61...0x7A:
                        lower[i] = b
                        if start < 0 { start = i }
                    case 0x41...0x5A:
                        lower[i] = b | 0x20
                        if start < 0 { start = i }
                    default:
                        guard start >= 0 else { continue }
                        let word = UnsafeBufferPointer(rebasing: lower[start..<i])
                        start = -1
                        if word.count <= longestStopWord && isStopWord(word) { continue }
                        if !body(word) { return }
                    }
                }
            }
            return true
        }
    }

    /// Whether every byte is below 0x80, read eight at a time.
    package static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let raw = UnsafeRawBufferPointer(bytes)
        var i = 0
        while i + 8 <= raw.count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i += 8
        }
        while i < raw.count {
            if raw[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The stop words as numbers (bytes, first in the high byte), sorted, so a short word is found without hashing.
    package static let stopWordCodes: [UInt64] = stopWords.map { code(Array($0.utf8)[...]) }.sorted()

    package static func code<C: Collection>(_ bytes: C) -> UInt64 where C.Element == UInt8 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }

    package static func isStopWord(_ word: UnsafeBufferPointer<UInt8>) -> Bool {
        let c = code(word)
        var lo = 0, hi = stopWordCodes.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if stopWordCodes[mid] < c { lo = mid + 1 } else { hi = mid }
        }
        return lo < stopWordCodes.count && stopWordCodes[lo] == c
    }
}
