/// One thing `ck doctor` found in a store: a diagnostic, and whether `--repair` dealt with it.
public struct DoctorFinding: Sendable {
    public typealias Severity = Diagnostic.Severity
    public var diagnostic: Diagnostic
    public var repaired: Bool

    package init(severity: Severity, place: String, message: String, fix: String, repaired: Bool) {
        diagnostic = Diagnostic(severity, place: place, message, hint: fix)
        self.repaired = repaired
    }

    public var severity: Severity { diagnostic.severity }
    /// The file (and line) concerned, as `path` or `path:line`.
    public var place: String { diagnostic.place ?? "" }
    public var message: String { diagnostic.message }
    /// What to do about it (or what --repair did).
    public var fix: String { diagnostic.hint ?? "" }

    public var json: JSON {
        .object(["severity": .string(severity.rawValue), "place": .string(place), "message": .string(message),
                 "fix": .string(fix), "repaired": .bool(repaired)])
    }
}
