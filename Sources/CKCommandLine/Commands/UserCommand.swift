import CKCore

/// `ck user`: the iCloud users a container knows, with their user record names, accounts and roles.
enum UserCommand {
    static let spec = CommandSpec(
        "user", summary: "List and show the container's iCloud users.",
        discussion: "A user is named with --as NAME (or CK_USER); ck lists it once it has written something or had its account set. Each user has a user record name (_ and 32 hex digits), which records show as their creator, and a user record of type Users in the public database (readable by everyone) and in its own private database: 'ck record fetch <userRecordName>' reads it, and its owner may add fields to it. --as takes only user names: naming a user record name does not make you that user.",
        examples: [("ck user list", "Names, user record names, account status and roles."),
                   ("ck user show alice", "One user.")],
        subcommands: [
            CommandSpec("list", summary: "List the users of the container.", run: list),
            CommandSpec("show", summary: "Show one user (default: the acting user).",
                        arguments: [ArgumentSpec("name", help: "User name (default: the acting user).", optional: true, completion: .user)],
                        run: show),
        ])

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        let env = try inv.environment()
        let users = try inv.container().users()
        try inv.emit(List(users: users.map(User.init), environment: env))
        return ExitCode.success
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one user name", command: inv.command.path) }
        let container = try inv.container()
        let name: String
        if let given = inv.positionals.first {
            try Names.validateUserName(given)
            name = given
        } else {
            guard let me = try inv.caller().userName else {
                throw CKError(.notAuthenticated, "no iCloud user is signed in (--anonymous), so there is no user to show")
            }
            name = me
        }
        guard let u = try container.user(named: name) ?? (inv.positionals.isEmpty ? ContainerUser(name: name) : nil) else {
            let known = try container.users().map(\.name)
            throw CKError(.unknownItem, "no user '\(name)' in container \(container.identifier)",
                          hint: known.isEmpty ? "no user has written yet" : "known users: " + known.joined(separator: ", "))
        }
        try inv.emit(User(u))
        return ExitCode.success
    }
}
