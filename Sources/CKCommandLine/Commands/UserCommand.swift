import CKCore

/// `ck user`: the iCloud users a container knows, with their user record names, accounts and roles.
enum UserCommand {
    static let spec = CommandSpec(
        "user", summary: "List, show and create the container's iCloud users.",
        discussion: "A user is named with --as NAME (or CK_USER); ck lists it once it has written something or had its account set. A name the container never met that differs from a listed user's only in case or by one letter (--as alcie beside alice) is refused as a typo: 'ck user create NAME' makes such a user on purpose (see 'Names that create things' in docs/cli.md). Each user has a user record name (_ and 32 hex digits), which records show as their creator, and a user record of type Users in the public database (readable by everyone) and in its own private database: 'ck record fetch <userRecordName>' reads it, and its owner may add fields to it. --as takes only user names: naming a user record name does not make you that user.",
        examples: [("ck user list", "Names, user record names, account status and roles."),
                   ("ck user show alice", "One user."),
                   ("ck user create alicia", "List a new user, even one whose name is close to another's.")],
        subcommands: [
            CommandSpec("list", summary: "List the users of the container.", run: list),
            CommandSpec("show", summary: "Show one user (default: the acting user).",
                        arguments: [ArgumentSpec("name", help: "User name (default: the acting user).", optional: true, completion: .user)],
                        run: show),
            CommandSpec("create", summary: "List a new user of the container (even one whose name is close to a listed user's).",
                        arguments: [ArgumentSpec("name", help: "User name.")],
                        run: create),
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
        // Reading never lists a user: a name the container never met is not found, with a did-you-mean when close.
        guard let u = try container.resolveUser(name) else {
            let known = try container.users().map(\.name)
            throw CKError(.unknownItem, "no user '\(name)' in container \(container.identifier)",
                          hint: known.isEmpty ? "no user has written yet; 'ck user create \(name)' lists one"
                                              : "known users: " + known.joined(separator: ", "))
        }
        try inv.emit(User(u))
        return ExitCode.success
    }

    static func create(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("user name")
        let container = try inv.container()
        let created = try container.createUser(name)
        if !created { inv.note("user '\(name)' already exists; it is left as it is") }
        guard let u = try container.user(named: name) else { throw CKError.internalError("user '\(name)' vanished after creating it") }
        try inv.emit(User(u))
        return ExitCode.success
    }
}
