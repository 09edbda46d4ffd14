import Foundation
import Testing
import CKModel

/// CORS for browser clients, over HTTP to `ck serve --port 0`: OPTIONS preflights on any path, and the allow-origin
/// and expose headers on every response (web-services.md §10).
@Suite struct ServeCORSTests {
    @Test func aPreflightOnAnyPathIsAnsweredWithTheAllowedMethodsAndHeaders() throws {
        let s = try Sandbox()
        #expect(try s.ck("init").status == 0)
        let server = try ServeProcess(s)
        for target in ["/database/1/iCloud.ck.default/development/public/records/query?ckAPIToken=x", "/_ck/health", "/anything"] {
            let r = try server.request("OPTIONS", target, headers: [("Origin", "http://localhost:3000"), ("Access-Control-Request-Method", "POST"),
                                                                   ("Access-Control-Request-Headers", "content-type, x-apple-cloudkit-request-keyid, x-custom")])
            #expect(r.status == 204, "\(target)")
            #expect(r.header("Access-Control-Allow-Origin") == "http://localhost:3000")
            #expect(r.header("Access-Control-Allow-Methods") == "GET, POST, OPTIONS")
            let allowed = r.header("Access-Control-Allow-Headers") ?? ""
            for h in ["Content-Type", "X-Apple-CloudKit-Request-KeyID", "X-Apple-CloudKit-Request-ISO8601Date",
                      "X-Apple-CloudKit-Request-SignatureV1", "X-Apple-CloudKit-Web-Auth-Token", "x-custom"] {
                #expect(allowed.contains(h), "\(h) not in \(allowed)")
            }
            #expect(r.header("Access-Control-Max-Age") == "86400")
            #expect(r.body.isEmpty)
        }
    }

    @Test func everyResponseAllowsItsOriginAndExposesTheTokenHeaders() throws {
        let s = try Sandbox()
        #expect(try s.ck("init").status == 0)
        let token = try s.ck("serve", "token", "create", "--as", "alice").stdout.trimmingCharacters(in: .newlines)
        let server = try ServeProcess(s)
        let encoded = token.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "=", with: "%3D")
        let withOrigin = try server.post("/database/1/iCloud.ck.default/development/private/records/query?ckWebAuthToken=" + encoded, json: "{}",
                                         headers: [("Origin", "https://app.example")])
        #expect(withOrigin.header("Access-Control-Allow-Origin") == "https://app.example")
        #expect(withOrigin.header("Access-Control-Expose-Headers") == "X-Apple-CloudKit-Web-Auth-Token, X-Apple-CloudKit-Session, X-Apple-Request-UUID")
        #expect(withOrigin.header("X-Apple-CloudKit-Web-Auth-Token") != nil)
        // An error response carries them too, and no Origin means `*`.
        let refused = try server.post("/database/1/iCloud.ck.default/development/private/records/query", json: "{}")
        #expect(refused.status == 421)
        #expect(refused.header("Access-Control-Allow-Origin") == "*")
        #expect(refused.header("Access-Control-Expose-Headers")?.contains("X-Apple-CloudKit-Web-Auth-Token") == true)
        #expect(try server.get("/_ck/health").header("Access-Control-Allow-Origin") == "*")
        // Header names are matched without case (HTTP/2 clients and some proxies send them in lower case).
        let lower = try server.get("/_ck/health", headers: [("oRIGIN", "http://lower.example")])
        #expect(lower.header("Access-Control-Allow-Origin") == "http://lower.example")
        // A name that differs by more than case is another header.
        let other = try server.get("/_ck/health", headers: [("Origin2", "http://other.example")])
        #expect(other.header("Access-Control-Allow-Origin") == "*")
    }
}
