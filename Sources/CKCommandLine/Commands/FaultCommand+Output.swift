import CKCore

extension FaultCommand {
    /// One fault rule: `{"id", "error", "code", "op", "after", "seen", "fired", "afterCommit"}`, plus `recordType`,
    /// `recordName`, `zone`, `database`, `user`, `timesLeft`, `probability` and `seed` (a string) when set, and
    /// `retryAfter` for a retryable error.
    struct Rule {
        var rule: FaultRule

        init(_ rule: FaultRule) { self.rule = rule }

        /// The same JSON as the control plane's `/_ck/faults` (`FaultRule.json`).
        var json: JSON { rule.json }

        /// The rule's columns: ID, ERROR, MATCHES, FIRES, FIRED.
        var cells: [String] { [rule.id, rule.error.name, matching(rule), how(rule), String(rule.fired)] }
    }

    /// `fault add`: the rule added.
    struct Added: OutcomeOutput {
        var rule: Rule

        var json: JSON { rule.json }
        var line: String { rule.rule.id }
        var sentence: String { "Added fault \(rule.rule.id): \(describe(rule.rule))" }
    }

    /// `fault list`: `{"faults": [Rule]}`; jsonl: one rule a line.
    struct List: CommandOutput {
        var rules: [Rule]

        var json: JSON { .object(["faults": .array(rules.map(\.json))]) }
        var jsonLines: [JSON] { rules.map(\.json) }
        var plain: [String] { rules.map { $0.cells.joined(separator: "\t") } }
        var table: String {
            if rules.isEmpty { return "No fault rules.\n" }
            var t = Table(["ID", "ERROR", "MATCHES", "FIRES", "FIRED"])
            for r in rules { t.add(r.cells) }
            return t.aligned()
        }
    }

    /// `fault clear`: `{"cleared": [id]}`.
    struct Cleared: OutcomeOutput {
        var ids: [String]

        var json: JSON { .object(["cleared": .array(ids.map { .string($0) })]) }
        var line: String { ids.joined(separator: "\n") }
        var sentence: String {
            ids.isEmpty ? "No fault rules to clear" : "Cleared \(ids.count) fault rule\(ids.count == 1 ? "" : "s"): " + ids.joined(separator: ", ")
        }
    }
}
