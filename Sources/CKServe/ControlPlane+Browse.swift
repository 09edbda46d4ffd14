import CKModel
import CKServer

/// `/_ck/zones`, `/_ck/subscriptions` and `/_ck/shares`: every user's, as `ck zone list`, `ck subscription list`
/// and `ck share list` show one user's (each read through the same core functions as that user). A user whose
/// databases can't be read (an account that is not available) is listed in `unreadable` with the reason.
extension ControlPlane {
    /// The databases a user's zones and subscriptions are listed in, in the order the console shows them.
    static let browsedScopes: [DatabaseScope] = [.public, .private, .shared]

    /// `GET /_ck/zones` → `{container, environment, zones: [{user, database, zoneName, ownerRecordName,
    /// capabilities}], unreadable: [{user, reason}]}`: the public database's zone once (user null), then each
    /// user's private and shared zones, as `ck zone list --db DB --as USER` lists them.
    static func zones(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let (container, environment) = try target(request, body: [:], server: server)
        func entry(_ z: Zone, _ user: String?) -> JSON {
            .object(["user": user.map { .string($0) } ?? .null, "database": .string(z.database.rawValue),
                     "zoneName": .string(z.zoneID.zoneName), "ownerRecordName": .string(z.zoneID.ownerRecordName),
                     "capabilities": .array(z.capabilities.sorted().map { .string($0.rawValue) })])
        }
        var list = try container.database(.public, environment: environment, caller: .developer).zones().map { entry($0, nil) }
        let unreadable = try eachUser(container) { (u, caller) throws(CKError) in
            for scope in [DatabaseScope.private, .shared] {
                list += try container.database(scope, environment: environment, caller: caller).zones().map { entry($0, u.name) }
            }
        }
        var o = header(container, environment)
        o["zones"] = .array(list)
        o["unreadable"] = .array(unreadable)
        return .object(o)
    }

    /// `GET /_ck/subscriptions` → `{container, environment, subscriptions: [{user} + subscription], unreadable}`:
    /// each user's subscriptions of every database, as `ck subscription list -o json` prints each.
    static func subscriptions(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let (container, environment) = try target(request, body: [:], server: server)
        var list: [JSON] = []
        let unreadable = try eachUser(container) { (u, caller) throws(CKError) in
            for scope in browsedScopes {
                for s in try container.database(scope, environment: environment, caller: caller).subscriptions() {
                    var o = s.json.objectValue ?? [:]
                    o["user"] = .string(u.name)
                    list.append(.object(o))
                }
            }
        }
        var o = header(container, environment)
        o["subscriptions"] = .array(list)
        o["unreadable"] = .array(unreadable)
        return .object(o)
    }

    /// `GET /_ck/shares` → `{container, environment, shares: [{recordName, zone, owner, ownerRecordName, rootRecord,
    /// publicPermission, url, title, participants: [{user, userRecordName, role, permission, acceptance}]}], unreadable}`:
    /// every share, found among the shares its owner lists (`ck share list --as OWNER`).
    static func shares(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let (container, environment) = try target(request, body: [:], server: server)
        var list: [JSON] = []
        let unreadable = try eachUser(container) { (_, caller) throws(CKError) in
            let listed = try container.database(.private, environment: environment, caller: caller).shareList()
            for s in listed where s.participant.role == .owner {
                let zone = s.entry.zone.zoneID
                list.append(shareJSON(s.entry.share, zone: zone.zoneName, ownerRecordName: zone.ownerRecordName))
            }
        }
        var o = header(container, environment)
        o["shares"] = .array(list)
        o["unreadable"] = .array(unreadable)
        return .object(o)
    }

    /// A share's title (`cloudkit.title`), null when it has none.
    static func title(_ share: Record) -> JSON {
        if case .string(let t)? = share.fields[Share.titleKey] { return .string(t) }
        return .null
    }

    /// Runs `body` as each user the container lists; a user it refuses (its account status) is reported, not fatal.
    static func eachUser(_ container: CKContainer, _ body: (ContainerUser, Caller) throws(CKError) -> Void) throws(CKError) -> [JSON] {
        var unreadable: [JSON] = []
        for u in try container.users() {
            do throws(CKError) {
                try body(u, try .user(u.name))
            } catch where error.code == .notAuthenticated || error.code == .accountTemporarilyUnavailable {
                unreadable.append(.object(["user": .string(u.name), "reason": .string(error.reason)]))
            }
        }
        return unreadable
    }
}
