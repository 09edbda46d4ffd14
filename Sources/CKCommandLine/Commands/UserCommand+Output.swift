import CKCore

extension UserCommand {
    /// One user: `{"name", "userRecordName", "accountStatus", "created", "roles": {<env>: [role]}}`; `user show`
    /// prints it alone, rows for people and scripts.
    struct User: RowsOutput {
        var user: ContainerUser

        init(_ user: ContainerUser) { self.user = user }

        var json: JSON {
            let u = user
            return .object(["name": .string(u.name), "userRecordName": .string(u.userRecordName),
                            "accountStatus": .string(u.accountStatus.rawValue), "created": .int(u.created),
                            "roles": .object(Dictionary(uniqueKeysWithValues: u.roles.map { ($0.key.rawValue, JSON.array($0.value.map { .string($0) })) }))])
        }

        var rows: [(String, String)] {
            var rows = [("name", user.name), ("userRecordName", user.userRecordName), ("accountStatus", user.accountStatus.rawValue)]
            for env in Environment.allCases { rows.append(("roles (\(env.rawValue))", (user.roles[env] ?? []).joined(separator: ", ").ifEmpty("-"))) }
            return rows
        }
    }

    /// `user list`: `{"users": [User]}`; jsonl: one user a line. The table shows the roles of one environment.
    struct List: CommandOutput {
        var users: [User]
        var environment: Environment

        var json: JSON { .object(["users": .array(users.map(\.json))]) }
        var jsonLines: [JSON] { users.map(\.json) }
        var plain: [String] { users.map { [$0.user.name, $0.user.userRecordName, $0.user.accountStatus.rawValue].joined(separator: "\t") } }
        var table: String {
            if users.isEmpty { return "No users yet; a user is listed once it writes (--as NAME) or has its account set.\n" }
            var t = Table(["NAME", "USER RECORD NAME", "ACCOUNT", "ROLES (\(environment.rawValue))"])
            for u in users.map(\.user) {
                t.add([u.name, u.userRecordName, u.accountStatus.rawValue, (u.roles[environment] ?? []).joined(separator: ",").ifEmpty("-")])
            }
            return t.aligned()
        }
    }
}
