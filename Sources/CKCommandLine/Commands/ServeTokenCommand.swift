import CKCore

/// `ck serve token`: web auth tokens `ck serve` accepts in `ckWebAuthToken`, each bound to a user of the container
/// (kept in the container's auth.json).
enum ServeTokenCommand {
    static let spec = CommandSpec(
        "token", summary: "Make, list and revoke web auth tokens for ck serve.",
        discussion: "A web auth token lets a Web Services client act as one user of the container: send it as the ckWebAuthToken query parameter (URL-encoded: it contains +, / and =) or in the X-Apple-CloudKit-Web-Auth-Token header. Every response hands back a fresh token for the same user in X-Apple-CloudKit-Web-Auth-Token; earlier tokens keep working unless the server runs with single-use tokens. Tokens belong to the container (--container) and work in both environments; revoking a token also stops the tokens handed back for it. Lists show only each token's first characters; 'create' prints the whole token once.",
        examples: [("tok=$(ck serve token create --as alice)", "Make a token for alice and keep it in a shell variable."),
                   ("ck serve token create --as bob --expires 30m", "A token that stops working in 30 minutes."),
                   ("ck serve token list", "Tokens with their user, age and state."),
                   ("ck serve token revoke --user alice", "Stop every token of alice.")],
        subcommands: [
            CommandSpec("create", summary: "Make a web auth token for the user given with --as.",
                        options: [OptionSpec("expires", value: "duration",
                                             help: "Stop working after this long: 90s, 30m, 12h, 14d (default: never).")],
                        run: create),
            CommandSpec("list", summary: "List the container's web auth tokens (first characters only).", run: list),
            CommandSpec("revoke", summary: "Revoke a token, or every token of a user.",
                        arguments: [ArgumentSpec("token", help: "The token, or enough of its first characters to name one.", optional: true)],
                        options: [OptionSpec("user", value: "name", help: "Revoke every token of this user.", completion: .user)],
                        run: revoke),
        ])

    static func create(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("create takes options only; name the user with --as", command: inv.command.path) }
        let container = try inv.container()
        var lifetime: Int64? = nil
        if let text = inv.parsed.value("expires") {
            guard let seconds = duration(text) else {
                throw UsageError("invalid value '\(text)' for --expires: expected a duration such as 90s, 30m, 12h or 14d", command: inv.command.path)
            }
            lifetime = seconds
        }
        let token = try container.createWebAuthToken(user: inv.user, lifetime: lifetime)
        try inv.emit(Created(token: token))
        return ExitCode.success
    }

    /// Seconds in `90s`, `30m`, `12h`, `14d` or a plain number of seconds; nil when it is none of those or not positive.
    static func duration(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
        var digits = Substring(text)
        var unit: Int64 = 1
        if let last = text.last, let u = units[last] {
            unit = u
            digits = digits.dropLast()
        }
        guard let n = Int64(digits), n > 0, n <= Int64.max / 1000 / unit else { return nil }
        return n * unit
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        let container = try inv.container()
        try inv.emit(List(tokens: try container.serveAuth().tokens, now: container.store.now()))
        return ExitCode.success
    }

    static func revoke(_ inv: Invocation) throws -> Int32 {
        let user = inv.parsed.value("user")
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one token", command: inv.command.path) }
        let token = inv.positionals.first
        guard (token == nil) != (user == nil) else {
            throw UsageError("name a token, or give --user NAME to revoke every token of a user (not both)", command: inv.command.path)
        }
        let revoked = try inv.container().revokeWebAuthTokens(token: token, user: user)
        try inv.emit(Revoked(tokens: revoked, user: user))
        return ExitCode.success
    }
}
