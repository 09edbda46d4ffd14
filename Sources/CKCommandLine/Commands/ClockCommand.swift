import CKCore

/// `ck clock`: the store's clock (clock.json), which every stamp and every comparison with "now" reads.
enum ClockCommand {
    static let backwardsOption = OptionSpec("backwards", help: "Allow moving the clock back (modification times would go back).")

    static let spec = CommandSpec(
        "clock", summary: "Show, set, advance or reset the store's clock.",
        discussion: "Everything ck stamps or compares with now reads the store's clock: records' created and modified times, deletions, notifications, throttling windows of fault rules, query cursors' lifetime and the expiry of web auth tokens. By default it is the real time. 'set' fixes it at an instant (it stays there until moved; --running lets it run on from there), 'advance' moves it forward, 'reset' returns to the real time; the setting is kept in clock.json at the store root, and a running 'ck serve' follows it. CK_NOW (ms since 1970 or an ISO 8601 instant) fixes now for one command, whatever the store's clock says. Moving the clock back is refused unless --backwards: records saved afterwards would be older than those already saved, and modification times would go back. Change tokens don't expire with time. See 'ck help clock'.",
        examples: [("ck clock set 2099-01-01T00:00:00Z", "Fix the clock at New Year 2099."),
                   ("ck clock advance 5m", "Move it five minutes on (past a 300-second retryAfter)."),
                   ("CK_NOW=2099-01-01T00:00:00Z ck record save Note title=Hi", "Save a record created at that instant."),
                   ("ck clock reset --backwards", "Back to the real time, even if the clock was ahead.")],
        subcommands: [
            CommandSpec("show", summary: "Print the store's time and how the clock is set.", run: show),
            CommandSpec("set", summary: "Fix the clock at an instant.",
                        arguments: [ArgumentSpec("instant", help: "ISO 8601 (2026-01-01T10:00:00Z) or milliseconds since 1970.")],
                        options: [OptionSpec("running", help: "Let the clock run on from the instant instead of staying there."),
                                  backwardsOption],
                        run: set),
            CommandSpec("advance", summary: "Move the clock forward.",
                        arguments: [ArgumentSpec("duration", help: "How far: 30s, 5m, 2h, 1d, 1h30m, 250ms (a bare number is seconds).")],
                        run: advance),
            CommandSpec("reset", summary: "Return the clock to the real time.", options: [backwardsOption], run: reset),
        ])

    static func show(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("show takes no arguments", command: inv.command.path) }
        try inv.emit(Reading(reading: try inv.store().clock()))
        return ExitCode.success
    }

    static func set(_ inv: Invocation) throws -> Int32 {
        let text = try inv.single("instant")
        guard let instant = StoreClock.instant(text) else {
            throw UsageError("invalid instant '\(text)': expected ISO 8601 (2026-01-01T10:00:00Z) or milliseconds since 1970", command: inv.command.path)
        }
        let now = try inv.store().setClock(instant, running: inv.parsed.flag("running"), backwards: inv.parsed.flag("backwards"))
        try inv.emit(Changed(reading: try inv.store().clock(), verb: "set", now: now))
        return ExitCode.success
    }

    static func advance(_ inv: Invocation) throws -> Int32 {
        let text = try inv.single("duration")
        guard let ms = StoreClock.duration(text) else {
            throw UsageError("invalid duration '\(text)': expected a number with a unit, such as 30s, 5m, 2h, 1d or 1h30m", command: inv.command.path)
        }
        let now = try inv.store().advanceClock(by: ms)
        try inv.emit(Changed(reading: try inv.store().clock(), verb: "advanced by \(StoreClock.describe(duration: ms))", now: now))
        return ExitCode.success
    }

    static func reset(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("reset takes no arguments", command: inv.command.path) }
        let now = try inv.store().resetClock(backwards: inv.parsed.flag("backwards"))
        try inv.emit(Changed(reading: try inv.store().clock(), verb: "reset to the real time", now: now))
        return ExitCode.success
    }
}
