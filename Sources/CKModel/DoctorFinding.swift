/// One thing `ck doctor` found in a store.
public struct DoctorFinding: Sendable {
    public enum Severity: String, Sendable { case problem, warning }
    public var severity: Severity
    /// The file (and line) concerned, as `path` or `path:line`.
    public var place: String
    public var message: String
    /// What to do about it (or what --repair did).
    public var fix: String
    public var repaired: Bool

    package init(severity: Severity, place: String, message: String, fix: String, repaired: Bool) {
        self.severity = severity
        self.place = place
        self.message = message
        self.fix = fix
        self.repaired = repaired
    }

    public var json: JSON {
        .object(["severity": .string(severity.rawValue), "place": .string(place), "message": .string(message),
                 "fix": .string(fix), "repaired": .bool(repaired)])
    }
}
