import Foundation
import Testing

/// `ck serve token` and `ck serve key` through the built binary: output formats, auth.json, errors.
@Suite struct ServeTokenKeyCommandTests {
    @Test func tokensAreMadeListedByPrefixAndRevoked() throws {
        let s = try Sandbox()
        let a = try s.ck("serve", "token", "create", "--as", "alice")
        #expect(a.status == 0)
        let token = a.stdout.trimmingCharacters(in: .newlines)
        #expect(a.stdout == token + "\n" && token.count == 32)
        let j = try s.ck("serve", "token", "create", "--as", "bob", "--expires", "30m", "-o", "json")
        #expect(j.status == 0)
        let made = try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any]
        #expect(made?["user"] as? String == "bob")
        let created = (made?["created"] as? Int64) ?? Int64((made?["created"] as? Int) ?? 0)
        let expires = (made?["expires"] as? Int64) ?? Int64((made?["expires"] as? Int) ?? 0)
        #expect(expires - created == 30 * 60 * 1000)
        // Lists never print whole tokens.
        let list = try s.ck("serve", "token", "list", "-o", "plain")
        #expect(list.status == 0)
        #expect(!list.stdout.contains(token))
        #expect(list.stdout.hasPrefix(String(token.prefix(8)) + "…\talice\t"))
        #expect(list.stdout.split(separator: "\n").count == 2)
        // The file is the container's auth.json, listed in the store layout.
        let auth = try String(contentsOfFile: s.dir + "/store/containers/iCloud.ck.default/auth.json", encoding: .utf8)
        #expect(auth.contains(token.replacingOccurrences(of: "/", with: "\\/")) || auth.contains(token))
        #expect(try s.ck("serve", "token", "revoke", "--user", "alice").stdout == String(token.prefix(8)) + "\n")
        #expect(try s.ck("serve", "token", "list", "-o", "json").stdout.contains("\"revoked\""))
        let unknown = try s.ck("serve", "token", "revoke", "zzzz")
        #expect(unknown.status != 0 && unknown.stderr.contains("no web auth token"))
        let both = try s.ck("serve", "token", "revoke", "abc", "--user", "alice")
        #expect(both.status == 64)
        let badDuration = try s.ck("serve", "token", "create", "--as", "x", "--expires", "soon")
        #expect(badDuration.status == 64 && badDuration.stderr.contains("--expires"))
        #expect(try s.ck("doctor").status == 0)
    }

    @Test func keysAreCheckedAddedListedAndRemoved() throws {
        let s = try Sandbox()
        let key = try OpenSSLKey(in: s.dir)
        let added = try s.ck("serve", "key", "add", "ci", "--public-key", key.publicPath, "--as", "builder")
        #expect(added.status == 0 && added.stdout == "ci\n")
        let list = try s.ck("serve", "key", "list", "-o", "plain").stdout
        #expect(list.hasPrefix("ci\tbuilder\tboth\t"))
        let json = try s.ck("serve", "key", "list", "-o", "json").stdout
        #expect(json.contains("BEGIN PUBLIC KEY"))
        let again = try s.ck("serve", "key", "add", "ci", "--public-key", key.publicPath)
        #expect(again.status != 0 && again.stderr.contains("already has"))
        // A private key, an RSA key and a file that is no key are refused, naming the file.
        let priv = try s.ck("serve", "key", "add", "p", "--public-key", key.privatePath)
        #expect(priv.status != 0 && priv.stderr.contains(key.privatePath) && priv.stderr.contains("private key"))
        try OpenSSLKey.run(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", s.dir + "/rsa.pem"])
        try OpenSSLKey.run(["pkey", "-in", s.dir + "/rsa.pem", "-pubout", "-out", s.dir + "/rsapub.pem"])
        let rsa = try s.ck("serve", "key", "add", "r", "--public-key", s.dir + "/rsapub.pem")
        #expect(rsa.status != 0 && rsa.stderr.contains("rsapub.pem") && rsa.stderr.contains("P-256"))
        try "hello".write(toFile: s.dir + "/junk.pem", atomically: true, encoding: .utf8)
        let junk = try s.ck("serve", "key", "add", "j", "--public-key", s.dir + "/junk.pem")
        #expect(junk.status != 0 && junk.stderr.contains("junk.pem"))
        let missing = try s.ck("serve", "key", "add", "m")
        #expect(missing.status == 64 && missing.stderr.contains("--public-key"))
        // -e on the add line narrows the key.
        #expect(try s.ck("serve", "key", "add", "prod", "--public-key", key.publicPath, "-e", "production").status == 0)
        #expect(try s.ck("serve", "key", "list", "-o", "plain").stdout.contains("prod\tdefault\tproduction\t"))
        #expect(try s.ck("serve", "key", "remove", "ci").stdout == "ci\n")
        let gone = try s.ck("serve", "key", "remove", "ci")
        #expect(gone.status != 0 && gone.stderr.contains("no server-to-server key"))
    }
}
