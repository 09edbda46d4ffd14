import Foundation

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
    static let longestStopWord = 5

    /// The tokens of a text, in order, without stop words.
    public static func tokens(_ text: String) -> [String] {
        if let ascii = asciiTokens(text) { return ascii }
        return foldedTokens(text)
    }

    /// The general path: Foundation folds case and diacritics, and words are runs of letters and digits.
    static func foldedTokens(_ text: String) -> [String] {
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

    /// The same tokens for ASCII text, read from its bytes: folding ASCII only lowercases it, and its only
    /// letters and digits are A–Z, a–z and 0–9 (`QueryPlannerTests` checks this against the general path). Most
    /// text is ASCII, and folding through Foundation costs thousands of instructions a word. nil for other text.
    static func asciiTokens(_ text: String) -> [String]? {
        var text = text
        return text.withUTF8 { (bytes: UnsafeBufferPointer<UInt8>) -> [String]? in
            var out: [String] = []
            var word = [UInt8](repeating: 0, count: 0)
            word.reserveCapacity(32)
            func flush() {
                guard !word.isEmpty else { return }
                let w = String(decoding: word, as: UTF8.self)
                if word.count > longestStopWord || !stopWords.contains(w) { out.append(w) }
                word.removeAll(keepingCapacity: true)
            }
            for b in bytes {
                switch b {
                case 0x30...0x39, 0x61...0x7A: word.append(b)
                case 0x41...0x5A: word.append(b | 0x20)
                case 0x80...: return nil
                default: flush()
                }
            }
            flush()
            return out
        }
    }
}
