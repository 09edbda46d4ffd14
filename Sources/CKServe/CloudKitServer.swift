import Foundation
import Synchronization
import CKModel
import CKServer
import CKFiles

/// `ck serve`'s request handling: CORS, the control plane, asset and courier URLs, and CloudKit Web Services,
/// each request decoded into the same operations the command line runs through `perform`.
public final class CloudKitServer: HTTPResponder {
    public let store: CKStore
    public let options: ServeOptions
    /// The last requests, for `GET /_ck/requests` and `ck serve log`.
    public let requestLog: RequestLog
    /// Web-courier queues, one per APNs token.
    public let courier: WebCourier
    /// Pending asset uploads and download ids.
    public let assets: AssetTransfer
    /// Web auth tokens and server-to-server keys.
    public let authenticator: Authenticator
    /// The URL clients reach this server at (`http://HOST:PORT`), set once the port is bound.
    public var baseURL: String {
        get { base.withLock { $0 } }
        set { base.withLock { $0 = newValue } }
    }
    private let base = Mutex("http://127.0.0.1")

    public init(store: CKStore, options: ServeOptions) {
        // Every request makes its own database: without this each one would open and parse the index again.
        CKStore.keepIndexesOpen()
        self.store = store
        self.options = options
        requestLog = RequestLog(capacity: options.requestLogSize)
        courier = WebCourier(hold: options.courierHold)
        assets = AssetTransfer()
        authenticator = Authenticator(store: store, options: options)
    }

    public func respond(to request: HTTPRequest, reply: @escaping HTTPReply, closed: HTTPClosedSignal) {
        if let page = ConsolePage.answer(request) { return reply(page) }
        let started = DispatchTime.now().uptimeNanoseconds
        let requestID = RequestID.next()
        var entry = RequestLog.Entry(time: store.now(), method: request.method, path: request.path, requestID: requestID)
        if let response = routingAnswer(request, requestID: requestID, entry: &entry) {
            return reply(finish(response, request: request, entry: entry, started: started))
        }
        let path = request.path
        let response: HTTPResponse
        if path.hasPrefix(AssetTransfer.pathPrefix) {
            entry.operation = "assets/transfer"
            response = assets.handle(request, server: self, requestID: requestID)
        } else if path.hasPrefix(WebCourier.path) {
            entry.operation = "courier/poll"
            let logged = entry
            return courier.poll(request, requestID: requestID, reply: { [self] r in
                reply(finish(r, request: request, entry: logged, started: started))
            }, closed: closed)
        } else if ControlPlane.owns(path) {
            entry.operation = "control" + path.dropFirst(4)
            response = ControlPlane.handle(request, server: self, requestID: requestID)
        } else {
            response = webServices(request, requestID: requestID, entry: &entry)
        }
        reply(finish(response, request: request, entry: entry, started: started))
    }

    public func respondAtOnce(to request: HTTPRequest) -> HTTPResponse? {
        if let page = ConsolePage.answer(request) { return page }
        let started = DispatchTime.now().uptimeNanoseconds
        let requestID = RequestID.next()
        var entry = RequestLog.Entry(time: store.now(), method: request.method, path: request.path, requestID: requestID)
        entry.inPlace = true
        if let response = routingAnswer(request, requestID: requestID, entry: &entry) ?? inPlaceAnswer(request, requestID: requestID, entry: &entry) {
            return finish(response, request: request, entry: entry, started: started)
        }
        guard readsInPlace(request) else { return nil }
        let response = webServices(request, requestID: requestID, entry: &entry)
        // A lock it needed was taken: what it did is dropped (it only read), and a worker, which may wait, does the
        // whole request again. Nothing was logged or sent.
        if LockNoWait.takeRefusal() { return nil }
        return finish(response, request: request, entry: entry, started: started)
    }

    /// Web Services operations that only read: answered in place while every lock they need is free.
    private static let inPlaceReads: Set<String> = ["records/lookup", "records/query", "records/changes", "zones/list", "zones/lookup",
                                                    "zones/changes", "changes/database", "changes/zone"]

    /// Whether a request is a Web Services read to try in place. Not with single-use tokens: authentication spends
    /// the token before a taken lock is found, and the worker's second try would find it spent.
    private func readsInPlace(_ request: HTTPRequest) -> Bool {
        guard !options.singleUseTokens, request.path.hasPrefix("/database/"),
              let path = try? WebServicesPath.parse(request.path) else { return false }
        return Self.inPlaceReads.contains(path.operation)
    }

    /// The control-plane routes that read only memory, or a file without taking a lock (`/_ck/health`, the request
    /// log but for its event stream), answered where they arrive: the hand-off to a worker and back would cost more
    /// than they do, and nothing in them can wait on the command line. nil for every other request.
    private func inPlaceAnswer(_ request: HTTPRequest, requestID: String, entry: inout RequestLog.Entry) -> HTTPResponse? {
        let path = request.path
        let answers = path == "/_ck/health" || path == ControlPlane.requestsPath
            || (path.hasPrefix(ControlPlane.requestsPath + "/") && path != ControlPlane.eventsPath)
        guard answers else { return nil }
        entry.operation = "control" + path.dropFirst(4)
        return ControlPlane.handle(request, server: self, requestID: requestID)
    }

    /// The answer given before any route runs, without the store: a CORS preflight, a control-plane path that is
    /// none of its routes, a body too large. nil for everything else (Web Services routing, with its own refusals,
    /// runs once, in `webServices`).
    private func routingAnswer(_ request: HTTPRequest, requestID: String, entry: inout RequestLog.Entry) -> HTTPResponse? {
        if request.method == "OPTIONS" {
            entry.operation = "preflight"
            return CORS.preflight(request)
        }
        let path = request.path
        if path.hasPrefix(AssetTransfer.pathPrefix) || path.hasPrefix(WebCourier.path) { return nil }
        if ControlPlane.owns(path) {
            guard !ControlPlane.routes(path) else { return nil }
            entry.operation = "control" + path.dropFirst(4)
            return ControlPlane.handle(request, server: self, requestID: requestID)
        }
        // A body too large for any request CloudKit accepts is refused in JSON (the transport reads up to
        // HTTPServer.maxBody for assets).
        guard request.body.count > HTTPServer.maxJSONBody else { return nil }
        let e = CKError(.limitExceeded, "the request body is \(request.body.count) bytes; ck serve takes JSON bodies of at most \(HTTPServer.maxJSONBody) bytes (16 MiB)")
        var response = failure(e, requestID: requestID, entry: &entry)
        response.status = 413
        return response
    }

    /// Adds the headers every response carries and logs the request.
    private func finish(_ response: HTTPResponse, request: HTTPRequest, entry: RequestLog.Entry, started: UInt64) -> HTTPResponse {
        var r = response
        var e = entry
        r.headers.append(("X-Apple-Request-UUID", e.requestID))
        r.headers.append(contentsOf: CORS.headers(for: request))
        e.status = r.status
        e.duration = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        if e.serverErrorCode == nil, let logged = r.loggedError {
            e.serverErrorCode = logged.serverErrorCode
            e.reason = logged.reason
        }
        e.keepBodies(request: request, response: r)
        requestLog.append(e)
        return r
    }

    /// A `/database/1/…` or `/device/1/…` request: route, authenticate, decode, perform, encode.
    func webServices(_ request: HTTPRequest, requestID: String, entry: inout RequestLog.Entry) -> HTTPResponse {
        var principal: Principal? = nil
        do throws(CKError) {
            let (path, route) = try self.route(request, entry: &entry)
            let p = try authenticator.authenticate(request, path: path, route: route)
            principal = p
            entry.caller = p.logName
            let body = request.method == "GET" ? [:] : try RequestContext.parseBody(request.body)
            let context = RequestContext(request: request, requestID: requestID, path: path, principal: p, server: self, body: body)
            var response = HTTPResponse.json(try route.handler(context))
            response.headers.append(contentsOf: authenticator.responseHeaders(for: p))
            // Items refused inside the 200: the log shows the first one's code and the rule that decided it.
            if let first = context.itemErrors.first {
                let n = context.itemErrors.count
                entry.serverErrorCode = first.serverErrorCode
                entry.reason = "\(n) item\(n == 1 ? "" : "s") failed inside the 200; the first: \(first.reason)"
                entry.rule = context.itemErrors.lazy.compactMap { $0.details["rule"]?.stringValue }.first
            }
            return response
        } catch {
            var response = failure(error, requestID: requestID, entry: &entry)
            if let principal { response.headers.append(contentsOf: authenticator.responseHeaders(for: principal)) }
            return response
        }
    }

    /// The Web Services route a request takes: its path parsed, the route found, the method checked.
    private func route(_ request: HTTPRequest, entry: inout RequestLog.Entry) throws(CKError) -> (WebServicesPath, WebServicesRoute) {
        let path = try WebServicesPath.parse(request.path)
        entry.operation = path.operation
        entry.container = path.container
        entry.database = path.database?.rawValue
        guard let route = WebServicesRoutes.route(path.operation, database: path.database) else {
            throw CKError(.unknownItem, "no such endpoint: \(path.operation) (\(request.path))", serverErrorCode: "NOT_FOUND")
        }
        guard route.methods.contains(request.method) else {
            throw CKError(.invalidArguments, "\(path.operation) answers \(route.methods.joined(separator: " or ")), not \(request.method)",
                          serverErrorCode: "METHOD_NOT_ALLOWED")
        }
        return (path, route)
    }

    /// A refused request: its error in CloudKit's shape, and in the log entry.
    private func failure(_ error: CKError, requestID: String, entry: inout RequestLog.Entry) -> HTTPResponse {
        var e = error
        e.requestID = requestID
        entry.serverErrorCode = e.serverErrorCode
        entry.reason = e.reason
        entry.rule = e.details["rule"]?.stringValue
        return WireError.response(e, requestID: requestID)
    }
}
