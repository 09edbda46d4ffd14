import CKModel

/// CloudKit's limits beyond operation count and record size (reference cloudkit.md §5).
extension CKDatabase {
    /// Largest asset file CloudKit takes (Web Services Data Size Limits: 50 MB).
    public static let maxAssetSize = Asset.maxSize
    /// Record data one request may carry, assets excluded (limitExceeded guideline: 2 MB).
    public static let maxRequestSize = 2 * 1_048_576
    /// Most DELETE_SELF references to one target (a hard limit).
    public static let maxDeleteSelfReferences = 750

    /// The refusal of an asset file over 50 MB, naming the field.
    package static func assetTooLarge(_ path: String, size: Int64) -> CKError { Asset.tooLarge(path, size: size) }
}
