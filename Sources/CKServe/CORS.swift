import Foundation

/// CORS for browser clients: preflight answers and the headers every response carries (web-services.md §10).
enum CORS {
    /// Methods ck serve answers.
    static let allowMethods = "GET, POST, OPTIONS"
    /// Request headers a browser may send: CloudKit JS's content type, the server-to-server headers, the web token and
    /// the console's `--no-auth` identity headers.
    static let allowHeaders = "Content-Type, X-Apple-CloudKit-Request-KeyID, X-Apple-CloudKit-Request-ISO8601Date, "
        + "X-Apple-CloudKit-Request-SignatureV1, X-Apple-CloudKit-Web-Auth-Token, X-CK-User, X-CK-Anonymous"
    /// Response headers scripts may read: without these the browser hides the rotated token from CloudKit JS.
    static let exposeHeaders = "X-Apple-CloudKit-Web-Auth-Token, X-Apple-CloudKit-Session, X-Apple-Request-UUID"
    /// How long a browser may keep a preflight's answer, in seconds.
    static let maxAge = "86400"

    /// The 204 answer to an OPTIONS preflight (its allow-origin and expose headers are added with every response's).
    static func preflight(_ request: HTTPRequest) -> HTTPResponse {
        var headers: [(name: String, value: String)] = [
            ("Access-Control-Allow-Methods", allowMethods),
            ("Access-Control-Allow-Headers", allowHeaders),
            ("Access-Control-Max-Age", maxAge),
        ]
        // A browser asking for a header not on the list still gets it allowed: a local emulator refuses no client.
        if let asked = request.header("Access-Control-Request-Headers"), !asked.isEmpty {
            let known = Set(allowHeaders.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            let extra = asked.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                .filter { !$0.isEmpty && !known.contains($0.lowercased()) }
            if !extra.isEmpty { headers[1].value += ", " + extra.joined(separator: ", ") }
        }
        return HTTPResponse(status: 204, headers: headers)
    }

    /// `Access-Control-Allow-Origin` (the request's Origin, or `*`) and `Access-Control-Expose-Headers` for a response
    /// to this request.
    static func headers(for request: HTTPRequest) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        if let origin = request.header("Origin"), !origin.isEmpty {
            headers.append(("Access-Control-Allow-Origin", origin))
            // The answer differs by Origin: caches must not hand one origin's answer to another.
            headers.append(("Vary", "Origin"))
        } else {
            headers.append(("Access-Control-Allow-Origin", "*"))
        }
        headers.append(("Access-Control-Expose-Headers", exposeHeaders))
        return headers
    }
}
