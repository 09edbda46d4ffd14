import CKCore

extension RoleCommand {
    /// `role assign` and `role revoke`: `{"role", "user", "changed"}`; `changed` is false when nothing had to change.
    struct Changed: OutcomeOutput {
        var role: String
        var user: String
        var changed: Bool
        var sentence: String

        var json: JSON { .object(["role": .string(role), "user": .string(user), "changed": .bool(changed)]) }
        var line: String { "\(role)\t\(user)" }
    }

    /// A custom role and the users holding it: `{"role", "users"}`.
    struct Held {
        var role: String
        var users: [String]

        var json: JSON { .object(["role": .string(role), "users": .array(users.map { .string($0) })]) }
    }

    /// `role list`: `{"roles": [Held]}`; jsonl: one role a line.
    struct List: CommandOutput {
        var roles: [Held]
        var environment: Environment

        var json: JSON { .object(["roles": .array(roles.map(\.json))]) }
        var jsonLines: [JSON] { roles.map(\.json) }
        var plain: [String] { roles.map { ([$0.role] + $0.users).joined(separator: "\t") } }
        var table: String {
            if roles.isEmpty { return "No custom roles in the \(environment.rawValue) schema; add CREATE ROLE <name>; and import it.\n" }
            var t = Table(["ROLE", "USERS"])
            for r in roles { t.add([r.role, r.users.joined(separator: ",").ifEmpty("-")]) }
            return t.aligned()
        }
    }
}
