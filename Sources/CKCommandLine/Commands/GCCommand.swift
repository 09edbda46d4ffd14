import CKCore

/// `ck gc`: compacts zone logs and removes assets nothing refers to.
enum GCCommand {
    static let spec = CommandSpec(
        "gc", summary: "Compact zone logs and remove assets no record refers to.",
        discussion: "Each zone log is an append-only history. gc rewrites every log of the environment chosen with -e to its live records only (same records, change tags and sequence numbers; temp file, fsync, rename) and removes asset files no live record refers to. The history it drops is gone: a change token older than a zone's compaction answers changeTokenExpired (exit 9), as CloudKit does when it no longer has the history a token points into. With --dry-run nothing changes.",
        options: [OptionSpec("dry-run", help: "Say what would be compacted and removed; change nothing.")],
        examples: [("ck gc --dry-run", "How much the development environment would shrink."),
                   ("ck -e production gc", "Compact production.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("gc takes no arguments", command: inv.command.path) }
        let env = try inv.environment()
        let dryRun = inv.parsed.flag("dry-run")
        let progress = ProgressLine(inv, verb: "compacting", bytes: true)
        defer { progress.finish() }
        let r = try inv.container().collectGarbage(env, dryRun: dryRun, progress: progress.update)
        progress.finish()
        try inv.emit(Collected(environment: env, dryRun: dryRun, report: r))
        return ExitCode.success
    }
}
