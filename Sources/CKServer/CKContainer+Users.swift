import Foundation
import CKModel
import CKStorage

/// Users, their account status and their roles, kept in container.json.
extension CKContainer {
    /// The roles every record type knows; they can't be assigned.
    public static let builtInRoles: Set<String> = ["_world", "_icloud", "_creator"]

    /// Users known to this container, by name.
    package func usersBody() throws(CKError) -> [ContainerUser] {
        let users = try info()["users"]?.objectValue ?? [:]
        return users.keys.sorted().map { name in parseUser(name, users[name] ?? .null) }
    }

    package func parseUser(_ name: String, _ json: JSON) -> ContainerUser {
        var u = ContainerUser(name: name)
        u.accountStatus = json["accountStatus"]?.stringValue.flatMap(AccountStatus.init(rawValue:)) ?? .available
        u.created = json["created"]?.int64Value ?? 0
        for env in Environment.allCases {
            let list = json["roles"]?[env.rawValue]?.arrayValue?.compactMap(\.stringValue) ?? []
            if !list.isEmpty { u.roles[env] = list }
        }
        return u
    }

    /// One user by name, or nil when the container never met it.
    public func user(named name: String) throws(CKError) -> ContainerUser? {
        user(named: name, in: try info())
    }

    /// One user as container.json `info` has it.
    package func user(named name: String, in info: JSON) -> ContainerUser? {
        info["users"]?[name].map { parseUser(name, $0) }
    }

    /// The user whose user record name this is, if the container knows it.
    public func user(recordName: String) throws(CKError) -> ContainerUser? {
        try usersBody().first { $0.userRecordName == recordName }
    }

    /// A caller's account status: a user the container never met has an available account (created on first use).
    public func accountStatus(of caller: Caller) throws(CKError) -> AccountStatus {
        guard let name = caller.userName else { return .noAccount }
        return try user(named: name)?.accountStatus ?? .available
    }

    /// Sets a user's account status, listing the user first if the container never met it (unless the name is a
    /// near miss of a listed user).
    package func setAccountStatusBody(_ status: AccountStatus, of user: String) throws(CKError) {
        try Names.validateUserName(user)
        try refuseNearMiss(user: user, in: try info())
        try updateUser(user, create: true) { (u) throws(CKError) in u["accountStatus"] = .string(status.rawValue) }
    }

    /// Gives (`held`) or takes a custom role of `environment`'s schema to or from a known user; false when
    /// the user already held it, or did not.
    @discardableResult
    package func setRoleBody(_ role: String, of user: String, held: Bool, environment: Environment) throws(CKError) -> Bool {
        try checkRole(role, environment: environment)
        var changed = false
        try updateUser(user, create: false) { (u) throws(CKError) in
            var roles = u["roles"]?.objectValue ?? [:]
            var list = roles[environment.rawValue]?.arrayValue?.compactMap(\.stringValue) ?? []
            changed = list.contains(role) != held
            list.removeAll { $0 == role }
            if held { list.append(role); list.sort() }
            roles[environment.rawValue] = list.isEmpty ? nil : .array(list.map { .string($0) })
            u["roles"] = roles.isEmpty ? nil : .object(roles)
        }
        return changed
    }

    /// The roles of `environment`'s schema, custom ones only.
    package func checkRole(_ role: String, environment: Environment) throws(CKError) {
        if CKContainer.builtInRoles.contains(role) {
            throw CKError.invalid("'\(role)' is a built-in role: every user holds _world, signed-in users _icloud, and a record's creator _creator",
                                  hint: "assign a custom role made with CREATE ROLE in the schema")
        }
        let roles = try schema(environment).roles
        guard roles.contains(role) else {
            let known = roles.isEmpty ? "it has none" : "it has " + roles.joined(separator: ", ")
            throw CKError(.unknownItem, "role '\(Names.describe(role))' is not in the \(environment.rawValue) schema (\(known))",
                          hint: "add 'CREATE ROLE \(role);' to the schema and import it (ck schema import)")
        }
    }

    /// Refuses to meet `name` for the first time when it is a near miss of a user the container lists (`--as alcie`
    /// beside alice): a typo would otherwise act as a new user with an empty private database.
    package func refuseNearMiss(user name: String, in info: JSON) throws(CKError) {
        let users = info["users"]?.objectValue ?? [:]
        guard users[name] == nil else { return }
        let close = Names.nearMisses(of: name, among: Array(users.keys))
        guard !close.isEmpty else { return }
        throw Names.nearMissError(.unknownItem, what: "user", name: name, place: "in container \(identifier)", close: close,
                                  create: "ck user create \(name)")
    }

    /// Lists a user explicitly, even one whose name is a near miss of another's; true when this call listed it.
    package func createUserBody(_ name: String) throws(CKError) -> Bool {
        try Names.validateUserName(name)
        var created = false
        try updateInfo { (o) throws(CKError) in
            created = o["users"]?[name] == nil
            try updateUser(name, in: &o, create: true) { (_) throws(CKError) in }
        }
        return created
    }

    /// container.json's entry for a user the container has just met.
    package func newUserEntry(_ name: String) -> [String: JSON] {
        ["userRecordName": .string(CKContainer.userRecordName(for: name)),
         "accountStatus": .string(AccountStatus.available.rawValue), "created": .int(store.now())]
    }

    /// Stages the listing of `names` (those container.json does not list yet, as `info` has it) in an
    /// environment replacement, so it commits with it (`PendingRegistration`); one already waiting is kept.
    package func stageRegistration(of names: [String], info: JSON, in replacement: inout EnvironmentReplacement, env: EnvironmentStore) throws(CKError) {
        // One already waiting (a crash kept it from being listed) goes on in the new record; a damaged one is replaced.
        var users = (try? PendingRegistration.read(env))?.users ?? [:]
        for name in names where info["users"]?[name] == nil && users[name] == nil { users[name] = .object(newUserEntry(name)) }
        guard !users.isEmpty else { return }
        replacement.staging.append(PendingRegistration.fileName)
        replacement.files.append((PendingRegistration.fileName, PendingRegistration(users: users).bytes))
    }

    /// Lists the users a committed operation staged in `env` (`PendingRegistration`), then drops the record. Call
    /// without the environment's lock (the root lock is taken first).
    package func finishRegistration(_ env: EnvironmentStore) throws(CKError) {
        guard try PendingRegistration.waits(env) else { return }
        let pending: PendingRegistration
        do throws(CKError) {
            guard let read = try PendingRegistration.read(env) else { return }
            pending = read
        } catch {
            // A damaged record must not stop the environment's work: its users stay unlisted until they write.
            store.warn(Diagnostic(place: PendingRegistration.path(env), error.reason + "; ignored (remove the file: its users are listed when they next write)"))
            return
        }
        try updateInfo { (o) throws(CKError) in
            var users = o["users"]?.objectValue ?? [:]
            for (name, entry) in pending.users where users[name] == nil { users[name] = entry }
            o["users"] = .object(users)
        }
        try env.locked(exclusive: true) { () throws(CKError) in try PendingRegistration.discard(env, ifStill: pending.users) }
    }

    /// Records a user in container.json the first time it is met.
    package func register(user: String) throws(CKError) {
        if try info()["users"]?[user] != nil { return }
        try updateUser(user, create: true) { (_) throws(CKError) in }
    }

    /// Rewrites one user's entry under the store lock; `create` lists a user the container never met.
    package func updateUser(_ name: String, create: Bool, _ change: (inout [String: JSON]) throws(CKError) -> Void) throws(CKError) {
        try updateInfo { (o) throws(CKError) in try updateUser(name, in: &o, create: create, change) }
    }

    private func updateUser(_ name: String, in o: inout [String: JSON], create: Bool,
                            _ change: (inout [String: JSON]) throws(CKError) -> Void) throws(CKError) {
        var users = o["users"]?.objectValue ?? [:]
        var entry: [String: JSON]
        if let existing = users[name]?.objectValue {
            entry = existing
        } else {
            guard create else {
                let known = users.keys.sorted()
                throw CKError(.unknownItem, "no user '\(Names.describe(name))' in container \(identifier)",
                              hint: known.isEmpty ? "a user is listed once it has written something or had its account set"
                                                  : "known users: " + known.joined(separator: ", "))
            }
            entry = newUserEntry(name)
        }
        let before = entry
        try change(&entry)
        if users[name] != nil && JSON.object(before) == JSON.object(entry) { return }
        users[name] = .object(entry)
        o["users"] = .object(users)
    }
}
