import CKCore

/// `ck quota`: a user's iCloud storage quota (its private database) or the container's public-database quota.
enum QuotaCommand {
    static let publicOption = OptionSpec("public", help: "The public database's quota (the developer's), not a user's.")

    static let spec = CommandSpec(
        "quota", summary: "Set and show storage quotas.",
        discussion: "A user's quota bounds its private database (its iCloud storage); the public database has one quota per container (the developer's). Usage is each live record's stored size plus the bytes of the assets it refers to, an asset counted once per owner. A save that would go over answers quotaExceeded (exit 6, QUOTA_EXCEEDED) and writes nothing; in a batch, each record is checked on its own. Deletes are always allowed and free space at once. Quotas live in container.json; usage is counted in the environment of the command (-e). See docs/quotas.md.",
        examples: [("ck quota set 5MB --as alice", "Give alice 5 MB of iCloud storage."),
                   ("ck quota set 1GiB --public", "The public database's quota."),
                   ("ck quota show --as alice", "Limit, usage, by zone and by record type.")],
        subcommands: [
            CommandSpec("set", summary: "Set a quota (none removes it).",
                        arguments: [ArgumentSpec("size", help: "Bytes, or a number with B, KB, MB, GB, TB, KiB, MiB, GiB or TiB; none removes the quota.")],
                        options: [publicOption], run: set),
            CommandSpec("show", summary: "Show a quota and what uses it.", options: [publicOption], run: show),
        ])

    /// The user whose quota a command concerns; nil for the public database.
    static func owner(_ inv: Invocation) throws -> String? {
        if inv.parsed.flag("public") {
            if inv.parsed.value("as") != nil { throw UsageError("--public is the container's quota; it can't be combined with --as", command: inv.command.path) }
            return nil
        }
        guard let name = try inv.caller().userName else {
            throw UsageError("--anonymous has no storage; name a user with --as, or use --public", command: inv.command.path)
        }
        return name
    }

    static func whose(_ user: String?) -> String { user.map { "user \($0)" } ?? "the public database" }

    static func set(_ inv: Invocation) throws -> Int32 {
        let text = try inv.single("size")
        let bytes: Int64? = text == "none" ? nil : try CKContainer.parseSize(text)
        let user = try owner(inv)
        try inv.container().setQuota(bytes, user: user)
        try inv.emit(Limit(user: user, quota: bytes))
        return ExitCode.success
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("show takes no arguments", command: inv.command.path) }
        let user = try owner(inv)
        let caller = try user.map { try Caller.user($0) } ?? (try inv.caller())
        let db = try inv.container().database(user == nil ? .public : .private, environment: try inv.environment(), caller: caller)
        let u = try db.quotaUsage()
        try inv.emit(Usage(user: user, usage: u))
        return ExitCode.success
    }

    /// 5 MB, 1.5 GiB: the unit that reads best (powers of 1000).
    static func format(_ bytes: Int64) -> String {
        let units: [(Int64, String)] = [(1_000_000_000_000, "TB"), (1_000_000_000, "GB"), (1_000_000, "MB"), (1000, "KB")]
        for (f, name) in units where bytes >= f {
            let v = Double(bytes) / Double(f)
            let text = v == v.rounded() ? String(Int64(v)) : String((v * 10).rounded() / 10)
            return "\(text) \(name)"
        }
        return "\(bytes) B"
    }
}
