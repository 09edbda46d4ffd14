import CKCore

extension FaultCommand {
    /// One fault rule: `{"id", "error", "code", "op", "after", "seen", "fired", "afterCommit"}`, plus `recordType`,
    /// `recordName`, `zone`, `database`, `user`, `timesLeft`, `probability` and `seed` (a string) when set, and
    /// `retryAfter` for a retryable error.
    struct Rule {
        var rule: FaultRule

        init(_ rule: FaultRule) { self.rule = rule }

        var json: JSON {
            let r = rule
            var o: [String: JSON] = ["id": .string(r.id), "error": .string(r.error.name), "code": .int(Int64(r.error.rawValue)),
                                     "op": .string(r.op.rawValue), "after": .int(Int64(r.after)), "seen": .int(Int64(r.seen)),
                                     "fired": .int(Int64(r.fired)), "afterCommit": .bool(r.afterCommit)]
            if let v = r.recordType { o["recordType"] = .string(v) }
            if let v = r.recordName { o["recordName"] = .string(v) }
            if let v = r.zone { o["zone"] = .string(v) }
            if let v = r.database { o["database"] = .string(v.rawValue) }
            if let v = r.user { o["user"] = .string(v) }
            if FaultRule.retryable.contains(r.error) { o["retryAfter"] = .double(r.retryAfter ?? FaultRule.defaultRetryAfter) }
            if let v = r.times { o["timesLeft"] = .int(Int64(v)) }
            if let v = r.probability { o["probability"] = .double(v) }
            if let v = r.seed { o["seed"] = .string(String(v)) }
            return .object(o)
        }

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
