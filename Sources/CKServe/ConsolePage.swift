/// The browser console's files (docs/console.md): `GET /` answers the page, `GET /_ck/console/<file>` its styles and
/// scripts. They are compiled into the binary (Package.swift, `.embedInCode`), so the console works offline and from
/// the static build. Not logged: a page load would otherwise fill the request log the console shows.
enum ConsolePage {
    static let prefix = "/_ck/console/"

    /// What the page may load and run: only itself. No inline script or style, so a value that reaches the page as
    /// markup by mistake still cannot run.
    static let policy = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
        + "frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    /// The answer for a console file; nil when the request is not a GET or HEAD of one (a preflight or another
    /// method on these paths is answered by the usual routing, in CloudKit's error shape).
    static func answer(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        let path = request.path
        let name: String
        if path == "/" || path == "/index.html" {
            name = "index.html"
        } else if path.hasPrefix(prefix) {
            name = String(path.dropFirst(prefix.count))
        } else {
            return nil
        }
        // A name that is not a console file is the control plane's NOT_FOUND, in CloudKit's shape.
        guard let (bytes, type) = file(name) else { return nil }
        return HTTPResponse(status: 200, headers: [("Content-Type", type), ("Content-Security-Policy", policy),
                                                   ("X-Content-Type-Options", "nosniff"), ("Cache-Control", "no-cache"),
                                                   ("Referrer-Policy", "no-referrer")],
                            body: request.method == "HEAD" ? [] : bytes)
    }

    /// A console file's bytes and content type, by name.
    private static func file(_ name: String) -> ([UInt8], String)? {
        switch name {
        case "index.html": return (PackageResources.index_html, "text/html; charset=UTF-8")
        case "console.css": return (PackageResources.console_css, "text/css; charset=UTF-8")
        case "core.js": return (PackageResources.core_js, script)
        case "records.js": return (PackageResources.records_js, script)
        case "schema.js": return (PackageResources.schema_js, script)
        case "admin.js": return (PackageResources.admin_js, script)
        case "requests.js": return (PackageResources.requests_js, script)
        default: return nil
        }
    }

    private static let script = "text/javascript; charset=UTF-8"
}
