
extension Asset {
    /// Largest asset file CloudKit takes (Web Services Data Size Limits: 50 MB).
    public static let maxSize: Int64 = 50 * 1_048_576

    /// The refusal of an asset file over 50 MB, naming the field.
    package static func tooLarge(_ path: String, size: Int64) -> CKError {
        CKError(.limitExceeded, "\(path): the asset is \(size) bytes; CloudKit takes assets of at most \(maxSize) bytes (50 MB)",
                hint: "split the data over several asset fields or records")
    }
}
