/// How data is printed on stdout.
public enum OutputFormat: String, CaseIterable, Sendable {
    /// Aligned, for people (the default on a terminal).
    case table
    /// JSON documents (pretty-printed), a versioned promise.
    case json
    /// One compact JSON object per line.
    case jsonl
    /// Tab-separated lines for scripts (the default when piped).
    case plain
    /// Only names, one per line, for xargs.
    case name

    /// json or jsonl: a document rather than text.
    var isJSON: Bool { self == .json || self == .jsonl }

    /// The commands `-o name` works for, and the names they print; the others refuse it as a usage error.
    static let names: [(command: String, prints: String)] = [
        ("ck record save", "record names (saved and deleted)"),
        ("ck record fetch", "record names"),
        ("ck record delete", "record names deleted"),
        ("ck query", "record names"),
        ("ck record list", "record names"),
        ("ck changes zone", "record names saved or deleted"),
        ("ck changes database", "zone names"),
        ("ck share list", "share record names"),
        ("ck share create", "the share record's name"),
        ("ck share show", "the share record's name"),
        ("ck share invite", "the share record's name"),
        ("ck share remove", "the share record's name"),
        ("ck share update", "the share record's name"),
        ("ck share delete", "the share record's name"),
        ("ck share resolve", "the share record's name"),
        ("ck share accept", "the share record's name"),
        ("ck share leave", "the share record's name"),
        ("ck zone create", "the zone name"),
        ("ck zone list", "zone names"),
        ("ck zone show", "the zone name"),
        ("ck zone delete", "the zone name"),
        ("ck zone purge", "the zone name"),
        ("ck subscription create query", "the subscription ID"),
        ("ck subscription create zone", "the subscription ID"),
        ("ck subscription create database", "the subscription ID"),
        ("ck subscription list", "subscription IDs"),
        ("ck subscription show", "the subscription ID"),
        ("ck subscription delete", "subscription IDs deleted"),
        ("ck notification list", "notification IDs"),
        ("ck notification read", "notification IDs marked read"),
        ("ck device list", "device names"),
        ("ck device show", "the device name"),
        ("ck device delete", "the device name"),
        ("ck device records", "record names"),
        ("ck device save", "the record name"),
        ("ck device remove", "the record name"),
    ]
}
