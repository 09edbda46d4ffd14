import Foundation
import CKModel
import CKStorage

/// `ck serve`'s web auth tokens and server-to-server keys, kept in the container's auth.json and changed through
/// the door as the developer's work (`ck serve token`, `ck serve key`, the sign-in page of a loopback server).
extension CKContainer {
    /// The tokens and keys, as auth.json has them (none when there is no file).
    public func serveAuth() throws(CKError) -> ServeAuth {
        try store.perform(.serveAuthRead, container: identifier) { () throws(CKError) in try readServeAuth() }
    }

    /// The tokens and keys when auth.json is not the version `stamp` names (nil when it is): a server keeps them in
    /// memory and asks on each request, which costs a `stat`, not a read.
    public func serveAuth(ifChangedFrom stamp: FileStamp?) throws(CKError) -> (auth: ServeAuth, stamp: FileStamp?)? {
        try store.perform(.serveAuthRead, container: identifier) { () throws(CKError) in
            // Stat first, then read: a write in between leaves a newer file under an older stamp, read again next time.
            let now = serveAuthFile.stamp()
            if now == stamp, stamp != nil { return nil }
            return (try serveAuthFile.read(), now)
        }
    }

    /// Makes a web auth token for `user` (at least 128 random bits), good for `lifetime` seconds from its creation
    /// (nil: until revoked).
    public func createWebAuthToken(user: String, lifetime: Int64? = nil) throws(CKError) -> WebAuthToken {
        try store.perform(.webTokenCreate, container: identifier, validate: { () throws(CKError) in
            try Names.validateUserName(user)
            // A token for a typo of a listed user would act as a new, empty user.
            try refuseNearMiss(user: user, in: try info())
        }) { () throws(CKError) in
            try updateServeAuth { (auth) throws(CKError) -> WebAuthToken in
                var rng = SystemRandomNumberGenerator()
                let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &rng) }
                // One clock reading: the expiry is exactly the lifetime after the creation time shown.
                let created = store.now()
                let token = WebAuthToken(token: Data(bytes).base64EncodedString(), user: user, created: created,
                                         expires: lifetime.map { Self.after(created, seconds: $0) })
                auth.tokens.append(token)
                return token
            }
        }
    }

    /// `seconds` after `ms` (ms since 1970), the far future when that does not fit.
    static func after(_ ms: Int64, seconds: Int64) -> Int64 {
        let span = seconds.multipliedReportingOverflow(by: 1000)
        let sum = ms.addingReportingOverflow(span.partialValue)
        return span.overflow || sum.overflow ? Int64.max : sum.partialValue
    }

    /// Revokes one token (the whole token, or a prefix naming exactly one) or every token of `user`; returns the
    /// tokens revoked now (ones revoked before are not counted again).
    @discardableResult
    public func revokeWebAuthTokens(token: String? = nil, user: String? = nil) throws(CKError) -> [WebAuthToken] {
        try store.perform(.webTokenRevoke, container: identifier) { () throws(CKError) in
            try updateServeAuth { (auth) throws(CKError) -> [WebAuthToken] in
                let now = store.now()
                var indexes: [Int]
                if let token {
                    indexes = auth.tokens.indices.filter { auth.tokens[$0].token == token }
                    if indexes.isEmpty { indexes = auth.tokens.indices.filter { auth.tokens[$0].token.hasPrefix(token) } }
                    guard !indexes.isEmpty else {
                        throw CKError(.unknownItem, "no web auth token \(Names.describe(token)) in container \(identifier)",
                                      hint: "'ck serve token list' shows each token's first characters")
                    }
                    guard indexes.count == 1 else {
                        throw CKError(.invalidArguments, "\(Names.describe(token)) begins \(indexes.count) web auth tokens; give more of it")
                    }
                } else if let user {
                    indexes = auth.tokens.indices.filter { auth.tokens[$0].user == user }
                } else {
                    throw CKError(.invalidArguments, "name a token or a user whose tokens to revoke")
                }
                var revoked: [WebAuthToken] = []
                for i in indexes where auth.tokens[i].revoked == nil {
                    auth.tokens[i].revoked = now
                    revoked.append(auth.tokens[i])
                }
                return revoked
            }
        }
    }

    /// Adds a server-to-server key (its PEM checked by the caller, which has the cryptography) acting as `user`.
    public func addServerKey(name: String, publicKey: String, user: String, environment: Environment? = nil) throws(CKError) -> ServerKey {
        try store.perform(.serverKeyAdd, container: identifier, validate: { () throws(CKError) in
            try Names.validateUserName(user)
            try refuseNearMiss(user: user, in: try info())
            try CKContainer.validateKeyName(name)
        }) { () throws(CKError) in
            try updateServeAuth { (auth) throws(CKError) -> ServerKey in
                guard !auth.keys.contains(where: { $0.name == name }) else {
                    throw CKError(.invalidArguments, "container \(identifier) already has a server-to-server key named \(Names.describe(name))",
                                  serverErrorCode: "EXISTS", hint: "remove it first with 'ck serve key remove \(name)'")
                }
                let key = ServerKey(name: name, publicKey: publicKey, user: user, environment: environment, added: store.now())
                auth.keys.append(key)
                return key
            }
        }
    }

    /// Removes a server-to-server key by name.
    @discardableResult
    public func removeServerKey(_ name: String) throws(CKError) -> ServerKey {
        try store.perform(.serverKeyRemove, container: identifier) { () throws(CKError) in
            try updateServeAuth { (auth) throws(CKError) -> ServerKey in
                guard let i = auth.keys.firstIndex(where: { $0.name == name }) else {
                    throw CKError(.unknownItem, "container \(identifier) has no server-to-server key named \(Names.describe(name))",
                                  hint: "'ck serve key list' shows the keys")
                }
                return auth.keys.remove(at: i)
            }
        }
    }

    /// A key ID: 1 to 200 printable ASCII characters without spaces (it travels in a header).
    static func validateKeyName(_ name: String) throws(CKError) {
        guard !name.isEmpty, name.utf8.count <= 200, name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw CKError(.invalidArguments, "invalid key name \(Names.describe(name)): use 1 to 200 printable characters without spaces (the KeyID clients send)")
        }
    }

    /// auth.json's tokens and keys; none when the file is missing.
    private func readServeAuth() throws(CKError) -> ServeAuth { try serveAuthFile.read() }

    private var serveAuthFile: ServeAuthFile { ServeAuthFile(path: store.files.serveAuthPath(identifier)) }

    /// Reads, changes and rewrites auth.json holding the root lock; nothing is written when `change` leaves it as it was.
    private func updateServeAuth<T>(_ change: (inout ServeAuth) throws(CKError) -> T) throws(CKError) -> T {
        try store.writingRoot { (writes) throws(CKError) -> T in
            guard store.files.hasContainer(identifier) else { throw missing }
            var auth = try readServeAuth()
            let before = auth
            let result = try change(&auth)
            if auth != before { writes.append(.serveAuth(id: identifier, auth.json)) }
            return result
        }
    }
}
