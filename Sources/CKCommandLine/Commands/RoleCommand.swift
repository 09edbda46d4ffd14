import CKCore

/// `ck role`: custom security roles of the public database (CREATE ROLE in the schema), assigned to users.
enum RoleCommand {
    static let spec = CommandSpec(
        "role", summary: "Assign custom security roles to users.",
        discussion: "A record type's GRANT lines give READ, CREATE and WRITE to roles: _world (everyone, signed in or not), _icloud (any signed-in user), _creator (the user who created that record) and custom roles made with CREATE ROLE in the schema. Roles apply to the public database only, in the environment chosen with -e. See 'ck help permissions'.",
        examples: [("ck role assign Moderator bob", "Give bob the Moderator role in development."),
                   ("ck role list", "Custom roles and who holds them.")],
        subcommands: [
            CommandSpec("assign", summary: "Give a user a custom role.",
                        arguments: [ArgumentSpec("role", help: "A role from the schema's CREATE ROLE.", completion: .role),
                                    ArgumentSpec("user", help: "A user name the container knows.", completion: .user)],
                        run: assign),
            CommandSpec("revoke", summary: "Take a custom role from a user.",
                        arguments: [ArgumentSpec("role", help: "A role from the schema's CREATE ROLE.", completion: .role),
                                    ArgumentSpec("user", help: "A user name the container knows.", completion: .user)],
                        run: revoke),
            CommandSpec("list", summary: "List the schema's custom roles and the users holding them.", run: list),
        ])

    static func pair(_ inv: Invocation) throws -> (String, String) {
        guard inv.positionals.count == 2 else { throw UsageError("expected a role and a user name", command: inv.command.path) }
        try Names.validateUserName(inv.positionals[1])
        return (inv.positionals[0], inv.positionals[1])
    }

    static func assign(_ inv: Invocation) throws -> Int32 { try change(inv, holds: true) }
    static func revoke(_ inv: Invocation) throws -> Int32 { try change(inv, holds: false) }

    /// Gives (`holds`) or takes a role, saying whether anything changed.
    static func change(_ inv: Invocation, holds: Bool) throws -> Int32 {
        let (role, user) = try pair(inv)
        let env = try inv.environment()
        let changed = try inv.container().setRole(role, of: user, held: holds, environment: env)
        let table: String
        switch (holds, changed) {
        case (true, true): table = "Assigned role \(role) to \(user) (\(env.rawValue))"
        case (true, false): table = "\(user) already holds \(role) (\(env.rawValue))"
        case (false, true): table = "Revoked role \(role) from \(user) (\(env.rawValue))"
        case (false, false): table = "\(user) did not hold \(role) (\(env.rawValue))"
        }
        try inv.emit(Changed(role: role, user: user, changed: changed, sentence: table))
        return ExitCode.success
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        let env = try inv.environment()
        let container = try inv.container()
        let roles = try container.schema(env).roles.sorted()
        let users = try container.users()
        let held = roles.map { r in Held(role: r, users: users.filter { $0.roles[env]?.contains(r) == true }.map(\.name)) }
        try inv.emit(List(roles: held, environment: env))
        return ExitCode.success
    }
}
