/// A warning or problem met on the way — a torn line dropped, an interrupted operation finished, a notification
/// that could not be matched, a broken file doctor found — with where it was met and what to do about it. Results
/// carry these typed values; the command line prints them, doctor lists them.
public struct Diagnostic: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable { case problem, warning }
    public var severity: Severity
    /// The file (and line) concerned, as `path` or `path:line`; nil when no file is.
    public var place: String?
    public var message: String
    /// What to do about it.
    public var hint: String?

    public init(_ severity: Severity, place: String?, _ message: String, hint: String? = nil) {
        self.severity = severity
        self.place = place
        self.message = message
        self.hint = hint
    }

    /// A warning.
    public init(place: String? = nil, _ message: String, hint: String? = nil) {
        self.init(.warning, place: place, message, hint: hint)
    }

    /// As a one-line message: `place: message`.
    public var description: String { place.map { "\($0): \(message)" } ?? message }
}
