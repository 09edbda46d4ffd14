import CKModel
import CKServer

/// The page at AUTHENTICATION_REQUIRED's `redirectURL` (`/_ck/signin`): CloudKit JS opens it in a popup; the page
/// lists the container's users, and picking one makes a web auth token for that user and posts
/// `{ckSession: token}` to the opener, as Apple's sign-in does. Minting a token for anyone who asks is safe only
/// because the server listens on loopback; on any other address the page refuses.
enum SignInPage {
    static let path = "/_ck/signin"
    static let tokenPath = "/_ck/signin/token"

    /// Answers `GET /_ck/signin` (the page) and `POST /_ck/signin/token?container=…&user=…` (a new token).
    static func handle(_ request: HTTPRequest, server: CloudKitServer, requestID: String) -> HTTPResponse {
        let query = request.query
        guard server.options.isLoopback else {
            let e = CKError(.permissionFailure, "the sign-in page mints tokens for anyone, so it is served on loopback only (this server listens on \(server.options.host))",
                            serverErrorCode: "ACCESS_DENIED", hint: "make tokens with 'ck serve token create --as NAME'")
            return request.path == tokenPath ? WireError.response(e, requestID: requestID) : html(message(e.reason), status: 403)
        }
        do throws(CKError) {
            guard let id = query["container"], !id.isEmpty else {
                throw CKError(.invalidArguments, "\(request.path) needs a container query parameter (?container=iCloud.…)")
            }
            let container = try server.store.container(id)
            switch request.path {
            case tokenPath:
                guard request.method == "POST" else {
                    throw CKError(.invalidArguments, "\(tokenPath) answers POST, not \(request.method)", serverErrorCode: "METHOD_NOT_ALLOWED")
                }
                guard let user = query["user"], !user.isEmpty else { throw CKError(.invalidArguments, "\(tokenPath) needs a user query parameter") }
                let token = try container.createWebAuthToken(user: user)
                return .json(.object(["ckSession": .string(token.token), "user": .string(user)]))
            case path:
                let users = try container.users().map(\.name)
                return html(page(container: id, users: users.isEmpty ? [CKContainer.defaultUserName] : users))
            default:
                throw CKError(.unknownItem, "no such control-plane route: \(request.path)", serverErrorCode: "NOT_FOUND")
            }
        } catch {
            if request.path == tokenPath { return WireError.response(error, requestID: requestID) }
            return html(message(error.reason), status: WireError.status(error.serverErrorCode))
        }
    }

    static func html(_ text: String, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/html; charset=UTF-8")], body: Array(text.utf8))
    }

    static func message(_ text: String) -> String {
        "<!doctype html><meta charset=utf-8><title>ck serve: sign in</title><p>\(escapeHTML(text))</p>\n"
    }

    /// The page: a button per user, and a field for a user the container has not met yet.
    static func page(container: String, users: [String]) -> String {
        let buttons = users.map { "<li><button data-user=\"\(escapeHTML($0))\">\(escapeHTML($0))</button></li>" }.joined()
        // JSON in a script: `<` escaped so no value can close the script element.
        let containerJS = JSON.string(container).serialized().replacingOccurrences(of: "<", with: "\\u003c")
        return """
        <!doctype html>
        <meta charset=utf-8>
        <title>ck serve: sign in</title>
        <style>body{font:16px system-ui,sans-serif;margin:2em}button{font:inherit;margin:.2em 0}li{list-style:none}</style>
        <h1>Sign in to \(escapeHTML(container))</h1>
        <p>ck serve (a local CloudKit emulator): pick the user this session acts as.</p>
        <ul id=users>\(buttons)</ul>
        <form id=other><input id=name placeholder="another user" autocomplete=off> <button>Sign in</button></form>
        <p id=status></p>
        <script>
        const container = \(containerJS);
        async function signIn(user) {
          const status = document.getElementById('status');
          try {
            const r = await fetch('\(tokenPath)?container=' + encodeURIComponent(container) + '&user=' + encodeURIComponent(user), {method: 'POST'});
            const body = await r.json();
            if (!r.ok) throw new Error(body.reason || ('HTTP ' + r.status));
            if (window.opener) {
              window.opener.postMessage({ckSession: body.ckSession}, '*');
              window.close();
            }
            status.textContent = 'Signed in as ' + user + '. Web auth token: ' + body.ckSession;
          } catch (e) {
            if (window.opener) window.opener.postMessage({errorMessage: String(e.message)}, '*');
            status.textContent = 'Sign-in failed: ' + e.message;
          }
        }
        for (const b of document.querySelectorAll('#users button')) b.addEventListener('click', () => signIn(b.dataset.user));
        document.getElementById('other').addEventListener('submit', ev => {
          ev.preventDefault();
          const name = document.getElementById('name').value.trim();
          if (name) signIn(name);
        });
        </script>

        """
    }

    /// Text safe in HTML content and attribute values.
    static func escapeHTML(_ s: String) -> String {
        var out = ""
        for c in s {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }

    /// Percent-encodes a query value (everything but RFC 3986's unreserved characters).
    static func escapeQuery(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(b)))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(b >> 4)]) + String(hex[Int(b & 15)])
            }
        }
        return out
    }
}
