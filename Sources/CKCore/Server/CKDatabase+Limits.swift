/// CloudKit's limits beyond operation count and record size (reference cloudkit.md §5).
extension CKDatabase {
    /// Largest asset file CloudKit takes (Web Services Data Size Limits: 50 MB).
    public static let maxAssetSize: Int64 = 50 * 1_048_576
    /// Record data one request may carry, assets excluded (limitExceeded guideline: 2 MB).
    public static let maxRequestSize = 2 * 1_048_576
    /// Most DELETE_SELF references to one target (a hard limit).
    public static let maxDeleteSelfReferences = 750

    /// The refusal of an asset file over 50 MB, naming the field.
    static func assetTooLarge(_ path: String, size: Int64) -> CKError {
        CKError(.limitExceeded, "\(path): the asset is \(size) bytes; CloudKit takes assets of at most \(maxAssetSize) bytes (50 MB)",
                hint: "split the data over several asset fields or records")
    }
}
