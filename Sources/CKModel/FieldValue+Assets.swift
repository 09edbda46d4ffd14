/// The assets a value refers to.
extension FieldValue {
    /// Adds the SHA-256 of every asset in this value (an asset, or a list of them) to `set`.
    package func collectAssetHashes(into set: inout Set<String>) {
        switch self {
        case .asset(let a): set.insert(a.sha256)
        case .list(_, let items): for i in items { i.collectAssetHashes(into: &set) }
        default: break
        }
    }
}
