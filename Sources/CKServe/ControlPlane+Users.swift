import CKModel
import CKServer

/// `/_ck/users`, `/_ck/users/account`, `/_ck/roles/…`: what `ck user`, `ck account` and `ck role` show and do.
extension ControlPlane {
    /// `GET /_ck/users` → `{container, environment, users: [{name, userRecordName, accountStatus, roles}], roles:
    /// [{name, users}], accountStatuses}`: roles are the environment's (custom roles of its schema).
    static func users(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let (container, environment) = try target(request, body: [:], server: server)
        let users = try container.users()
        let roles = try container.schema(environment).roles.sorted()
        var o = header(container, environment)
        o["users"] = .array(users.map { userJSON($0, environment) })
        o["roles"] = .array(roles.map { role in
            .object(["name": .string(role),
                     "users": .array(users.filter { $0.roles[environment]?.contains(role) == true }.map { .string($0.name) })])
        })
        o["accountStatuses"] = .array(AccountStatus.allCases.map { .string($0.rawValue) })
        return .object(o)
    }

    /// A user as `/_ck/users` lists it.
    static func userJSON(_ u: ContainerUser, _ environment: Environment) -> JSON {
        .object(["name": .string(u.name), "userRecordName": .string(u.userRecordName), "accountStatus": .string(u.accountStatus.rawValue),
                 "roles": .array((u.roles[environment] ?? []).map { .string($0) })])
    }

    /// `POST /_ck/users` `{name}` → `{created, user}`, as `ck user create NAME` (a near miss of a listed name is
    /// made on purpose here too).
    static func createUser(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["name"])
        let (container, environment) = try target(request, body: body, server: server)
        let name = try required("name", body)
        let created = try container.createUser(name)
        guard let u = try container.user(named: name) else { throw CKError.internalError("user '\(name)' vanished after creating it") }
        return .object(["created": .bool(created), "user": userJSON(u, environment)])
    }

    /// `POST /_ck/users/account` `{user, status}` → `{user, accountStatus}`, as `ck account set STATUS --as USER`.
    static func setAccount(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["user", "status"])
        let (container, _) = try target(request, body: body, server: server)
        let user = try required("user", body)
        let text = try required("status", body)
        guard let status = AccountStatus(rawValue: text) else {
            throw CKError(.invalidArguments, "status: '\(Names.describe(text))' is not an account status; use one of "
                          + AccountStatus.allCases.map(\.rawValue).joined(separator: ", "))
        }
        try Names.validateUserName(user)
        try container.setAccountStatus(status, of: user)
        return .object(["user": .string(user), "accountStatus": .string(status.rawValue)])
    }

    /// `POST /_ck/roles/assign` or `/_ck/roles/revoke` `{role, user}` → `{role, user, environment, changed}`, as
    /// `ck role assign|revoke ROLE USER -e ENV`.
    static func setRole(_ request: HTTPRequest, server: CloudKitServer, held: Bool) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["role", "user"])
        let (container, environment) = try target(request, body: body, server: server)
        let role = try required("role", body)
        let user = try required("user", body)
        try Names.validateUserName(user)
        let changed = try container.setRole(role, of: user, held: held, environment: environment)
        return .object(["role": .string(role), "user": .string(user), "environment": .string(environment.rawValue), "changed": .bool(changed)])
    }
}
