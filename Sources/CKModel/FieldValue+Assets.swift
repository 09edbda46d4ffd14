/// The assets (and references) a value refers to.
extension FieldValue {
    /// Adds the SHA-256 of every asset in this value (an asset, or a list of them) to `set`.
    package func collectAssetHashes(into set: inout Set<String>) {
        switch self {
        case .asset(let a): set.insert(a.sha256)
        case .list(_, let items): for i in items { i.collectAssetHashes(into: &set) }
        default: break
        }
    }

    /// Whether the value is or holds (in its list) a reference or an asset: only such values have anything for a
    /// save to check beyond their type (their target, their bytes, the DELETE_SELF limit).
    package var holdsReferenceOrAsset: Bool {
        switch self {
        case .reference, .asset: return true
        case .list(_, let items): return items.contains { $0.holdsReferenceOrAsset }
        default: return false
        }
    }
}
