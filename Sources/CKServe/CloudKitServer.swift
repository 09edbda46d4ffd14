import Foundation
import Synchronization
import CKModel
import CKServer

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
        self.store = store
        self.options = options
        requestLog = RequestLog(capacity: options.requestLogSize)
        courier = WebCourier(hold: options.courierHold)
        assets = AssetTransfer()
        authenticator = Authenticator(store: store, options: options)
    }

    public func respond(to request: HTTPRequest, reply: @escaping HTTPReply, closed: HTTPClosedSignal) {
        let started = DispatchTime.now().uptimeNanoseconds
        let requestID = UUID().uuidString
        var entry = RequestLog.Entry(time: store.now(), method: request.method, path: request.path, requestID: requestID)
        let path = request.path
        if request.method == "OPTIONS" {
            entry.operation = "preflight"
        } else if path.hasPrefix(AssetTransfer.pathPrefix) {
            entry.operation = "assets/transfer"
        } else if path.hasPrefix(WebCourier.path) {
            entry.operation = "courier/poll"
            let logged = entry
            return courier.poll(request, requestID: requestID, reply: { [self] r in
                send(r, request: request, entry: logged, started: started, reply: reply)
            }, closed: closed)
        } else if path.hasPrefix("/_ck/") || path == "/_ck" {
            entry.operation = "control" + path.dropFirst(4)
        }
        let response: HTTPResponse
        if request.method == "OPTIONS" {
            response = CORS.preflight(request)
        } else if path.hasPrefix(AssetTransfer.pathPrefix) {
            response = assets.handle(request, server: self, requestID: requestID)
        } else if path.hasPrefix("/_ck/") || path == "/_ck" {
            response = ControlPlane.handle(request, server: self, requestID: requestID)
        } else {
            response = webServices(request, requestID: requestID, entry: &entry)
        }
        send(response, request: request, entry: entry, started: started, reply: reply)
    }

    /// Adds the headers every response carries, logs the request and replies.
    private func send(_ response: HTTPResponse, request: HTTPRequest, entry: RequestLog.Entry, started: UInt64, reply: HTTPReply) {
        var r = response
        var e = entry
        r.headers.append(("X-Apple-Request-UUID", e.requestID))
        r.headers.append(contentsOf: CORS.headers(for: request))
        e.status = r.status
        e.duration = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        if e.serverErrorCode == nil, r.status >= 400,
           let json = try? JSON.parse(utf8: r.body), let code = json["serverErrorCode"]?.stringValue {
            e.serverErrorCode = code
            e.reason = json["reason"]?.stringValue
        }
        requestLog.append(e)
        reply(r)
    }

    /// A `/database/1/…` or `/device/1/…` request: route, authenticate, decode, perform, encode.
    func webServices(_ request: HTTPRequest, requestID: String, entry: inout RequestLog.Entry) -> HTTPResponse {
        // A body too large for any request CloudKit accepts is refused in JSON (the transport reads up to HTTPServer.maxBody for assets).
        if request.body.count > HTTPServer.maxJSONBody { var r = WireError.response(CKError(.limitExceeded, "the request body is \(request.body.count) bytes; ck serve takes JSON bodies of at most \(HTTPServer.maxJSONBody) bytes (16 MiB)"), requestID: requestID); r.status = 413; return r }
        var principal: Principal? = nil
        do throws(CKError) {
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
            var e = error
            e.requestID = requestID
            entry.serverErrorCode = e.serverErrorCode
            entry.reason = e.reason
            entry.rule = e.details["rule"]?.stringValue
            var response = WireError.response(e, requestID: requestID)
            if let principal { response.headers.append(contentsOf: authenticator.responseHeaders(for: principal)) }
            return response
        }
    }
}
