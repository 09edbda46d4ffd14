/// A web auth token `ck serve` accepts in `ckWebAuthToken`, bound to one user of the container.
public struct WebAuthToken: Sendable, Equatable {
    /// The token as clients send it (standard base64: it carries `+`, `/` and `=`, which clients URL-encode).
    public var token: String
    /// The user the token acts as.
    public var user: String
    /// When it was made (ms since 1970).
    public var created: Int64
    /// When it stops working (ms since 1970); nil for never.
    public var expires: Int64?
    /// When it was revoked (ms since 1970); nil while it works.
    public var revoked: Int64?

    /// A token as made by `ck serve token create`.
    public init(token: String, user: String, created: Int64, expires: Int64? = nil, revoked: Int64? = nil) {
        self.token = token
        self.user = user
        self.created = created
        self.expires = expires
        self.revoked = revoked
    }

    /// The first characters, which lists show instead of the whole token.
    public var prefix: String { String(token.prefix(8)) }

    /// Whether the token works at `now` (ms since 1970): not revoked and not expired.
    public func isValid(at now: Int64) -> Bool {
        revoked == nil && (expires.map { now < $0 } ?? true)
    }

    /// `active`, `expired` or `revoked` at `now`.
    public func state(at now: Int64) -> String {
        if revoked != nil { return "revoked" }
        return isValid(at: now) ? "active" : "expired"
    }
}

/// A server-to-server key `ck serve` checks signatures with: the KeyID clients send and its P-256 public key.
public struct ServerKey: Sendable, Equatable {
    /// The key ID, as clients send it in `X-Apple-CloudKit-Request-KeyID`.
    public var name: String
    /// The public key, PEM (`-----BEGIN PUBLIC KEY-----`).
    public var publicKey: String
    /// The user the key's requests act as in the public database (records it saves carry this creator).
    public var user: String
    /// The only environment the key works in; nil for both.
    public var environment: Environment?
    /// When it was added (ms since 1970).
    public var added: Int64

    /// A key as added by `ck serve key add`.
    public init(name: String, publicKey: String, user: String, environment: Environment? = nil, added: Int64) {
        self.name = name
        self.publicKey = publicKey
        self.user = user
        self.environment = environment
        self.added = added
    }
}

/// A container's auth.json: the web auth tokens and server-to-server keys of `ck serve`.
public struct ServeAuth: Sendable, Equatable {
    public var tokens: [WebAuthToken] = []
    public var keys: [ServerKey] = []

    /// No tokens, no keys (a container without auth.json).
    public init() {}

    /// The file's JSON: `{"tokens": [...], "keys": [...]}`.
    public var json: JSON {
        .object([
            "tokens": .array(tokens.map { t in
                var o: [String: JSON] = ["token": .string(t.token), "user": .string(t.user), "created": .int(t.created)]
                if let e = t.expires { o["expires"] = .int(e) }
                if let r = t.revoked { o["revoked"] = .int(r) }
                return .object(o)
            }),
            "keys": .array(keys.map { k in
                var o: [String: JSON] = ["name": .string(k.name), "publicKey": .string(k.publicKey), "user": .string(k.user),
                                         "added": .int(k.added)]
                if let e = k.environment { o["environment"] = .string(e.rawValue) }
                return .object(o)
            }),
        ])
    }

    /// Reads the file's JSON; a file of another shape is reported with its path and the place, never guessed at.
    public init(json: JSON, path: String) throws(CKError) {
        func bad(_ why: String) -> CKError { CKError.corrupt(path: path, why) }
        guard let o = json.objectValue else { throw bad("expected a JSON object, found \(json.kindName)") }
        for (i, t) in (o["tokens"]?.arrayValue ?? []).enumerated() {
            guard let token = t["token"]?.stringValue, let user = t["user"]?.stringValue, let created = t["created"]?.int64Value else {
                throw bad("tokens[\(i)] needs a string \"token\", a string \"user\" and an integer \"created\"")
            }
            tokens.append(WebAuthToken(token: token, user: user, created: created, expires: t["expires"]?.int64Value,
                                       revoked: t["revoked"]?.int64Value))
        }
        for (i, k) in (o["keys"]?.arrayValue ?? []).enumerated() {
            guard let name = k["name"]?.stringValue, let pem = k["publicKey"]?.stringValue, let user = k["user"]?.stringValue,
                  let added = k["added"]?.int64Value else {
                throw bad("keys[\(i)] needs strings \"name\", \"publicKey\" and \"user\" and an integer \"added\"")
            }
            var env: Environment? = nil
            if let e = k["environment"], e != .null {
                guard let v = e.stringValue.flatMap(Environment.init(rawValue:)) else {
                    throw bad("keys[\(i)].environment is not development or production")
                }
                env = v
            }
            keys.append(ServerKey(name: name, publicKey: pem, user: user, environment: env, added: added))
        }
    }
}

/// What identifies a version of a file without reading it: size, inode and times. A writer's rename changes the
/// inode, so two equal stamps mean the same bytes.
public struct FileStamp: Sendable, Equatable {
    public var size: Int
    public var inode: Int64
    public var mtime: Int64
    public var ctime: Int64

    /// A stamp from `stat`'s fields.
    public init(size: Int, inode: Int64, mtime: Int64, ctime: Int64) {
        self.size = size
        self.inode = inode
        self.mtime = mtime
        self.ctime = ctime
    }
}
