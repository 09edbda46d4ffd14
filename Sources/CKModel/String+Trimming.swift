
extension Substring {
    /// The text without tabs and spaces (Unicode Zs) at either end: what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` keeps, without building a CharacterSet and bridging to NSString,
    /// which in a static binary cost more than the rest of reading a schema.
    public var trimmingBlanks: String {
        let scalars = unicodeScalars
        func blank(_ s: Unicode.Scalar) -> Bool { s == "\t" || s.properties.generalCategory == .spaceSeparator }
        guard let first = scalars.firstIndex(where: { !blank($0) }),
              let last = scalars.lastIndex(where: { !blank($0) }) else { return "" }
        return String(Substring(scalars[first...last]))
    }
}

extension String {
    /// The text without tabs and spaces (Unicode Zs) at either end (see `Substring.trimmingBlanks`).
    public var trimmingBlanks: String { self[...].trimmingBlanks }
}
