
/// The limits of the iCloud key-value store, as Apple documents them for NSUbiquitousKeyValueStore, and the
/// depth ck allows (Apple documents none; see docs/kv.md).
public enum KVLimits {
    /// Keys one user's store may hold.
    public static let maxKeys = 1024
    /// Bytes of all keys and values together.
    public static let maxTotalBytes = 1_048_576
    /// Bytes of one value.
    public static let maxValueBytes = 1_048_576
    /// UTF-8 bytes of a key; a longer key is refused at once, as the API raises.
    public static let maxKeyBytes = 64
    /// Levels of arrays and dictionaries in one value.
    public static let maxDepth = 16

    /// A key: 1 to 64 bytes of UTF-8. Checked when a value is written, before anything is stored.
    public static func validateKey(_ key: String) throws(CKError) {
        guard !key.isEmpty else {
            throw CKError.invalid("empty key: a key-value store key needs 1 to \(maxKeyBytes) bytes of UTF-8")
        }
        let n = key.utf8.count
        guard n <= maxKeyBytes else {
            throw CKError.invalid("key '\(Names.describe(key))' is \(n) bytes of UTF-8; a key-value store key may have at most \(maxKeyBytes)",
                                  hint: "use a shorter key")
        }
    }

    /// Bytes a key and its value count against the store's total.
    public static func pairSize(_ key: String, _ value: KVValue) -> Int { key.utf8.count + value.size }

    /// Why writing `value` under `key` over `live` breaks a quota (keys, total, one value), or nil when it fits.
    public static func violation(key: String, value: KVValue, live: [String: KVValue]) -> String? {
        let size = value.size
        if size > maxValueBytes {
            return "the value of '\(key)' is \(size) bytes; one value may hold at most \(maxValueBytes)"
        }
        if live[key] == nil && live.count >= maxKeys {
            return "the store already holds \(live.count) keys, the most it may hold; '\(key)' would be key \(live.count + 1)"
        }
        var total = pairSize(key, value)
        for (k, v) in live where k != key { total += pairSize(k, v) }
        if total > maxTotalBytes {
            return "with '\(key)' the store would hold \(total) bytes; all keys and values together may hold at most \(maxTotalBytes)"
        }
        return nil
    }
}
