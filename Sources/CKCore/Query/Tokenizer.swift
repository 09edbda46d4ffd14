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

    /// The tokens of a text, in order, without stop words.
    public static func tokens(_ text: String) -> [String] {
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
}
