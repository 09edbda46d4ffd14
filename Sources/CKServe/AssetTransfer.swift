import CKModel

/// Asset upload URLs (single-use, 15 minutes) and download URLs, served on the server's own port under opaque ids.
public final class AssetTransfer: Sendable {
    /// Where upload and download URLs live.
    public static let pathPrefix = "/_ck/assets/"

    init() {}

    /// The `downloadURL` of a stored asset on this server, as a fetched record's asset value carries it
    /// (wire encoders call this; the id in it is opaque, never a path).
    func downloadURL(_ asset: Asset, context: RequestContext) -> String {
        context.server.baseURL + AssetTransfer.pathPrefix + "download/" + asset.sha256 + "/${f}"
    }

    /// A POST of raw bytes to an upload URL, or a GET of a download URL.
    func handle(_ request: HTTPRequest, server: CloudKitServer, requestID: String) -> HTTPResponse {
        WireError.response(CKError(.internalError, "not built yet: asset transfer"), requestID: requestID)
    }
}
