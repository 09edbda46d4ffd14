import CKModel
import CKServer

/// The routes the browser console reads and acts through, beside health, faults and notifications. Each reads or
/// does what a `ck` command does, through the same core functions (the one door), as the developer.
extension ControlPlane {
    /// The console's routes by path.
    static let consoleRoutes: [String: ControlPlaneRoute] = [
        "/_ck/users": ControlPlaneRoute(methods: ["GET", "POST"]) { (r, s) throws(CKError) in
            r.method == "GET" ? try users(r, server: s) : try createUser(r, server: s)
        },
        "/_ck/users/account": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try setAccount(r, server: s) },
        "/_ck/roles/assign": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try setRole(r, server: s, held: true) },
        "/_ck/roles/revoke": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try setRole(r, server: s, held: false) },
        "/_ck/schema": ControlPlaneRoute(methods: ["GET"]) { (r, s) throws(CKError) in try schema(r, server: s) },
        "/_ck/schema/deploy": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try deploy(r, server: s) },
        "/_ck/quotas": ControlPlaneRoute(methods: ["GET", "POST"]) { (r, s) throws(CKError) in
            r.method == "GET" ? try quotas(r, server: s) : try setQuota(r, server: s)
        },
        "/_ck/shares": ControlPlaneRoute(methods: ["GET"]) { (r, s) throws(CKError) in try shares(r, server: s) },
        "/_ck/shares/create": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try createShare(r, server: s) },
        "/_ck/shares/invite": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try inviteToShare(r, server: s) },
        "/_ck/shares/remove": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try removeFromShare(r, server: s) },
        "/_ck/shares/update": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try updateShare(r, server: s) },
        "/_ck/shares/delete": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try deleteShare(r, server: s) },
        "/_ck/shares/accept": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try acceptShare(r, server: s) },
        "/_ck/shares/leave": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try leaveShare(r, server: s) },
        "/_ck/zones": ControlPlaneRoute(methods: ["GET"]) { (r, s) throws(CKError) in try zones(r, server: s) },
        "/_ck/subscriptions": ControlPlaneRoute(methods: ["GET"]) { (r, s) throws(CKError) in try subscriptions(r, server: s) },
        "/_ck/zones/purge": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try purgeZone(r, server: s) },
        "/_ck/notifications/read": ControlPlaneRoute(methods: ["POST"]) { (r, s) throws(CKError) in try markRead(r, server: s) },
    ]

    /// The console's routes, for the NOT_FOUND answer.
    static let consoleRouteList = ["GET|POST /_ck/users", "POST /_ck/users/account", "POST /_ck/roles/assign", "POST /_ck/roles/revoke",
                                   "GET /_ck/schema", "POST /_ck/schema/deploy", "GET|POST /_ck/quotas", "GET /_ck/shares",
                                   "POST /_ck/shares/create|invite|remove|update|delete|accept|leave",
                                   "GET /_ck/zones", "POST /_ck/zones/purge", "GET /_ck/subscriptions", "POST /_ck/notifications/read"]

    // MARK: Bodies of actions

    /// An action's JSON body, refusing a key the action does not take (by name, with the keys it takes).
    static func actionBody(_ request: HTTPRequest, keys: [String]) throws(CKError) -> [String: JSON] {
        let body = try self.body(request)
        let allowed = keys + ["container", "environment"]
        for key in body.keys.sorted() where !allowed.contains(key) {
            throw CKError(.invalidArguments, "\(key): not a key of \(request.method) \(request.path) (it takes \(keys.joined(separator: ", ")))")
        }
        return body
    }

    /// A string the body must hold, refused by name when missing, empty or of another type.
    static func required(_ name: String, _ body: [String: JSON]) throws(CKError) -> String {
        guard let v = body[name], !v.isNull else { throw CKError(.invalidArguments, "\(name): missing (expected a string)") }
        guard let s = v.stringValue else { throw CKError(.invalidArguments, "\(name): expected a string, got \(v.kindName)") }
        guard !s.isEmpty else { throw CKError(.invalidArguments, "\(name): expected a non-empty string") }
        return s
    }

    /// A true/false the body may hold (nil when absent), refused by name when of another type.
    static func flag(_ name: String, _ body: [String: JSON]) throws(CKError) -> Bool? {
        guard let v = body[name], !v.isNull else { return nil }
        guard let b = v.boolValue else { throw CKError(.invalidArguments, "\(name): expected true or false, got \(v.kindName)") }
        return b
    }

    /// `{container, environment}` of an answer, for the route's other keys to join.
    static func header(_ container: CKContainer, _ environment: Environment) -> [String: JSON] {
        ["container": .string(container.identifier), "environment": .string(environment.rawValue)]
    }
}
