import Foundation
import Testing
import CKModel

/// Who a ck serve request acts as: anonymous, web auth tokens (rotation, revocation, expiry, single use),
/// server-to-server signatures, --no-auth; and the sign-in page at AUTHENTICATION_REQUIRED's redirectURL. Each test
/// starts `ck serve --port 0` and speaks HTTP to it; who a request acted as is read from the server's request log.
@Suite struct ServeAuthTests {
    static let base = "/database/1/iCloud.ck.default/development"

    func sandbox() throws -> Sandbox {
        let s = try Sandbox()
        #expect(try s.ck("init").status == 0)
        return s
    }

    func percentEncoded(_ s: String) -> String {
        s.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "=", with: "%3D")
    }

    /// Whether the request got past authentication (an auth refusal is 401 or 421 with an AUTHENTICATION_ code).
    func passedAuth(_ r: HTTPClientReply) -> Bool {
        let code = r.json["serverErrorCode"]?.stringValue ?? ""
        return !code.hasPrefix("AUTHENTICATION_") && r.status != 401 && r.status != 421
    }

    /// The caller the server's request log names for the request a reply answered (found by X-Apple-Request-UUID).
    func loggedCaller(_ server: ServeProcess, _ r: HTTPClientReply) throws -> String? {
        let id = try #require(r.header("X-Apple-Request-UUID"))
        let entries = try server.get("/_ck/requests").json["requests"]?.arrayValue ?? []
        let entry = try #require(entries.first { $0["requestID"]?.stringValue == id }, "request \(id) is not in the log")
        return entry["caller"]?.stringValue
    }

    func query(_ server: ServeProcess, _ target: String, headers: [(String, String)] = []) throws -> HTTPClientReply {
        try server.post(target, json: "{}", headers: headers)
    }

    @Test func anonymousReachesPublicReadsButNotPrivateOrWrites() throws {
        let s = try sandbox()
        let server = try ServeProcess(s)
        let open = try query(server, Self.base + "/public/records/query")
        #expect(passedAuth(open), "\(open.status) \(open.text)")
        #expect(try loggedCaller(server, open) == "anonymous")
        for target in [Self.base + "/private/records/query", Self.base + "/public/records/modify", Self.base + "/public/users/caller"] {
            let r = try query(server, target)
            #expect(r.status == 421, "\(target)")
            let j = r.json
            #expect(j["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
            #expect(j["reason"] == .string("request needs authorization"))
            #expect(j["uuid"]?.stringValue?.isEmpty == false)
            #expect(j["uuid"]?.stringValue == r.header("X-Apple-Request-UUID"))
            #expect(j["redirectURL"] == .string("http://127.0.0.1:\(server.port)/_ck/signin?container=iCloud.ck.default&environment=development"))
        }
    }

    @Test func anAPITokenAloneIsNoAccountAndReadsThePublicDatabaseOnly() throws {
        let s = try sandbox()
        let server = try ServeProcess(s)
        let read = try query(server, Self.base + "/public/records/query?ckAPIToken=0123456789abcdef")
        #expect(passedAuth(read), "\(read.status) \(read.text)")
        #expect(try loggedCaller(server, read) == "anonymous")
        let zones = try server.get(Self.base + "/public/zones/list?ckAPIToken=0123456789abcdef")
        #expect(zones.status == 200, "\(zones.text)")
        for target in ["/private/records/query", "/private/zones/list", "/public/records/modify"] {
            let r = try query(server, Self.base + target + "?ckAPIToken=0123456789abcdef")
            #expect(r.status == 421, "\(target)")
            #expect(r.json["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"), "\(target)")
        }
    }

    @Test func aTokenActsAsItsUserRotatesAndIsRevoked() throws {
        let s = try sandbox()
        let made = try s.ck("serve", "token", "create", "--as", "alice")
        #expect(made.status == 0)
        let token = made.stdout.trimmingCharacters(in: .newlines)
        #expect(Data(base64Encoded: token)?.count == 24)
        let server = try ServeProcess(s)
        let target = Self.base + "/private/records/query?ckAPIToken=anything&ckWebAuthToken=" + percentEncoded(token)
        let r = try query(server, target)
        #expect(passedAuth(r))
        #expect(try loggedCaller(server, r) == "alice (web token)")
        // Every response hands back a fresh token for alice; it works, and so does the first one.
        let next = try #require(r.header("X-Apple-CloudKit-Web-Auth-Token"), "no rotated token")
        #expect(next != token)
        let r2 = try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(next))
        #expect(passedAuth(r2))
        #expect(try loggedCaller(server, r2) == "alice (web token)")
        #expect(r2.header("X-Apple-CloudKit-Web-Auth-Token").map { $0 != next } == true)
        #expect(passedAuth(try query(server, target)))
        // The header works as well as the query parameter.
        let byHeader = try query(server, Self.base + "/private/records/query", headers: [("X-Apple-CloudKit-Web-Auth-Token", token)])
        #expect(passedAuth(byHeader))
        #expect(try loggedCaller(server, byHeader) == "alice (web token)")
        // A tampered rotated token is refused.
        var bytes = [UInt8](Data(base64Encoded: next) ?? Data())
        bytes[bytes.count - 1] ^= 1
        let forged = Data(bytes).base64EncodedString()
        #expect(try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(forged)).status == 421)
        // Revoking the token (from another process, while the server runs) stops it and the tokens handed back for it.
        #expect(try s.ck("serve", "token", "revoke", String(token.prefix(10))).status == 0)
        let refused = try query(server, target)
        #expect(refused.status == 421)
        #expect(refused.json["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
        #expect(refused.header("X-Apple-CloudKit-Web-Auth-Token") == nil)
        #expect(try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(next)).status == 421)
        // An unknown token is refused the same way.
        #expect(try query(server, Self.base + "/public/records/query?ckWebAuthToken=AAAA").status == 421)
    }

    @Test func anExpiredTokenIsRefused() throws {
        let s = try sandbox()
        let short = try s.ck("serve", "token", "create", "--as", "bob", "--expires", "1s").stdout.trimmingCharacters(in: .newlines)
        // The token's expiry is at most one second after this moment.
        let madeBy = Date()
        let long = try s.ck("serve", "token", "create", "--as", "bob", "--expires", "1h").stdout.trimmingCharacters(in: .newlines)
        let server = try ServeProcess(s)
        #expect(passedAuth(try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(long))))
        let wait = 1.05 - Date().timeIntervalSince(madeBy)
        if wait > 0 { Thread.sleep(forTimeInterval: wait) }
        let expired = try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(short))
        #expect(expired.status == 421)
        #expect(expired.json["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
        #expect(passedAuth(try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(long))))
    }

    @Test func singleUseTokensWorkOnceAndTheNextOneWorks() throws {
        let s = try sandbox()
        let token = try s.ck("serve", "token", "create", "--as", "carol").stdout.trimmingCharacters(in: .newlines)
        let server = try ServeProcess(s, arguments: ["--single-use-tokens"])
        let first = try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(token))
        #expect(passedAuth(first))
        #expect(try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(token)).status == 421)
        let next = try #require(first.header("X-Apple-CloudKit-Web-Auth-Token"), "no rotated token")
        let second = try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(next))
        #expect(passedAuth(second))
        #expect(try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(next)).status == 421)
        let third = second.header("X-Apple-CloudKit-Web-Auth-Token") ?? ""
        #expect(passedAuth(try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(third))))
    }

    @Test func noAuthActsAsTheUserWithoutProof() throws {
        let s = try sandbox()
        let server = try ServeProcess(s, arguments: ["--no-auth", "--as", "dave"])
        let r = try query(server, Self.base + "/private/records/query?ckWebAuthToken=bogus")
        #expect(passedAuth(r))
        #expect(try loggedCaller(server, r) == "dave (--no-auth)")
        #expect(r.header("X-Apple-CloudKit-Web-Auth-Token") == nil)
    }

    @Test func serverToServerSignaturesAreVerified() throws {
        let s = try sandbox()
        let key = try OpenSSLKey(in: s.dir)
        let other = try OpenSSLKey(in: s.dir, name: "other")
        #expect(try s.ck("serve", "key", "add", "ci", "--public-key", key.publicPath, "--as", "builder").status == 0)
        let server = try ServeProcess(s)
        func send(_ target: String, body: String, date: String = OpenSSLKey.date(), keyID: String = "ci", signer: OpenSSLKey? = nil,
                  message: String? = nil, method: String = "POST") throws -> HTTPClientReply {
            let bytes = Array(body.utf8)
            let msg = try message ?? "\(date):\(OpenSSLKey.sha256Base64(bytes)):\(target)"
            let sig = try (signer ?? key).sign(msg)
            return try server.request(method, target, headers: [("X-Apple-CloudKit-Request-KeyID", keyID), ("X-Apple-CloudKit-Request-ISO8601Date", date),
                                                                ("X-Apple-CloudKit-Request-SignatureV1", sig)], body: bytes)
        }
        func failed(_ r: HTTPClientReply) -> Bool {
            r.status == 401 && r.json["serverErrorCode"] == .string("AUTHENTICATION_FAILED") && r.json["reason"] == .string("Authentication failed")
                && r.json["uuid"]?.stringValue?.isEmpty == false
        }
        let target = Self.base + "/public/records/modify?ckjsVersion=2.6.4&clientId=x%2By"
        let body = #"{"operations":[]}"#
        let ok = try send(target, body: body)
        #expect(passedAuth(ok), "\(ok.status) \(ok.text)")
        #expect(try loggedCaller(server, ok) == "key ci (server-to-server)")
        #expect(ok.header("X-Apple-CloudKit-Web-Auth-Token") == nil)
        // Wrong key, unknown key ID, stale date, changed body, changed query.
        #expect(failed(try send(target, body: body, signer: other)))
        #expect(failed(try send(target, body: body, keyID: "nope")))
        #expect(failed(try send(target, body: body, date: OpenSSLKey.date(offset: -3600))))
        let date = OpenSSLKey.date()
        let signedFor = "\(date):\(try OpenSSLKey.sha256Base64(Array(body.utf8))):\(target)"
        #expect(failed(try send(target, body: body + " ", date: date, message: signedFor)))
        #expect(failed(try send(Self.base + "/public/records/modify?ckjsVersion=2.6.5&clientId=x%2By", body: body, date: date, message: signedFor)))
        // A bare path signature does not cover a target with a query.
        #expect(failed(try send(target, body: body, date: date, message: "\(date):\(try OpenSSLKey.sha256Base64(Array(body.utf8))):\(Self.base)/public/records/modify")))
        // An empty body: the hash of nothing, or no hash at all (MistKit's form), are both accepted.
        let list = Self.base + "/public/zones/list"
        #expect(passedAuth(try send(list, body: "", method: "GET")))
        let d2 = OpenSSLKey.date()
        #expect(passedAuth(try send(list, body: "", date: d2, message: "\(d2)::\(list)", method: "GET")))
        // …but the empty-hash form is not accepted for a body that is not empty.
        #expect(failed(try send(target, body: body, date: d2, message: "\(d2)::\(target)")))
        // Keys reach the public database only.
        let priv = try send(Self.base + "/private/records/query", body: "{}")
        #expect(priv.status == 403)
        #expect(priv.json["serverErrorCode"] == .string("ACCESS_DENIED"))
        // A removed key is unknown.
        #expect(try s.ck("serve", "key", "remove", "ci").status == 0)
        #expect(failed(try send(target, body: body)))
    }

    @Test func theSignInPageListsUsersAndMintsTokensOnLoopbackOnly() throws {
        let s = try sandbox()
        #expect(try s.ck("serve", "token", "create", "--as", "erin").status == 0)
        #expect(try s.ck("--as", "frank", "account", "set", "available").status == 0)
        let server = try ServeProcess(s)
        let page = try server.get("/_ck/signin?container=iCloud.ck.default&environment=development")
        #expect(page.status == 200)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        #expect(page.text.contains("postMessage({ckSession: body.ckSession}"))
        #expect(page.text.contains(#"<button data-user="frank">frank</button>"#))
        let minted = try server.request("POST", "/_ck/signin/token?container=iCloud.ck.default&user=erin", body: [])
        #expect(minted.status == 200)
        let token = try #require(minted.json["ckSession"]?.stringValue, "no ckSession")
        let r = try query(server, Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(token))
        #expect(passedAuth(r))
        #expect(try loggedCaller(server, r) == "erin (web token)")
        server.stop()
        let open = try ServeProcess(s, arguments: ["--host", "0.0.0.0"])
        #expect(try open.get("/_ck/signin?container=iCloud.ck.default").status == 403)
        let refused = try open.request("POST", "/_ck/signin/token?container=iCloud.ck.default&user=erin", body: [])
        #expect(refused.status == 403)
        #expect(refused.json["serverErrorCode"] == .string("ACCESS_DENIED"))
    }
}
