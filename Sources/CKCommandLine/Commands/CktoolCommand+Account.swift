import CKCore

/// cktool's token and team verbs: offline there is no account, so they change nothing.
extension CktoolCommand {
    static let saveToken = verb(
        "save-token", summary: "Accepted and ignored: ck needs no token.",
        discussion: "cktool saves a management or user token to the keychain or ~/.config/cktool. ck has no account to authenticate against, so nothing is saved and no prompt is shown.",
        arguments: [ArgumentSpec("token", help: "The token (ignored).", optional: true)],
        required: [],
        optional: [OptionSpec("type", value: "type", help: "management or user.", choices: ["management", "user"]),
                   OptionSpec("method", value: "method", help: "file or keychain.", choices: ["file", "keychain"]),
                   OptionSpec("force", help: "Overwrite without asking.")],
        run: { inv in
            inv.note("cktool mode: save-token accepted and ignored (no account exists offline, so no token is needed)")
            return ExitCode.success
        })

    static let removeToken = verb(
        "remove-token", summary: "Accepted and ignored: ck keeps no token.",
        required: [OptionSpec("type", value: "type", help: "management or user.", choices: ["management", "user"])],
        optional: [OptionSpec("method", value: "method", help: "file or keychain.", choices: ["file", "keychain"]),
                   OptionSpec("force", help: "Remove without asking.")],
        run: { inv in
            inv.note("cktool mode: remove-token accepted and ignored (ck keeps no token)")
            return ExitCode.success
        })

    /// The team `get-teams` lists: any --team-id is accepted, so this one is as good as any.
    static let offlineTeam = "OFFLINE000: ck offline emulator (any --team-id is accepted)"

    static let getTeams = verb(
        "get-teams", summary: "Print the one offline team, as 'TEAMID: Name'.",
        discussion: "cktool lists the teams of the signed-in developer. ck has no account: it prints one team line so scripts that read a team ID from get-teams keep working; every --team-id is accepted anyway.",
        required: [], optional: [token],
        run: { inv in
            inv.line(offlineTeam)
            return ExitCode.success
        })
}
