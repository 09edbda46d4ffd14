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
}
