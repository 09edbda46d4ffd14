import CKModel

/// One problem found in a model: where, which rule, CloudKit's own message and a fix.
public struct ModelFinding: Sendable, Equatable {
    public enum Severity: String, Sendable { case error, warning }

    public var location: ModelLocation
    public var severity: Severity
    /// A stable rule id, e.g. `attribute-optional-or-default`.
    public var rule: String
    /// What it is about: `Item.title`, `Item`, or a file.
    public var subject: String
    /// One sentence in ck's words.
    public var summary: String
    /// The model validator's message, when CloudKit has one for the rule.
    public var message: String?
    public var fix: String?

    public init(_ severity: Severity, _ rule: String, at location: ModelLocation, subject: String, summary: String,
                message: String? = nil, fix: String? = nil) {
        self.location = location
        self.severity = severity
        self.rule = rule
        self.subject = subject
        self.summary = summary
        self.message = message
        self.fix = fix
    }

    /// The finding as JSON for `-o json`.
    public var json: JSON {
        var o: [String: JSON] = [
            "file": .string(location.file), "line": .int(Int64(location.line)), "column": .int(Int64(location.column)),
            "severity": .string(severity.rawValue), "rule": .string(rule), "subject": .string(subject), "summary": .string(summary),
        ]
        if let message { o["message"] = .string(message) }
        if let fix { o["fix"] = .string(fix) }
        return .object(o)
    }

    /// Findings in reading order: by file, then line and column.
    package static func ordered(_ a: ModelFinding, _ b: ModelFinding) -> Bool {
        if a.location.file != b.location.file { return a.location.file.utf8.lexicographicallyPrecedes(b.location.file.utf8) }
        if a.location.line != b.location.line { return a.location.line < b.location.line }
        if a.location.column != b.location.column { return a.location.column < b.location.column }
        return a.rule < b.rule
    }
}
