import CKCore

/// `ck fault`: injected server refusals (faults.json of the environment), consumed by every operation's fault stage.
enum FaultCommand {
    // Closures, not key paths: a key path is built at run time from mangled names, which costs start-up.
    static let errorNames = FaultRule.injectable.map { $0.name }
    static let opNames = FaultRule.Op.allCases.map { $0.rawValue }

    static let spec = CommandSpec(
        "fault", summary: "Inject CloudKit errors: add, list and clear fault rules.",
        discussion: "A rule makes matching operations of the environment (-e) fail with a CloudKit error, as a client would see it, before anything is written. Rules are checked in order at every operation and consumed under the store's lock, so a --times 1 rule fires exactly once across parallel ck processes; a --probability rule draws from its seed, so it gives the same sequence on every run. The global --zone, --db and --as given on the 'fault add' line (not their environment variables) narrow the rule to that zone, database and user. --type and --record target records inside save and delete requests: in a batch, those records fail (partialFailure) and, in an atomic zone, the others answer batchRequestFailed. requestRateLimited, zoneBusy, serviceUnavailable and accountTemporarilyUnavailable carry retryAfter (exit 5); once a requestRateLimited, zoneBusy or serviceUnavailable rule (or any rule given --retry-after) fires, it keeps refusing until its retryAfter has passed on the store's clock (see 'ck clock'), each refusal carrying the time left, and --times counts such windows. networkUnavailable and networkFailure fail before the request reaches the server; networkFailure --after-commit applies the request and loses its response. See 'ck help faults'.",
        examples: [("ck fault add --error requestRateLimited --times 2 --retry-after 1", "Throttle the next two operations."),
                   ("ck fault add --error quotaExceeded --op save --type Photo", "Refuse saves of Photo records."),
                   ("ck fault add --error networkFailure --after-commit --op save --times 1", "Apply the next save and lose its response."),
                   ("ck fault list", "The rules, with how often each fired."),
                   ("ck fault clear", "Remove every rule.")],
        subcommands: [
            CommandSpec("add", summary: "Add a fault rule.",
                        options: [
                            OptionSpec("error", value: "name", help: "The CloudKit error to answer (CKError code name).", choices: errorNames),
                            OptionSpec("op", value: "op", help: "Operations to match (default: any).", choices: opNames),
                            OptionSpec("type", value: "type", help: "Only records of this type in save and delete requests.", completion: .recordType),
                            OptionSpec("record", value: "name", help: "Only this record in save and delete requests.", completion: .recordName),
                            OptionSpec("retry-after", value: "seconds", help: "retryAfter of a retryable error (default: 2).", rule: .number(min: 0)),
                            OptionSpec("times", value: "n", help: "Fire n times (a throttle: n windows), then it goes (default: every time).", rule: .integer(min: 1)),
                            OptionSpec("probability", value: "p", help: "Fire with probability p (0 to 1) at each matching operation.",
                                       rule: .number(min: 0, max: 1)),
                            OptionSpec("seed", value: "n", help: "Seed of the --probability draws (default: chosen once and kept)."),
                            OptionSpec("after", value: "n", help: "Let n matching operations through first.", rule: .integer(min: 0)),
                            OptionSpec("after-commit", help: "networkFailure only: apply the operation, then lose the response."),
                            OptionSpec("id", value: "id", help: "Rule ID (default: f1, f2, …)."),
                        ],
                        run: add),
            CommandSpec("list", summary: "List the fault rules of the environment.", run: list),
            CommandSpec("clear", summary: "Remove one fault rule, or all of them.",
                        arguments: [ArgumentSpec("id", help: "Rule ID (default: every rule).", optional: true, completion: .fault)],
                        run: clear),
        ])

    /// An option's value as a number; the parser has checked the ones with a rule (--seed may exceed Int).
    static func number<T: LosslessStringConvertible>(_ inv: Invocation, _ option: String, _ what: String) throws -> T? {
        guard let text = inv.parsed.value(option) else { return nil }
        guard let v = T(text) else { throw UsageError("invalid value '\(text)' for --\(option): expected \(what)", command: inv.command.path) }
        return v
    }

    static func add(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("add takes options only", command: inv.command.path) }
        guard let name = inv.parsed.value("error") else {
            throw UsageError("--error is required; one of " + errorNames.joined(separator: ", "), command: inv.command.path)
        }
        // --error's choices are checked by the parser.
        guard let code = CKError.Code(name: name) else { throw UsageError("unknown error '\(name)'", command: inv.command.path) }
        var rule = FaultRule(id: inv.parsed.value("id") ?? "", error: code)
        rule.op = inv.parsed.value("op").flatMap(FaultRule.Op.init(rawValue:)) ?? .any
        rule.recordType = inv.parsed.value("type")
        rule.recordName = inv.parsed.value("record")
        rule.zone = inv.parsed.value("zone")
        rule.database = inv.parsed.value("db").flatMap(DatabaseScope.init(rawValue:))
        rule.user = inv.parsed.value("as")
        rule.retryAfter = try number(inv, "retry-after", "a number of seconds")
        rule.times = try number(inv, "times", "a whole number of times (1 or more)")
        rule.probability = try number(inv, "probability", "a number between 0 and 1")
        rule.seed = try number(inv, "seed", "a whole number from 0 to \(UInt64.max)")
        rule.after = try number(inv, "after", "a whole number of operations") ?? 0
        rule.afterCommit = inv.parsed.flag("after-commit")
        let stored = try inv.container().addFault(rule, environment: try inv.environment())
        try inv.emit(Added(rule: Rule(stored)))
        return ExitCode.success
    }

    /// What the rule matches, in words: `save of Note in Notes`.
    static func matching(_ r: FaultRule) -> String {
        var s = r.op == .any ? "any operation" : r.op.rawValue
        if let t = r.recordType { s += " of \(t)" }
        if let n = r.recordName { s += " of record \(n)" }
        if let z = r.zone { s += " in \(z)" }
        if let d = r.database { s += " in the \(d.rawValue) database" }
        if let u = r.user { s += " by \(u)" }
        return s
    }

    /// How often the rule fires, in words.
    static func how(_ r: FaultRule) -> String {
        // A throttling rule's count is of windows: each refuses until its retryAfter has passed on the store's clock.
        let unit = r.throttles ? "window" : "time"
        var s = r.times.map { "\($0) more \(unit)\($0 == 1 ? "" : "s")" } ?? r.probability.map { "probability \($0)" } ?? "every time"
        if r.after > 0 { s += ", after \(r.after)" }
        if r.afterCommit { s += ", after commit" }
        if let until = r.until { s += ", throttling until \(ISO8601.format(milliseconds: until))" }
        return s
    }

    static func describe(_ r: FaultRule) -> String {
        var s = "\(r.error.name) (\(r.error.rawValue)) on \(matching(r)), \(how(r))"
        if FaultRule.retryable.contains(r.error) { s += ", retry after \(r.retryAfter ?? FaultRule.defaultRetryAfter) seconds" }
        return s
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        let rules = try inv.container().faults(environment: try inv.environment())
        try inv.emit(List(rules: rules.map(Rule.init)))
        return ExitCode.success
    }

    static func clear(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one rule ID", command: inv.command.path) }
        let removed = try inv.container().clearFaults(inv.positionals.first, environment: try inv.environment())
        try inv.emit(Cleared(ids: removed))
        return ExitCode.success
    }
}
