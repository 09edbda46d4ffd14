import Foundation
import Synchronization
import CKModel
import CKServer

/// Decides who a request acts as: web auth token, server-to-server signature, `--no-auth`, or nobody.
///
/// Tokens and keys live in the container's auth.json (`ck serve token`, `ck serve key`); each request costs a `stat`
/// of it, and a read only when it changed. Rotated tokens are derived, not stored: a token minted by ck is 24 random
/// bytes; the token a response hands back is `0xC1 ‖ id ‖ nonce ‖ HMAC-SHA256(minted token, 0xC1 ‖ id ‖ nonce)`
/// (id: the first 8 bytes of the minted token's SHA-256), so it belongs to the same stored token, shares its
/// expiry and revocation, and costs no write.
public final class Authenticator: Sendable {
    let store: CKStore
    let options: ServeOptions
    /// auth.json of each container, as last read, by container ID.
    private let cache = Mutex<[String: Index]>([:])
    /// Tokens already used, when tokens are single-use (kept in memory: a restarted server forgets them).
    private let consumed = Mutex<Set<String>>([])

    static let keyIDHeader = "X-Apple-CloudKit-Request-KeyID"
    static let dateHeader = "X-Apple-CloudKit-Request-ISO8601Date"
    static let signatureHeader = "X-Apple-CloudKit-Request-SignatureV1"
    static let webTokenHeader = "X-Apple-CloudKit-Web-Auth-Token"
    /// Under `--no-auth` only: the user a request acts as (the console's user picker).
    static let userHeader = "X-CK-User"
    /// Under `--no-auth` only: `1` makes a request act as nobody (the console's "anonymous").
    static let anonymousHeader = "X-CK-Anonymous"
    /// The first byte of a rotated token's bytes.
    static let rotatedMarker: UInt8 = 0xC1
    static let mintedLength = 24
    static let rotatedLength = 1 + 8 + 12 + 16

    init(store: CKStore, options: ServeOptions) {
        self.store = store
        self.options = options
    }

    /// The request's principal, or AUTHENTICATION_FAILED / AUTHENTICATION_REQUIRED in CloudKit's shapes.
    func authenticate(_ request: HTTPRequest, path: WebServicesPath, route: WebServicesRoute) throws(CKError) -> Principal {
        if let user = options.noAuthUser { return try noAuth(request, path: path, route: route, defaultUser: user) }
        if let keyID = request.header(Self.keyIDHeader), let date = request.header(Self.dateHeader),
           let signature = request.header(Self.signatureHeader) {
            return try serverToServer(request, path: path, keyID: keyID, date: date, signature: signature)
        }
        let token = request.query["ckWebAuthToken"] ?? request.header(Self.webTokenHeader)
        if let token, !token.isEmpty {
            guard let p = try webToken(token, container: path.container) else { throw authenticationRequired(request, path: path) }
            return p
        }
        if route.needsUser || path.database == .private || path.database == .shared { throw authenticationRequired(request, path: path) }
        return Principal(kind: .anonymous, caller: .anonymous())
    }

    /// Under `--no-auth`, who a request acts as: `X-CK-User: NAME` (checked as `--as` checks a name, near misses of
    /// listed users refused), `X-CK-Anonymous: 1` (nobody: public reads only, as a request without a token), else
    /// the `--no-auth` user. The headers let the console switch users; a server with tokens never reads them.
    func noAuth(_ request: HTTPRequest, path: WebServicesPath, route: WebServicesRoute, defaultUser: String) throws(CKError) -> Principal {
        if let flag = request.header(Self.anonymousHeader) {
            guard flag == "1" else {
                throw CKError(.invalidArguments, "\(Self.anonymousHeader): expected 1, not '\(Names.describe(flag))'")
            }
            if route.needsUser || path.database == .private || path.database == .shared { throw authenticationRequired(request, path: path) }
            return Principal(kind: .anonymous, caller: .anonymous())
        }
        guard let name = request.header(Self.userHeader) else {
            return Principal(kind: .noAuth(user: defaultUser), caller: try .user(defaultUser))
        }
        // A container the store lacks is refused later, by the operation, as for any other caller.
        let caller = try Caller.named(name, in: try? store.container(path.container), label: Self.userHeader)
        return Principal(kind: .noAuth(user: name), caller: caller)
    }

    /// Headers every response to this principal carries (the next web auth token).
    func responseHeaders(for principal: Principal) -> [(name: String, value: String)] {
        guard let next = principal.nextWebAuthToken else { return [] }
        return [(Self.webTokenHeader, next)]
    }

    // MARK: Web auth tokens

    /// The principal a web auth token acts as; nil when the token is unknown, revoked, expired or (single-use) spent.
    func webToken(_ sent: String, container: String) throws(CKError) -> Principal? {
        // A client that did not URL-encode the token sent `+`, which the query decodes as a space.
        let text = sent.replacingOccurrences(of: " ", with: "+")
        guard let bytes = Base64URL.decode(text) else { return nil }
        let index = try self.index(container)
        let entry: WebAuthToken
        if bytes.count == Self.mintedLength {
            guard let e = index.tokens[Data(bytes).base64EncodedString()] else { return nil }
            entry = e
        } else if bytes.count == Self.rotatedLength, bytes[0] == Self.rotatedMarker {
            guard let e = index.byID[Array(bytes[1..<9])], let secret = Data(base64Encoded: e.token) else { return nil }
            let mac = SignatureVerifier.hmacSHA256(key: Array(secret), data: Array(bytes[0..<21]))
            guard Array(mac.prefix(16)) == Array(bytes[21...]) else { return nil }
            entry = e
        } else {
            return nil
        }
        guard entry.isValid(at: store.now()) else { return nil }
        if options.singleUseTokens {
            let canonical = Data(bytes).base64EncodedString()
            guard consumed.withLock({ $0.insert(canonical).inserted }) else { return nil }
        }
        guard let caller = try? Caller.user(entry.user) else { return nil }
        return Principal(kind: .webToken(user: entry.user), caller: caller, nextWebAuthToken: Self.rotate(entry))
    }

    /// A fresh token for the same stored token: a random nonce and its HMAC under the minted token.
    static func rotate(_ entry: WebAuthToken) -> String? {
        guard let secret = Data(base64Encoded: entry.token) else { return nil }
        var rng = SystemRandomNumberGenerator()
        var bytes: [UInt8] = [rotatedMarker]
        bytes += SignatureVerifier.sha256(Array(secret)).prefix(8)
        bytes += (0..<12).map { _ in UInt8.random(in: 0...255, using: &rng) }
        bytes += SignatureVerifier.hmacSHA256(key: Array(secret), data: bytes).prefix(16)
        return Data(bytes).base64EncodedString()
    }

    /// HTTP 421 with the sign-in page's URL (`/_ck/signin`), where a user can be picked.
    func authenticationRequired(_ request: HTTPRequest, path: WebServicesPath) -> CKError {
        let host = request.header("Host") ?? "\(options.host):\(options.port)"
        let query = "container=" + SignInPage.escapeQuery(path.container) + "&environment=" + path.environment.rawValue
        return CKError(.notAuthenticated, "request needs authorization", serverErrorCode: "AUTHENTICATION_REQUIRED",
                       hint: "sign in at the redirectURL, or make a token with 'ck serve token create --as NAME'",
                       details: ["redirectURL": .string("http://\(host)\(SignInPage.path)?\(query)")])
    }

    // MARK: Server-to-server keys

    /// Checks a signed request (web-services.md §3.3): known key, date within the allowed skew, ECDSA P-256 signature
    /// over `date:base64(sha256(body)):target` (or `date::target` for an empty body). Keys reach the public database.
    func serverToServer(_ request: HTTPRequest, path: WebServicesPath, keyID: String, date: String, signature: String) throws(CKError) -> Principal {
        let index = try self.index(path.container)
        guard let key = index.keys[keyID] else { throw Self.failed }
        if let env = key.environment, env != path.environment { throw Self.failed }
        guard let signed = Self.parseDate(date), abs(Double(store.now()) / 1000 - signed) <= options.signatureSkew else { throw Self.failed }
        guard let der = Data(base64Encoded: signature.trimmingCharacters(in: .whitespaces)) else { throw Self.failed }
        let hash = Data(SignatureVerifier.sha256(request.body)).base64EncodedString()
        var verified = SignatureVerifier.verify(pem: key.publicKey, message: Array("\(date):\(hash):\(request.target)".utf8), signature: Array(der))
        if !verified && request.body.isEmpty {
            verified = SignatureVerifier.verify(pem: key.publicKey, message: Array("\(date)::\(request.target)".utf8), signature: Array(der))
        }
        guard verified else { throw Self.failed }
        // Keys are for the public database (Apple's documents); user lookups are answered under any database segment.
        if let db = path.database, db != .public, !path.operation.hasPrefix("users/") {
            throw CKError(.permissionFailure, "server-to-server keys reach the public database only, not the \(db.rawValue) database",
                          serverErrorCode: "ACCESS_DENIED")
        }
        return Principal(kind: .serverKey(name: key.name), caller: try .user(key.user))
    }

    /// 401 in the live shape: the reason is Apple's, whatever failed.
    static var failed: CKError {
        CKError(.notAuthenticated, "Authentication failed", serverErrorCode: "AUTHENTICATION_FAILED")
    }

    /// Seconds since 1970 of `YYYY-MM-DDTHH:MM:SSZ` (fractional seconds tolerated); nil when it is not that form.
    static func parseDate(_ text: String) -> Double? {
        let b = Array(text.utf8)
        guard b.count >= 20, b.last == UInt8(ascii: "Z"), b[4] == UInt8(ascii: "-"), b[7] == UInt8(ascii: "-"),
              b[10] == UInt8(ascii: "T"), b[13] == UInt8(ascii: ":"), b[16] == UInt8(ascii: ":") else { return nil }
        func number(_ r: Range<Int>) -> Int? {
            var n = 0
            for c in b[r] {
                guard c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
                n = n * 10 + Int(c - UInt8(ascii: "0"))
            }
            return n
        }
        guard let y = number(0..<4), let mo = number(5..<7), let d = number(8..<10), let h = number(11..<13),
              let mi = number(14..<16), let s = number(17..<19), (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, s < 61 else { return nil }
        if b.count > 20 {
            guard b[19] == UInt8(ascii: "."), b.count > 21, number(20..<(b.count - 1)) != nil else { return nil }
        }
        // Days from the civil date (Howard Hinnant's algorithm), so no C time zone state is touched.
        let yy = mo <= 2 ? y - 1 : y
        let era = (yy >= 0 ? yy : yy - 399) / 400
        let yoe = yy - era * 400
        let doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Double(days * 86400 + h * 3600 + mi * 60 + s)
    }

    // MARK: auth.json, cached

    /// A container's tokens and keys, indexed for lookups.
    struct Index: Sendable {
        var stamp: FileStamp?
        /// Minted tokens by their text.
        var tokens: [String: WebAuthToken] = [:]
        /// Minted tokens by the id rotated tokens carry.
        var byID: [[UInt8]: WebAuthToken] = [:]
        var keys: [String: ServerKey] = [:]

        init(_ auth: ServeAuth, stamp: FileStamp?) {
            self.stamp = stamp
            for t in auth.tokens {
                tokens[t.token] = t
                if let secret = Data(base64Encoded: t.token) { byID[Array(SignatureVerifier.sha256(Array(secret)).prefix(8))] = t }
            }
            for k in auth.keys { keys[k.name] = k }
        }
    }

    /// The container's index, read again only when auth.json changed; a container that does not exist has none.
    func index(_ container: String) throws(CKError) -> Index {
        let cached = cache.withLock { $0[container] }
        let c: CKContainer
        do { c = try store.container(container) } catch { return Index(ServeAuth(), stamp: nil) }
        guard let fresh = try c.serveAuth(ifChangedFrom: cached?.stamp) else {
            return cached ?? Index(ServeAuth(), stamp: nil)
        }
        let index = Index(fresh.auth, stamp: fresh.stamp)
        cache.withLock { $0[container] = index }
        return index
    }
}
