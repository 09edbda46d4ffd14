import CKModel
import CKServer

/// ck's own routes under `/_ck/` (not part of CloudKit): health, reset, faults, notifications, the request log, and
/// the console's users, schema, quotas, shares, zones and subscriptions (`consoleRoutes`).
/// JSON in and out; errors in CloudKit's shape (`WireError.response`). Every route acts as the developer and works
/// on any container of the store, named by `container` and `environment` in the query or the JSON body (default:
/// the store's current container, development).
enum ControlPlane {
    static let requestsPath = "/_ck/requests"
    static let faultsPath = "/_ck/faults"
    /// How many of an error's items (fixtures problems) its reason lists.
    static let maxItemsInReason = 20

    /// Whether a path is in the control plane's namespace (`/_ck` and below).
    static func owns(_ path: String) -> Bool {
        path.hasPrefix("/_ck/") || path == "/_ck"
    }

    /// Whether a control-plane path is one of its routes; any other is NOT_FOUND without work.
    static func routes(_ path: String) -> Bool {
        switch path {
        case "/_ck/health", "/_ck/reset", faultsPath, "/_ck/notifications", requestsPath: return true
        default:
            return path.hasPrefix(faultsPath + "/") || path.hasPrefix(SignInPage.path) || path.hasPrefix(requestsPath + "/")
                || consoleRoutes[path] != nil
        }
    }

    static func handle(_ request: HTTPRequest, server: CloudKitServer, requestID: String) -> HTTPResponse {
        if request.path.hasPrefix(SignInPage.path) { return SignInPage.handle(request, server: server, requestID: requestID) }
        do throws(CKError) {
            return try route(request, server: server)
        } catch {
            var e = error
            e.requestID = requestID
            // The wire shape has no place for items (a fixtures document's problems): the reason names each one.
            if !e.items.isEmpty {
                let shown = e.items.prefix(maxItemsInReason).map { "\($0.id): \($0.error.reason)" }
                let more = e.items.count > maxItemsInReason ? "; and \(e.items.count - maxItemsInReason) more" : ""
                e.reason += " (" + shown.joined(separator: "; ") + more + ")"
            }
            return WireError.response(e, requestID: requestID)
        }
    }

    /// The route a path and method name, performed.
    private static func route(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> HTTPResponse {
        let path = request.path
        switch path {
        case "/_ck/health":
            try allow(request, ["GET"])
            return .json(try health(server))
        case "/_ck/reset":
            try allow(request, ["POST"])
            return .json(try reset(request, server: server))
        case faultsPath:
            try allow(request, ["GET", "POST", "DELETE"])
            switch request.method {
            case "GET": return .json(try listFaults(request, server: server))
            case "POST": return .json(try addFault(request, server: server))
            default: return .json(try clearFaults(nil, request, server: server))
            }
        case "/_ck/notifications":
            try allow(request, ["GET"])
            return .json(try notifications(request, server: server))
        case requestsPath:
            try allow(request, ["GET", "DELETE"])
            return .json(try requests(request, server: server))
        default:
            // The console's routes (users, schema, quotas, shares, zones, subscriptions): a table of their own.
            if let route = consoleRoutes[path] {
                try allow(request, route.methods)
                return .json(try route.handle(request, server))
            }
            if path.hasPrefix(requestsPath + "/") {
                try allow(request, ["GET"])
                return try requestsItem(request, server: server)
            }
            if path.hasPrefix(faultsPath + "/") {
                try allow(request, ["DELETE"])
                guard let id = HTTPRequest.percentDecoded(path.dropFirst(faultsPath.count + 1).replacingOccurrences(of: "+", with: "%2B")),
                      !id.isEmpty, !id.contains("/") else {
                    throw CKError(.invalidArguments, "\(path): expected /_ck/faults/<rule id>")
                }
                return .json(try clearFaults(id, request, server: server))
            }
            throw CKError(.unknownItem, "no such control-plane route: \(path) (ck's routes: \(routeList))", serverErrorCode: "NOT_FOUND")
        }
    }

    /// The routes, for the NOT_FOUND answer.
    static let routes = ["GET /_ck/health", "POST /_ck/reset", "GET|POST|DELETE /_ck/faults", "DELETE /_ck/faults/<id>",
                         "GET /_ck/notifications", "GET|DELETE /_ck/requests",
                         "GET /_ck/requests/<seq>", "GET /_ck/requests/events"] + consoleRouteList
    private static let routeList = routes.joined(separator: ", ")

    /// Refuses a method the route does not answer (METHOD_NOT_ALLOWED, 405).
    private static func allow(_ request: HTTPRequest, _ methods: [String]) throws(CKError) {
        guard methods.contains(request.method) else {
            throw CKError(.invalidArguments, "\(request.path) answers \(methods.joined(separator: ", ")), not \(request.method)",
                          serverErrorCode: "METHOD_NOT_ALLOWED")
        }
    }

    // MARK: Parameters

    /// The JSON body of a POST (`{}` when empty), naming where it is malformed.
    static func body(_ request: HTTPRequest) throws(CKError) -> [String: JSON] {
        request.method == "GET" || request.method == "DELETE" && request.body.isEmpty ? [:] : try RequestContext.parseBody(request.body)
    }

    /// A string parameter from the query, else from the body; a body value of another type is refused by name.
    static func parameter(_ name: String, _ request: HTTPRequest, body: [String: JSON]) throws(CKError) -> String? {
        if let v = request.query[name] { return v }
        guard let v = body[name], !v.isNull else { return nil }
        guard let s = v.stringValue else { throw CKError(.invalidArguments, "\(name): expected a string, got \(v.kindName)") }
        return s
    }

    /// The container and environment a request names (default: the store's current container, development).
    static func target(_ request: HTTPRequest, body: [String: JSON], server: CloudKitServer) throws(CKError) -> (CKContainer, Environment) {
        let environment = try self.environment(request, body: body) ?? .development
        let id = try parameter("container", request, body: body)
        return (try server.store.container(id), environment)
    }

    /// The environment a request names, if it names one.
    static func environment(_ request: HTTPRequest, body: [String: JSON]) throws(CKError) -> Environment? {
        guard let name = try parameter("environment", request, body: body) else { return nil }
        guard let e = Environment(rawValue: name) else {
            throw CKError(.invalidArguments, "environment: expected development or production, not '\(name)'")
        }
        return e
    }

    /// A whole-number query parameter, if given.
    static func integer(_ name: String, _ request: HTTPRequest, min: Int64) throws(CKError) -> Int64? {
        guard let text = request.query[name] else { return nil }
        guard let n = Int64(text), n >= min else {
            throw CKError(.invalidArguments, "\(name): expected a whole number of at least \(min), not '\(text)'")
        }
        return n
    }

    // MARK: Health

    /// `{status: "ok", storeFormat, store, currentContainer, containers, url, pid, auth: "none"|"token", noAuthUser?}`.
    static func health(_ server: CloudKitServer) throws(CKError) -> JSON {
        let store = server.store
        var o: [String: JSON] = ["status": .string("ok"), "storeFormat": .int(CKStore.formatVersion), "store": .string(store.root),
                                 "pid": .int(Int64(ServeAdvertisement.currentPID)),
                                 "currentContainer": .string(try store.currentContainerID()),
                                 "containers": .array(try store.containerIDs().map { .string($0) }),
                                 "url": .string(server.baseURL),
                                 "auth": .string(server.options.noAuthUser == nil ? "token" : "none")]
        if let user = server.options.noAuthUser { o["noAuthUser"] = .string(user) }
        return .object(o)
    }
}
