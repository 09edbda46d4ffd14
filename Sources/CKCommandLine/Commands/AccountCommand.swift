import CKCore

/// `ck account`: a user's iCloud account status (CKContainer.accountStatus), per container.
enum AccountCommand {
    static let statuses = AccountStatus.allCases.map(\.rawValue)

    static let spec = CommandSpec(
        "account", summary: "Show or set a user's iCloud account status.",
        discussion: "As CloudKit does: with noAccount, restricted or couldNotDetermine the private and shared databases answer notAuthenticated (exit 7), and the public database can be read but not written; temporarilyUnavailable answers accountTemporarilyUnavailable (exit 5). --anonymous acts with no account at all. A device notices a change at its next 'ck sync', which reports it as CKSyncEngine does (signIn, signOut, switchAccounts) and stops while the account can't sync: noAccount is a sign-out, which clears the device's pending edits and data; the other statuses keep them. A user the container never met is listed when its account is first set.",
        examples: [("ck account set noAccount --as alice", "Sign alice out of iCloud."),
                   ("ck account status --as alice", "Her account status.")],
        subcommands: [
            CommandSpec("status", summary: "Show the acting user's account status.", run: status),
            CommandSpec("set", summary: "Set the acting user's account status.",
                        arguments: [ArgumentSpec("status", help: "One of " + statuses.joined(separator: ", ") + ".", choices: statuses)],
                        examples: [("ck account set temporarilyUnavailable --as bob", "Bob's account needs attention.")],
                        run: set),
        ])

    static func report(_ inv: Invocation, _ caller: Caller, _ s: AccountStatus, verb: String) throws {
        try inv.emit(Status(caller: caller, status: s, verb: verb))
    }

    static func status(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("status takes no arguments; name the user with --as", command: inv.command.path) }
        let caller = try inv.caller()
        try report(inv, caller, try inv.container().accountStatus(of: caller), verb: "")
        return ExitCode.success
    }

    static func set(_ inv: Invocation) throws -> Int32 {
        let value = try inv.single("account status")
        guard let s = AccountStatus(rawValue: value) else {
            throw UsageError("'\(value)' is not an account status; use one of \(statuses.joined(separator: ", "))", command: inv.command.path)
        }
        let caller = try inv.caller()
        guard let name = caller.userName else {
            throw UsageError("--anonymous has no account to set; name a user with --as", command: inv.command.path)
        }
        try inv.container().setAccountStatus(s, of: name)
        try report(inv, caller, s, verb: "Account of ")
        return ExitCode.success
    }
}
