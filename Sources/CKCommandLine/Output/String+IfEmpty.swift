extension String {
    /// The string, or `other` when it is empty.
    func ifEmpty(_ other: String) -> String { isEmpty ? other : self }
}
