import Foundation
import Testing
@testable import CKServe
import CKModel

/// Who a ck serve request acts as: anonymous, web auth tokens (rotation, revocation, single use), server-to-server
/// signatures, --no-auth; and the sign-in page at AUTHENTICATION_REQUIRED's redirectURL.
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
    func passedAuth(_ server: InProcessServer, _ r: CKServe.HTTPResponse) -> Bool {
        let code = server.json(r)["serverErrorCode"]?.stringValue ?? ""
        return !code.hasPrefix("AUTHENTICATION_") && r.status != 401 && r.status != 421
    }

    @Test func anonymousReachesPublicReadsButNotPrivateOrWrites() throws {
        let s = try sandbox()
        let server = try InProcessServer(s)
        #expect(passedAuth(server, server.request("POST", Self.base + "/public/records/query", body: Array("{}".utf8))))
        for target in [Self.base + "/private/records/query", Self.base + "/public/records/modify", Self.base + "/public/users/caller"] {
            let r = server.request("POST", target, body: Array("{}".utf8))
            #expect(r.status == 421, "\(target)")
            let j = server.json(r)
            #expect(j["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
            #expect(j["reason"] == .string("request needs authorization"))
            #expect(j["uuid"]?.stringValue?.isEmpty == false)
            #expect(j["redirectURL"] == .string("http://127.0.0.1:8090/_ck/signin?container=iCloud.ck.default&environment=development"))
        }
    }

    @Test func aTokenActsAsItsUserRotatesAndIsRevoked() throws {
        let s = try sandbox()
        let made = try s.ck("serve", "token", "create", "--as", "alice")
        #expect(made.status == 0)
        let token = made.stdout.trimmingCharacters(in: .newlines)
        #expect(Data(base64Encoded: token)?.count == 24)
        let server = try InProcessServer(s)
        let target = Self.base + "/private/records/query?ckAPIToken=anything&ckWebAuthToken=" + percentEncoded(token)
        let r = server.request("POST", target, body: Array("{}".utf8))
        #expect(passedAuth(server, r))
        #expect(server.server.requestLog.entries.last?.caller == "alice (web token)")
        // Every response hands back a fresh token for alice; it works, and so does the first one.
        guard let next = r.header("X-Apple-CloudKit-Web-Auth-Token") else { Issue.record("no rotated token"); return }
        #expect(next != token)
        let r2 = server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(next), body: Array("{}".utf8))
        #expect(passedAuth(server, r2))
        #expect(server.server.requestLog.entries.last?.caller == "alice (web token)")
        #expect(r2.header("X-Apple-CloudKit-Web-Auth-Token").map { $0 != next } == true)
        #expect(passedAuth(server, server.request("POST", target, body: Array("{}".utf8))))
        // The header works as well as the query parameter.
        #expect(passedAuth(server, server.request("POST", Self.base + "/private/records/query",
                                                  headers: [("X-Apple-CloudKit-Web-Auth-Token", token)], body: Array("{}".utf8))))
        // A tampered rotated token is refused.
        var bytes = [UInt8](Data(base64Encoded: next) ?? Data())
        bytes[bytes.count - 1] ^= 1
        let forged = Data(bytes).base64EncodedString()
        #expect(server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(forged), body: Array("{}".utf8)).status == 421)
        // Revoking the token stops it and the tokens handed back for it.
        #expect(try s.ck("serve", "token", "revoke", String(token.prefix(10))).status == 0)
        let refused = server.request("POST", target, body: Array("{}".utf8))
        #expect(refused.status == 421)
        #expect(server.json(refused)["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
        #expect(refused.header("X-Apple-CloudKit-Web-Auth-Token") == nil)
        #expect(server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(next), body: Array("{}".utf8)).status == 421)
        // An unknown token is refused the same way.
        #expect(server.request("POST", Self.base + "/public/records/query?ckWebAuthToken=AAAA", body: Array("{}".utf8)).status == 421)
    }

    @Test func anExpiredTokenIsRefused() throws {
        let s = try sandbox()
        let token = try s.ck("serve", "token", "create", "--as", "bob", "--expires", "1s").stdout.trimmingCharacters(in: .newlines)
        let server = try InProcessServer(s)
        let target = Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(token)
        let list = try s.ck("serve", "token", "list", "-o", "json").stdout
        let expires = (try JSON.parse(utf8: Array(list.utf8)))["tokens"]?.arrayValue?.first?["expires"]?.int64Value ?? 0
        server.server.store.now = { expires + 1 }
        #expect(server.request("POST", target, body: Array("{}".utf8)).status == 421)
        server.server.store.now = { expires - 500 }
        #expect(passedAuth(server, server.request("POST", target, body: Array("{}".utf8))))
    }

    @Test func singleUseTokensWorkOnceAndTheNextOneWorks() throws {
        let s = try sandbox()
        let token = try s.ck("serve", "token", "create", "--as", "carol").stdout.trimmingCharacters(in: .newlines)
        var options = ServeOptions()
        options.singleUseTokens = true
        let server = try InProcessServer(s, options: options)
        let first = server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(token), body: Array("{}".utf8))
        #expect(passedAuth(server, first))
        #expect(server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(token), body: Array("{}".utf8)).status == 421)
        guard let next = first.header("X-Apple-CloudKit-Web-Auth-Token") else { Issue.record("no rotated token"); return }
        let second = server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(next), body: Array("{}".utf8))
        #expect(passedAuth(server, second))
        #expect(server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(next), body: Array("{}".utf8)).status == 421)
        let third = second.header("X-Apple-CloudKit-Web-Auth-Token") ?? ""
        #expect(passedAuth(server, server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(third), body: Array("{}".utf8))))
    }

    @Test func noAuthActsAsTheUserWithoutProof() throws {
        let s = try sandbox()
        var options = ServeOptions()
        options.noAuthUser = "dave"
        let server = try InProcessServer(s, options: options)
        let r = server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=bogus", body: Array("{}".utf8))
        #expect(passedAuth(server, r))
        #expect(server.server.requestLog.entries.last?.caller == "dave (--no-auth)")
        #expect(r.header("X-Apple-CloudKit-Web-Auth-Token") == nil)
    }

    @Test func serverToServerSignaturesAreVerified() throws {
        let s = try sandbox()
        let key = try OpenSSLKey(in: s.dir)
        let other = try OpenSSLKey(in: s.dir, name: "other")
        #expect(try s.ck("serve", "key", "add", "ci", "--public-key", key.publicPath, "--as", "builder").status == 0)
        let server = try InProcessServer(s)
        func send(_ target: String, body: String, date: String = OpenSSLKey.date(), keyID: String = "ci", signer: OpenSSLKey? = nil,
                  message: String? = nil, method: String = "POST") throws -> CKServe.HTTPResponse {
            let bytes = Array(body.utf8)
            let msg = try message ?? "\(date):\(OpenSSLKey.sha256Base64(bytes)):\(target)"
            let sig = try (signer ?? key).sign(msg)
            return server.request(method, target, headers: [("X-Apple-CloudKit-Request-KeyID", keyID), ("X-Apple-CloudKit-Request-ISO8601Date", date),
                                                            ("X-Apple-CloudKit-Request-SignatureV1", sig)], body: bytes)
        }
        func failed(_ r: CKServe.HTTPResponse) -> Bool {
            r.status == 401 && server.json(r)["serverErrorCode"] == .string("AUTHENTICATION_FAILED") && server.json(r)["reason"] == .string("Authentication failed")
        }
        let target = Self.base + "/public/records/modify?ckjsVersion=2.6.4&clientId=x%2By"
        let body = #"{"operations":[]}"#
        let ok = try send(target, body: body)
        #expect(passedAuth(server, ok))
        #expect(server.server.requestLog.entries.last?.caller == "key ci (server-to-server)")
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
        #expect(passedAuth(server, try send(list, body: "", method: "GET")))
        let d2 = OpenSSLKey.date()
        #expect(passedAuth(server, try send(list, body: "", date: d2, message: "\(d2)::\(list)", method: "GET")))
        // …but the empty-hash form is not accepted for a body that is not empty.
        #expect(failed(try send(target, body: body, date: d2, message: "\(d2)::\(target)")))
        // Keys reach the public database only.
        let priv = try send(Self.base + "/private/records/query", body: "{}")
        #expect(priv.status == 403)
        #expect(server.json(priv)["serverErrorCode"] == .string("ACCESS_DENIED"))
        // A removed key is unknown.
        #expect(try s.ck("serve", "key", "remove", "ci").status == 0)
        #expect(failed(try send(target, body: body)))
    }

    @Test func theSignInPageListsUsersAndMintsTokensOnLoopbackOnly() throws {
        let s = try sandbox()
        #expect(try s.ck("serve", "token", "create", "--as", "erin").status == 0)
        let server = try InProcessServer(s)
        let page = server.request("GET", "/_ck/signin?container=iCloud.ck.default&environment=development")
        #expect(page.status == 200)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(html.contains("postMessage({ckSession: body.ckSession}"))
        let minted = server.request("POST", "/_ck/signin/token?container=iCloud.ck.default&user=erin")
        #expect(minted.status == 200)
        guard let token = server.json(minted)["ckSession"]?.stringValue else { Issue.record("no ckSession"); return }
        #expect(passedAuth(server, server.request("POST", Self.base + "/private/records/query?ckWebAuthToken=" + percentEncoded(token), body: Array("{}".utf8))))
        #expect(server.server.requestLog.entries.last?.caller == "erin (web token)")
        var options = ServeOptions()
        options.host = "0.0.0.0"
        let open = try InProcessServer(s, options: options)
        #expect(open.request("GET", "/_ck/signin?container=iCloud.ck.default").status == 403)
        let refused = open.request("POST", "/_ck/signin/token?container=iCloud.ck.default&user=erin")
        #expect(refused.status == 403)
        #expect(open.json(refused)["serverErrorCode"] == .string("ACCESS_DENIED"))
    }
}
