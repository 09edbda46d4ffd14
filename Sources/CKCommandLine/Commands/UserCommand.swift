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

    static func json(_ u: ContainerUser) -> JSON {
        .object(["name": .string(u.name), "userRecordName": .string(u.userRecordName),
                 "accountStatus": .string(u.accountStatus.rawValue), "created": .int(u.created),
                 "roles": .object(Dictionary(uniqueKeysWithValues: u.roles.map { ($0.key.rawValue, JSON.array($0.value.map { .string($0) })) }))])
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        let env = try inv.environment()
        let users = try inv.container().users()
        switch try inv.outputFormat() {
        case .json: inv.line(JSON.object(["users": .array(users.map(json))]).pretty())
        case .jsonl: for u in users { inv.line(json(u).serialized()) }
        case .plain, .name: for u in users { inv.line([u.name, u.userRecordName, u.accountStatus.rawValue].joined(separator: "\t")) }
        case .table:
            if users.isEmpty { inv.line("No users yet; a user is listed once it writes (--as NAME) or has its account set."); break }
            var t = Table(["NAME", "USER RECORD NAME", "ACCOUNT", "ROLES (\(env.rawValue))"])
            for u in users { t.add([u.name, u.userRecordName, u.accountStatus.rawValue, (u.roles[env] ?? []).joined(separator: ",").ifEmpty("-")]) }
            inv.out(t.aligned())
        }
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
        let format = try inv.outputFormat()
        if format == .json || format == .jsonl {
            try inv.report(json(u), plain: "", table: "")
            return ExitCode.success
        }
        var rows = [("name", u.name), ("userRecordName", u.userRecordName), ("accountStatus", u.accountStatus.rawValue)]
        for env in Environment.allCases { rows.append(("roles (\(env.rawValue))", (u.roles[env] ?? []).joined(separator: ", ").ifEmpty("-"))) }
        try inv.printRows(rows)
        return ExitCode.success
    }
}
