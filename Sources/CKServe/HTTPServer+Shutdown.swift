import Foundation
import CKModel

// Kept apart from HTTPServer.swift: Foundation and the libevent module can't be imported in one file (both bring
// in glibc's fd_set through different clang modules).
extension HTTPServer {
    /// The answer to a request that arrives, or is still held, while the server stops: TRY_AGAIN_LATER, retry in 1 s.
    static func shuttingDown() -> HTTPResponse {
        var e = CKError(.serviceUnavailable, "the server is shutting down")
        e.retryAfter = 1
        let requestID = UUID().uuidString
        var r = WireError.response(e, requestID: requestID)
        r.headers.append(("X-Apple-Request-UUID", requestID))
        return r
    }
}
