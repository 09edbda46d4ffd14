import CKModel
import CKServer

/// users/caller, users/current, users/discover and the users/lookup forms.
///
/// ck's users have a name (`--as alice`) and a user record name, but no e-mail address, phone number or
/// discoverability setting. So every user the container knows with an iCloud account (available, or temporarily
/// unavailable) is treated as discoverable, its ck name is given as its first name (`givenName`), and it can be found
/// by `userRecordName` only: an e-mail or phone lookup finds nobody. A lookup that finds nobody leaves no entry
/// (Apple returns only the users it found).
enum UsersEndpoints {
    /// The caller's user identity: `{userRecordName, nameComponents:{givenName}}`.
    static func caller(_ context: RequestContext) throws(CKError) -> JSON {
        let user = try signedIn(context)
        return identity(user, lookup: nil)
    }

    /// The legacy user dictionary of the caller: `{userRecordName, firstName}`.
    static func current(_ context: RequestContext) throws(CKError) -> JSON {
        let user = try signedIn(context)
        return .object(["userRecordName": .string(user.userRecordName), "firstName": .string(user.name)])
    }

    /// `{lookupInfos:[{emailAddress|phoneNumber|userRecordName}]}` → `{users:[identity]}`; a GET (no lookupInfos)
    /// answers every other user the container knows.
    static func discover(_ context: RequestContext) throws(CKError) -> JSON {
        let me = try signedIn(context)
        let users = try context.container().users().filter(discoverable)
        guard let infos = context.body["lookupInfos"] else {
            return .object(["users": .array(users.filter { $0.name != me.name }.map { identity($0, lookup: nil) })])
        }
        guard let items = infos.arrayValue else { throw CKError.invalid("lookupInfos: expected an array, got \(infos.kindName)") }
        guard items.count <= SubscriptionsEndpoints.maxItems else {
            throw CKError.invalid("lookupInfos: \(items.count) items; CloudKit takes at most \(SubscriptionsEndpoints.maxItems) in one request")
        }
        var out: [JSON] = []
        for (i, item) in items.enumerated() {
            guard case .object(let o) = item else { throw CKError.invalid("lookupInfos[\(i)]: expected {emailAddress|phoneNumber|userRecordName}") }
            for k in ["emailAddress", "phoneNumber", "userRecordName"] {
                if let v = o[k], !v.isNull, v.stringValue == nil { throw CKError.invalid("lookupInfos[\(i)].\(k): expected a string, got \(v.kindName)") }
            }
            guard let name = o["userRecordName"]?.stringValue else {
                guard o["emailAddress"]?.stringValue != nil || o["phoneNumber"]?.stringValue != nil else {
                    throw CKError.invalid("lookupInfos[\(i)]: needs emailAddress, phoneNumber or userRecordName")
                }
                continue
            }
            if let u = users.first(where: { $0.userRecordName == name }) {
                out.append(identity(u, lookup: .object(["userRecordName": .string(name)])))
            }
        }
        return .object(["users": .array(out)])
    }

    /// Legacy `{users:[{emailAddress}]}` → `{users:[…]}`: ck knows no e-mail addresses, so nobody is found.
    static func lookupEmail(_ context: RequestContext) throws(CKError) -> JSON {
        _ = try signedIn(context)
        _ = try legacyItems(context.body, key: "emailAddress")
        return .object(["users": .array([])])
    }

    /// Legacy `{users:[{userRecordName}]}` → `{users:[{userRecordName, firstName}]}` for the users ck knows.
    static func lookupID(_ context: RequestContext) throws(CKError) -> JSON {
        _ = try signedIn(context)
        let names = try legacyItems(context.body, key: "userRecordName")
        let users = try context.container().users().filter(discoverable)
        let found = names.compactMap { n in users.first { $0.userRecordName == n } }
        return .object(["users": .array(found.map { .object(["userRecordName": .string($0.userRecordName), "firstName": .string($0.name)]) })])
    }

    /// Legacy `{contacts:[…]}` → `{users:[]}`: ck has no address books to match.
    static func lookupContacts(_ context: RequestContext) throws(CKError) -> JSON {
        _ = try signedIn(context)
        if let c = context.body["contacts"], c.arrayValue == nil, !c.isNull {
            throw CKError.invalid("contacts: expected an array, got \(c.kindName)")
        }
        return .object(["users": .array([])])
    }

    /// The strings under `key` of `{users:[{key: …}]}`, naming the place of a bad one.
    private static func legacyItems(_ body: [String: JSON], key: String) throws(CKError) -> [String] {
        let items = try SubscriptionsEndpoints.array(body, "users")
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard let s = item[key]?.stringValue else { throw CKError.invalid("users[\(i)].\(key): expected a string") }
            out.append(s)
        }
        return out
    }

    /// Whether a user can be discovered: one without an iCloud account (none, restricted, undetermined) has no
    /// identity to find.
    private static func discoverable(_ u: ContainerUser) -> Bool {
        u.accountStatus == .available || u.accountStatus == .temporarilyUnavailable
    }

    /// A user identity as users/caller and users/discover answer it.
    private static func identity(_ u: ContainerUser, lookup: JSON?) -> JSON {
        var o: [String: JSON] = ["userRecordName": .string(u.userRecordName),
                                 "nameComponents": .object(["givenName": .string(u.name)])]
        if let lookup { o["lookupInfo"] = lookup }
        return .object(o)
    }

    /// The signed-in caller as the container knows it (a user it never met is listed as ck would list it);
    /// AUTHENTICATION_REQUIRED without one.
    private static func signedIn(_ context: RequestContext) throws(CKError) -> ContainerUser {
        guard let name = context.caller.userName else {
            throw CKError(.notAuthenticated, "\(context.path.operation) needs a signed-in user; this request has none (\(context.principal.logName))")
        }
        return try context.container().user(named: name) ?? ContainerUser(name: name)
    }
}
