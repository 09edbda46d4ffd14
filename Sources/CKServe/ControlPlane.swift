import CKModel

/// ck's own routes under `/_ck/` (not part of CloudKit): health, reset, faults, notifications, the request log.
enum ControlPlane {
    static func handle(_ request: HTTPRequest, server: CloudKitServer, requestID: String) -> HTTPResponse {
        if request.path.hasPrefix(SignInPage.path) { return SignInPage.handle(request, server: server, requestID: requestID) }
        if request.path == "/_ck/health" { return .json(.object(["status": .string("ok")])) }
        return WireError.response(CKError(.unknownItem, "no such control-plane route: \(request.path)", serverErrorCode: "NOT_FOUND"),
                                  requestID: requestID)
    }
}
