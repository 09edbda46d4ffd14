import CKModel
import CKServer

/// Who a request acts as, and how it proved it (the request log shows it).
public struct Principal: Sendable {
    public enum Kind: Sendable, Equatable {
        /// No web auth token: public reads only.
        case anonymous
        /// A web auth token bound to a user (`ck serve token create --as NAME`).
        case webToken(user: String)
        /// A server-to-server key (`ck serve key add NAME`): the developer, public database only.
        case serverKey(name: String)
        /// `--no-auth`: the named user, without proof.
        case noAuth(user: String)
    }

    public var kind: Kind
    public var caller: Caller
    /// The web auth token the response hands back (`X-Apple-CloudKit-Web-Auth-Token`) for a web-token principal.
    public var nextWebAuthToken: String?

    public init(kind: Kind, caller: Caller, nextWebAuthToken: String? = nil) {
        self.kind = kind
        self.caller = caller
        self.nextWebAuthToken = nextWebAuthToken
    }

    /// How the request log names it: `alice (web token)`, `key:ci (server-to-server)`, `anonymous`.
    public var logName: String {
        switch kind {
        case .anonymous: return "anonymous"
        case .webToken(let u): return "\(u) (web token)"
        case .serverKey(let n): return "key \(n) (server-to-server)"
        case .noAuth(let u): return "\(u) (--no-auth)"
        }
    }
}

/// One Web Services request on its way to an operation: the decoded path, the body, the caller.
public final class RequestContext {
    public let request: HTTPRequest
    /// The request's uuid: every error body's `uuid` and the `X-Apple-Request-UUID` header.
    public let requestID: String
    public let path: WebServicesPath
    public let principal: Principal
    public let server: CloudKitServer
    /// The body parsed as JSON whatever its Content-Type; an empty body (a GET) is `{}`.
    public let body: [String: JSON]
    /// The errors of single records, zones or subscriptions answered inside an HTTP 200, for the request log.
    public private(set) var itemErrors: [CKError] = []

    init(request: HTTPRequest, requestID: String, path: WebServicesPath, principal: Principal, server: CloudKitServer,
         body: [String: JSON]) {
        self.request = request
        self.requestID = requestID
        self.path = path
        self.principal = principal
        self.server = server
        self.body = body
    }

    /// Notes an item's error for the request log and hands it back, for the encoder that puts it in the answer.
    func failed(_ e: CKError) -> CKError {
        itemErrors.append(e)
        return e
    }

    /// The principal's caller, writing from the Web Services client's device.
    public var caller: Caller {
        var c = principal.caller
        c.deviceID = WireRecordEncoder.webServicesDeviceID
        return c
    }
    public var environment: Environment { path.environment }

    /// The database the path names (public for `/device/1/…` paths, which carry none).
    public var scope: DatabaseScope { path.database ?? .public }

    /// The container the path names, which must exist in the store.
    public func container() throws(CKError) -> CKContainer { try server.store.container(path.container) }

    private var opened: CKDatabase?

    /// The database handle this request acts through, opened once.
    public func database() throws(CKError) -> CKDatabase {
        if let opened { return opened }
        let db = try container().database(scope, environment: environment, caller: caller)
        opened = db
        return db
    }

    /// Parses the body's bytes as a JSON object, naming where it is malformed.
    static func parseBody(_ bytes: [UInt8]) throws(CKError) -> [String: JSON] {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) { return [:] }
        let json: JSON
        do { json = try JSON.parse(utf8: bytes) } catch {
            throw CKError(.invalidArguments, "the request body is not valid JSON: line \(error.line), column \(error.column): \(error.message)")
        }
        guard let object = json.objectValue else {
            throw CKError(.invalidArguments, "the request body must be a JSON object, not \(json.kindName)")
        }
        return object
    }
}
