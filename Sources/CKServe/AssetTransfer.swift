import CKModel

/// Asset upload URLs (single-use, 15 minutes) and download URLs, served on the server's own port under opaque ids.
public final class AssetTransfer: Sendable {
    /// Where upload and download URLs live.
    public static let pathPrefix = "/_ck/assets/"

    init() {}

    /// A POST of raw bytes to an upload URL, or a GET of a download URL.
    func handle(_ request: HTTPRequest, server: CloudKitServer, requestID: String) -> HTTPResponse {
        WireError.response(CKError(.internalError, "not built yet: asset transfer"), requestID: requestID)
    }
}
