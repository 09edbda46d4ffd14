import CKCore

extension ServeTokenCommand {
    /// A token as lists show it: `{"prefix", "user", "created", "expires"?, "revoked"?, "state"}`; never the whole token.
    static func listed(_ t: WebAuthToken, now: Int64) -> JSON {
        var o: [String: JSON] = ["prefix": .string(t.prefix), "user": .string(t.user), "created": .int(t.created),
                                 "state": .string(t.state(at: now))]
        if let e = t.expires { o["expires"] = .int(e) }
        if let r = t.revoked { o["revoked"] = .int(r) }
        return .object(o)
    }

    /// `token create`: `{"token", "user", "created", "expires"?}`; plain prints the token alone, for `$(…)`.
    struct Created: OutcomeOutput {
        var token: WebAuthToken

        var json: JSON {
            var o: [String: JSON] = ["token": .string(token.token), "user": .string(token.user), "created": .int(token.created)]
            if let e = token.expires { o["expires"] = .int(e) }
            return .object(o)
        }
        var line: String { token.token }
        // The token is the result: people get it on its own line too, easy to copy.
        var sentence: String {
            let until = token.expires.map { " until \(ISO8601.format(milliseconds: $0))" } ?? ""
            return "Web auth token for \(token.user)\(until):\n\(token.token)"
        }
    }

    /// `token list`: `{"tokens": [token]}`; jsonl: one a line.
    struct List: CommandOutput {
        var tokens: [WebAuthToken]
        var now: Int64

        var json: JSON { .object(["tokens": .array(tokens.map { listed($0, now: now) })]) }
        var jsonLines: [JSON] { tokens.map { listed($0, now: now) } }
        var cells: [[String]] {
            tokens.map { t in
                [t.prefix + "…", t.user, ISO8601.format(milliseconds: t.created), t.expires.map { ISO8601.format(milliseconds: $0) } ?? "-",
                 t.state(at: now)]
            }
        }
        var plain: [String] { cells.map { $0.joined(separator: "\t") } }
        var table: String {
            if tokens.isEmpty { return "No web auth tokens; make one with 'ck serve token create --as NAME'.\n" }
            var t = Table(["TOKEN", "USER", "CREATED", "EXPIRES", "STATE"])
            for c in cells { t.add(c) }
            return t.aligned()
        }
    }

    /// `token revoke`: `{"revoked": [token]}` (prefixes only).
    struct Revoked: OutcomeOutput {
        var tokens: [WebAuthToken]
        var user: String?

        var json: JSON { .object(["revoked": .array(tokens.map { listed($0, now: $0.revoked ?? 0) })]) }
        var line: String { tokens.map(\.prefix).joined(separator: "\n") }
        var sentence: String {
            if tokens.isEmpty { return user.map { "\($0) has no web auth tokens to revoke" } ?? "The token was already revoked" }
            return "Revoked \(tokens.count) web auth token\(tokens.count == 1 ? "" : "s"): " + tokens.map { "\($0.prefix)… (\($0.user))" }.joined(separator: ", ")
        }
    }
}
