import Foundation
import Synchronization
import CKModel
import CKServer

/// Asset upload URLs (single-use, 15 minutes) and download URLs, served on the server's own port under opaque ids.
///
/// - Upload: `POST {pathPrefix}upload/<64 random hex digits>` with the raw bytes, no auth. The id names a pending
///   upload made by assets/upload (container, environment, database, caller); the first POST consumes it, whatever
///   its outcome, except one refused for size, which leaves it usable. Pending uploads live in memory.
/// - Download: `GET {pathPrefix}download/<container, URL-safe base64>/<environment>/<sha256>/<any name>?t=<token>`;
///   the last segment is Apple's `${f}` placeholder and may hold anything. The id is only ever a SHA-256: never a
///   path. The token is a bearer token: an HMAC of container, environment and SHA-256 under a key this server drew
///   at start, handed out only in a record a caller could read; a URL without it (built from a hash) is unknown.
///   Tokens live as long as the server (CloudKit's URLs expire too).
public final class AssetTransfer: Sendable {
    /// Where upload and download URLs live.
    public static let pathPrefix = "/_ck/assets/"
    /// How long an upload URL stays valid, in ms on the store's clock ("valid for a limited time (15 minutes)").
    static let uploadLifetime: Int64 = 15 * 60 * 1000

    /// An upload URL not yet used: where its bytes go, and as whom.
    struct Pending: Sendable {
        var store: CKStore
        var container: String
        var environment: Environment
        var scope: DatabaseScope
        var caller: Caller
        /// When the URL stops working (ms on the store's clock).
        var expires: Int64
    }

    private let pending = Mutex<[String: Pending]>([:])
    /// The key download tokens are made with: random, drawn once per server.
    private let downloadKey: [UInt8]

    init() {
        var rng = SystemRandomNumberGenerator()
        downloadKey = (0..<32).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }

    /// The `downloadURL` of a stored asset on this server, as a fetched record's asset value carries it
    /// (wire encoders call this; the id in it is opaque, never a path).
    func downloadURL(_ asset: Asset, context: RequestContext) -> String {
        let container = Base64URL.encode(Array(context.path.container.utf8)), environment = context.environment.rawValue
        return context.server.baseURL + AssetTransfer.pathPrefix + "download/" + container + "/" + environment + "/" + asset.sha256
            + "/${f}?t=" + downloadToken(container: container, environment: environment, sha256: asset.sha256)
    }

    /// The bearer token of a download URL: the caller was handed it with a record it could read.
    private func downloadToken(container: String, environment: String, sha256: String) -> String {
        let mac = SignatureVerifier.hmacSHA256(key: downloadKey, data: Array("\(container)\n\(environment)\n\(sha256.lowercased())".utf8))
        return Base64URL.encode(Array(mac.prefix(24)))
    }

    /// A new single-use upload URL for the request's container, environment, database and caller.
    func uploadURL(_ context: RequestContext) -> String {
        var rng = SystemRandomNumberGenerator()
        let id = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
        let now = context.server.store.now()
        let p = Pending(store: context.server.store, container: context.path.container, environment: context.environment,
                        scope: context.scope, caller: context.caller, expires: now + AssetTransfer.uploadLifetime)
        pending.withLock { all in
            all = all.filter { $0.value.expires > now }
            all[id] = p
        }
        return context.server.baseURL + AssetTransfer.pathPrefix + "upload/" + id
    }

    /// A POST of raw bytes to an upload URL, or a GET of a download URL.
    func handle(_ request: HTTPRequest, server: CloudKitServer, requestID: String) -> HTTPResponse {
        let rest = request.path.dropFirst(AssetTransfer.pathPrefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        do throws(CKError) {
            switch rest.first {
            case "upload":
                guard request.method == "POST" || request.method == "PUT" else { throw notAllowed(request, "POST") }
                guard rest.count == 2 else { throw unknownURL(request) }
                return .json(try upload(id: rest[1], bytes: request.body))
            case "download":
                guard request.method == "GET" || request.method == "HEAD" else { throw notAllowed(request, "GET") }
                guard rest.count == 4 || rest.count == 5 else { throw unknownURL(request) }
                // Only a URL this server handed out: the token proves the caller could read a record holding the asset.
                let expected = downloadToken(container: rest[1], environment: rest[2], sha256: rest[3])
                guard let token = request.query["t"], AssetTransfer.same(Array(token.utf8), Array(expected.utf8)) else {
                    throw CKError(.unknownItem, "no such asset URL: an asset is downloaded from the downloadURL of a record you can read",
                                  serverErrorCode: "NOT_FOUND", hint: "fetch the record (records/lookup, records/query) and use its asset's downloadURL")
                }
                return try download(container: rest[1], environment: rest[2], sha256: rest[3], server: server, head: request.method == "HEAD")
            default:
                throw unknownURL(request)
            }
        } catch {
            return WireError.response(error, requestID: requestID)
        }
    }

    /// Stores the bytes of a pending upload and answers `{singleFile:{…}}`.
    private func upload(id: String, bytes: [UInt8]) throws(CKError) -> JSON {
        if Int64(bytes.count) > Asset.maxSize {
            throw Asset.tooLarge("the uploaded file", size: Int64(bytes.count))
        }
        let taken = pending.withLock { all -> Pending? in all.removeValue(forKey: id) }
        guard let p = taken, p.expires > p.store.now() else {
            throw CKError(.unknownItem, taken == nil ? "this upload URL is unknown or was already used (upload URLs are single-use)"
                                                     : "this upload URL has expired (upload URLs are valid for 15 minutes)",
                          hint: "ask assets/upload for a new URL")
        }
        let db = try p.store.container(p.container).database(p.scope, environment: p.environment, caller: p.caller)
        let asset = try db.uploadAsset(bytes)
        return .object(["singleFile": .object(AssetTransfer.assetDictionary(asset))])
    }

    /// The bytes of an asset, as `application/octet-stream`.
    private func download(container encoded: String, environment: String, sha256: String, server: CloudKitServer, head: Bool) throws(CKError) -> HTTPResponse {
        guard let raw = Base64URL.decode(encoded), let container = String(validating: raw, as: UTF8.self),
              let env = Environment(rawValue: environment) else {
            throw CKError(.unknownItem, "no such asset URL", serverErrorCode: "NOT_FOUND")
        }
        let db = try server.store.container(container).database(.public, environment: env, caller: .developer)
        let bytes: [UInt8]
        do throws(CKError) { bytes = try db.assetBytes(sha256: sha256) } catch let error where error.code == .unknownItem {
            // The URL was handed out with a record, so the asset exists: bytes the store can't give are a damaged store.
            throw CKError(.assetNotAvailable, "asset \(sha256.lowercased()) can't be read, though a record refers to it (a damaged store): \(error.reason)",
                          serverErrorCode: "NOT_FOUND", hint: "'ck doctor' names the missing or linked file; restore it, or save the record again with the asset")
        }
        return HTTPResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], body: head ? [] : bytes)
    }

    /// The asset dictionary an upload answers and assets/rereference returns: `fileChecksum` is the base64 of the
    /// SHA-256 (what records/modify reads back); `receipt`, `wrappingKey` and `referenceChecksum` are opaque values
    /// derived from it (ck encrypts nothing).
    static func assetDictionary(_ asset: Asset) -> [String: JSON] {
        let digest = FieldValue.hexBytes(asset.sha256)
        let wrappingKey = sha256(Array("ck wrapping key ".utf8) + digest)
        return ["fileChecksum": .string(Data(digest).base64EncodedString()), "size": .int(asset.size),
                "receipt": .string("ck-" + asset.sha256), "wrappingKey": .string(Data(wrappingKey).base64EncodedString()),
                "referenceChecksum": .string(Data(sha256(wrappingKey)).base64EncodedString())]
    }

    private static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var h = SHA256()
        h.update(bytes)
        return h.finalize()
    }

    /// Compares two tokens in time that does not depend on where they differ.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var diff: UInt8 = 0
        for i in a.indices { diff |= a[i] ^ b[i] }
        return diff == 0
    }

    private func notAllowed(_ request: HTTPRequest, _ method: String) -> CKError {
        CKError(.invalidArguments, "this asset URL answers \(method), not \(request.method)", serverErrorCode: "METHOD_NOT_ALLOWED")
    }

    private func unknownURL(_ request: HTTPRequest) -> CKError {
        CKError(.unknownItem, "no such asset URL: \(request.path.prefix(200))", serverErrorCode: "NOT_FOUND")
    }
}
