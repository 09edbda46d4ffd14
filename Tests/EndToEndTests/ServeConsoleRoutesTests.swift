import Foundation
import Testing
import CKModel

/// The control-plane routes the browser console reads and acts through (issue 26): users, schema, quotas, shares,
/// zones and subscriptions across users, and the `--no-auth` identity headers. The store is seeded with the command
/// line, read over HTTP and compared with values written here; each action's effect is checked with the command line.
@Suite struct ServeConsoleRoutesTests {
    static let base = "/database/1/iCloud.ck.default/development"
    static let save = #"{"operations": [{"operationType": "create", "record": {"recordType": "Note", "recordName": "NAME", "fields": {"title": {"value": "x"}}}}]}"#
    static let query = #"{"query": {"recordType": "Note", "filterBy": [{"fieldName": "title", "comparator": "EQUALS", "fieldValue": {"value": "x"}}]}}"#

    func sandbox() throws -> Sandbox {
        let s = try Sandbox()
        #expect(try s.ck("init").status == 0)
        return s
    }

    func object(_ text: String) throws -> JSON { try JSON.parse(utf8: Array(text.utf8)) }

    /// A command's `-o json` output, parsed (the command must succeed).
    func cli(_ s: Sandbox, _ args: String...) throws -> JSON {
        let r = try s.run(args + ["-o", "json"])
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return try object(r.stdout)
    }

    /// CloudKit's error shape with this status and serverErrorCode, and a reason that starts as given.
    func refused(_ r: HTTPClientReply, _ status: Int, _ code: String, _ reasonStart: String) -> Bool {
        r.status == status && r.json["serverErrorCode"]?.stringValue == code
            && r.json["uuid"]?.stringValue == r.header("X-Apple-Request-UUID")
            && r.json["reason"]?.stringValue?.hasPrefix(reasonStart) == true
    }

    func save(_ server: ServeProcess, _ name: String, headers: [(String, String)]) throws -> HTTPClientReply {
        try server.post(Self.base + "/private/records/modify", json: Self.save.replacingOccurrences(of: "NAME", with: name), headers: headers)
    }

    // MARK: Identity

    @Test func identityHeadersChooseTheUserUnderNoAuthOnly() throws {
        let s = try sandbox()
        #expect(try s.ck("user", "create", "alice").status == 0)
        #expect(try s.ck("user", "create", "bob").status == 0)
        let server = try ServeProcess(s, arguments: ["--no-auth"])
        let health = try server.get("/_ck/health").json
        #expect(health["auth"] == .string("none"))
        #expect(health["noAuthUser"] == .string("default"))

        // X-CK-User: bob saves into bob's private database, and bob is the creator.
        let saved = try save(server, "by-bob", headers: [("X-CK-User", "bob")])
        #expect(saved.status == 200, "\(saved.text)")
        let bob = try cli(s, "user", "show", "bob")["userRecordName"]
        let fetched = try cli(s, "--as", "bob", "record", "fetch", "by-bob")
        #expect(fetched["records"]?.arrayValue?.first?["created"]?["userRecordName"] == bob, "\(fetched)")
        #expect(try s.ck("record", "fetch", "by-bob").status == 3, "not in the --no-auth user's database")
        // Without a header, the --no-auth user.
        #expect(try save(server, "by-default", headers: []).status == 200)
        #expect(try s.ck("record", "fetch", "by-default").status == 0)

        // X-CK-Anonymous: 1 reads the public database, not the private one.
        let anonymous = [("X-CK-Anonymous", "1")]
        let privateRead = try server.post(Self.base + "/private/records/query", json: Self.query, headers: anonymous)
        #expect(refused(privateRead, 421, "AUTHENTICATION_REQUIRED", "request needs authorization"), "\(privateRead.text)")
        #expect(try server.post(Self.base + "/public/records/query", json: Self.query, headers: anonymous).status == 200)
        #expect(refused(try server.post(Self.base + "/public/records/query", json: Self.query, headers: [("X-CK-Anonymous", "yes")]),
                        400, "BAD_REQUEST", "X-CK-Anonymous: expected 1, not 'yes'"))

        // A name is checked as --as checks it: a near miss of a listed user is a typo, a user record name no name.
        let typo = try save(server, "typo", headers: [("X-CK-User", "alcie")])
        #expect(refused(typo, 404, "NOT_FOUND", "X-CK-User: user 'alcie' does not exist in container iCloud.ck.default"), "\(typo.text)")
        #expect(typo.json["reason"]?.stringValue?.contains("close to 'alice'") == true, "\(typo.text)")
        #expect(try s.ck("--as", "alcie", "user", "show").status == 3, "the typo listed nobody")
        let urn = try save(server, "urn", headers: [("X-CK-User", "_3869")])
        #expect(refused(urn, 400, "BAD_REQUEST", "X-CK-User: "), "\(urn.text)")
        // A new name that is no near miss is met as --as meets it.
        #expect(try save(server, "by-zed", headers: [("X-CK-User", "zed")]).status == 200)
        #expect(try s.ck("--as", "zed", "record", "fetch", "by-zed").status == 0)

        // The console may send both headers from another origin.
        let preflight = try server.request("OPTIONS", Self.base + "/private/records/query", headers: [("Origin", "http://example.test")])
        #expect(preflight.header("Access-Control-Allow-Headers")?.contains("X-CK-User, X-CK-Anonymous") == true, "\(preflight.headers)")
    }

    @Test func identityHeadersAreIgnoredWithTokens() throws {
        let s = try sandbox()
        #expect(try s.ck("user", "create", "bob").status == 0)
        let made = try s.ck("serve", "token", "create", "--as", "alice")
        #expect(made.status == 0, "\(made.stderr)")
        let token = made.stdout.trimmingCharacters(in: .newlines)
        let server = try ServeProcess(s)
        let health = try server.get("/_ck/health").json
        #expect(health["auth"] == .string("token"))
        #expect(health["noAuthUser"] == nil)
        // No token: X-CK-User does not sign anybody in.
        let unsigned = try server.post(Self.base + "/private/records/query", json: Self.query, headers: [("X-CK-User", "bob")])
        #expect(refused(unsigned, 421, "AUTHENTICATION_REQUIRED", "request needs authorization"), "\(unsigned.text)")
        // A token: its user, whatever X-CK-User says; X-CK-Anonymous does not sign it out.
        let saved = try save(server, "t1", headers: [("X-Apple-CloudKit-Web-Auth-Token", token), ("X-CK-User", "bob")])
        #expect(saved.status == 200, "\(saved.text)")
        #expect(try s.ck("--as", "alice", "record", "fetch", "t1").status == 0)
        #expect(try s.ck("--as", "bob", "record", "fetch", "t1").status == 3)
        let next = try #require(saved.header("X-Apple-CloudKit-Web-Auth-Token"))
        let read = try server.post(Self.base + "/private/records/query", json: Self.query,
                                   headers: [("X-Apple-CloudKit-Web-Auth-Token", next), ("X-CK-Anonymous", "1")])
        #expect(read.status == 200, "\(read.text)")
        #expect(read.json["records"]?.arrayValue?.map { $0["recordName"] } == [.string("t1")])
        // Nor does a malformed header matter there.
        let odd = try server.post(Self.base + "/public/records/query", json: Self.query, headers: [("X-CK-Anonymous", "yes"), ("X-CK-User", "alcie")])
        #expect(odd.status == 200, "\(odd.text)")
    }

    // MARK: Users, roles, accounts

    @Test func usersAreListedAndCreatedAndTheirAccountsAndRolesSet() throws {
        let s = try sandbox()
        #expect(try s.ck("schema", "import", "-", stdin: "DEFINE SCHEMA\nCREATE ROLE Moderator;\nRECORD TYPE Post (title STRING);\n").status == 0)
        #expect(try s.ck("user", "create", "alice").status == 0)
        #expect(try s.ck("user", "create", "bob").status == 0)
        #expect(try s.ck("role", "assign", "Moderator", "bob").status == 0)
        #expect(try s.ck("account", "set", "noAccount", "--as", "carol").status == 0)
        let bob = try cli(s, "user", "show", "bob")["userRecordName"]
        let server = try ServeProcess(s, arguments: ["--no-auth"])

        let listed = try server.get("/_ck/users")
        #expect(listed.status == 200, "\(listed.text)")
        #expect(listed.json["container"] == .string("iCloud.ck.default"))
        #expect(listed.json["environment"] == .string("development"))
        let users = listed.json["users"]?.arrayValue ?? []
        #expect(users.compactMap { $0["name"]?.stringValue } == ["alice", "bob", "carol"])
        #expect(users.first { $0["name"] == .string("bob") } == .object([
            "name": .string("bob"), "userRecordName": bob ?? .null, "accountStatus": .string("available"), "roles": .array([.string("Moderator")])]))
        #expect(users.first { $0["name"] == .string("carol") }?["accountStatus"] == .string("noAccount"))
        #expect(listed.json["roles"] == .array([.object(["name": .string("Moderator"), "users": .array([.string("bob")])])]))
        #expect(listed.json["accountStatuses"] == .array(["couldNotDetermine", "available", "restricted", "noAccount", "temporarilyUnavailable"].map { .string($0) }))
        // Roles are per environment: production has none yet.
        #expect(try server.get("/_ck/users?environment=production").json["roles"] == .array([]))

        // Create, set an account, assign and revoke a role: the command line sees each.
        let created = try server.post("/_ck/users", json: #"{"name": "alicia"}"#)
        #expect(created.status == 200, "\(created.text)")
        #expect(created.json["created"] == .bool(true))
        #expect(created.json["user"]?["name"] == .string("alicia"))
        #expect(try s.ck("user", "list", "-o", "plain").stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] } == ["alice", "alicia", "bob", "carol"])
        #expect(try server.post("/_ck/users", json: #"{"name": "alicia"}"#).json["created"] == .bool(false))
        let account = try server.post("/_ck/users/account", json: #"{"user": "alicia", "status": "temporarilyUnavailable"}"#)
        #expect(account.json == .object(["user": .string("alicia"), "accountStatus": .string("temporarilyUnavailable")]), "\(account.text)")
        #expect(try cli(s, "user", "show", "alicia")["accountStatus"] == .string("temporarilyUnavailable"))
        let assigned = try server.post("/_ck/roles/assign", json: #"{"role": "Moderator", "user": "alicia"}"#)
        #expect(assigned.json["changed"] == .bool(true), "\(assigned.text)")
        #expect(try cli(s, "user", "show", "alicia")["roles"] == .object(["development": .array([.string("Moderator")])]))
        let revoked = try server.post("/_ck/roles/revoke", json: #"{"role": "Moderator", "user": "bob"}"#)
        #expect(revoked.json == .object(["role": .string("Moderator"), "user": .string("bob"), "environment": .string("development"),
                                         "changed": .bool(true)]), "\(revoked.text)")
        #expect(try cli(s, "user", "show", "bob")["roles"] == .object([:]))

        // Bad bodies name the field; CLI refusals keep their own words.
        for (path, body, start) in [("/_ck/users", "{}", "name: missing"), ("/_ck/users", #"{"name": 5}"#, "name: expected a string, got number"),
                                    ("/_ck/users", #"{"nme": "x"}"#, "nme: not a key of POST /_ck/users (it takes name)"),
                                    ("/_ck/users", "[", ""),
                                    ("/_ck/users/account", #"{"user": "bob", "status": "gone"}"#, "status: 'gone' is not an account status"),
                                    ("/_ck/users/account", #"{"status": "available"}"#, "user: missing"),
                                    ("/_ck/roles/assign", #"{"role": "Moderator"}"#, "user: missing"),
                                    ("/_ck/roles/assign", #"{"role": "_world", "user": "bob"}"#, "'_world' is a built-in role")] {
            let r = try server.post(path, json: body)
            #expect(refused(r, 400, "BAD_REQUEST", start), "\(path) \(body): \(r.text)")
        }
        #expect(refused(try server.post("/_ck/roles/assign", json: #"{"role": "Admin", "user": "bob"}"#), 404, "NOT_FOUND", "role 'Admin' is not in the development schema"))
        #expect(refused(try server.get("/_ck/users/account"), 405, "METHOD_NOT_ALLOWED", "/_ck/users/account answers POST, not GET"))
        #expect(try s.ck("user", "list", "-o", "plain").stdout.split(separator: "\n").count == 4, "no refused action listed a user")
    }

    // MARK: Schema

    @Test func schemaIsShownAndDeployedWithItsDiffFirst() throws {
        let s = try sandbox()
        let ckdb = """
            DEFINE SCHEMA
            CREATE ROLE Moderator;
            RECORD TYPE Post (title STRING QUERYABLE SORTABLE, GRANT WRITE TO "Moderator", GRANT READ TO "_world");

            """
        #expect(try s.ck("schema", "import", "-", stdin: ckdb).status == 0)
        let server = try ServeProcess(s, arguments: ["--no-auth"])
        let shown = try server.get("/_ck/schema")
        #expect(shown.status == 200, "\(shown.text)")
        #expect(shown.json["roles"] == .array([.string("Moderator")]))
        let types = shown.json["recordTypes"]?.arrayValue ?? []
        #expect(types.map { $0["name"] } == [.string("Post")])
        let fields = types.first?["fields"]?.arrayValue ?? []
        #expect(fields.first { $0["name"] == .string("title") } == .object([
            "name": .string("title"), "type": .string("STRING"), "queryable": .bool(true), "sortable": .bool(true), "searchable": .bool(false)]))
        #expect(fields.first { $0["name"] == .string("___recordID") }?["type"] == .string("REFERENCE"), "system fields are listed")
        #expect(types.first?["grants"] == .array([
            .object(["role": .string("_world"), "permissions": .array([.string("READ")])]),
            .object(["role": .string("Moderator"), "permissions": .array([.string("WRITE")])])]), "\(types)")
        let exported = try s.ck("schema", "export")
        #expect(shown.json["ckdb"] == .string(exported.stdout))
        #expect(exported.stdout.contains("    CREATE ROLE Moderator;\n"), "\(exported.stdout)")
        #expect(try server.get("/_ck/schema?environment=production").json["recordTypes"] == .array([]))

        // The dry run answers the changes ck schema deploy --dry-run lists, and changes nothing.
        let expected = ["+ role Moderator", "+ record type Post", "+ field Post.title STRING QUERYABLE SORTABLE",
                        "~ grants Post: (none) -> READ to _world; WRITE to Moderator"]
        let dry = try server.post("/_ck/schema/deploy", json: #"{"dryRun": true}"#)
        #expect(dry.status == 200, "\(dry.text)")
        #expect(dry.json["dryRun"] == .bool(true))
        let lines = dry.json["lines"]?.arrayValue?.compactMap(\.stringValue) ?? []
        #expect(Set(lines) == Set(expected), "\(lines)")
        let cliLines = try s.ck("schema", "deploy", "--dry-run", "-o", "plain").stdout.split(separator: "\n").map(String.init)
        #expect(lines == cliLines)
        #expect(try s.ck("-e", "production", "schema", "show", "-o", "plain").stdout == "", "the dry run deployed nothing")

        let deployed = try server.post("/_ck/schema/deploy", json: "{}")
        #expect(deployed.json["dryRun"] == .bool(false), "\(deployed.text)")
        #expect(deployed.json["lines"]?.arrayValue?.compactMap(\.stringValue) == lines)
        #expect(try s.ck("-e", "production", "schema", "show", "-o", "plain").stdout == "Post\n")
        #expect(try cli(s, "-e", "production", "schema", "show", "Post")["grants"]?.arrayValue?.count == 2)
        #expect(try server.post("/_ck/schema/deploy", json: #"{"dryRun": false}"#).json["changes"] == .array([]))

        for (body, start) in [(#"{"dryRun": "yes"}"#, "dryRun: expected true or false, got string"),
                              (#"{"dry": true}"#, "dry: not a key of POST /_ck/schema/deploy (it takes dryRun)"),
                              (#"{"environment": "staging"}"#, "environment: expected development or production")] {
            let r = try server.post("/_ck/schema/deploy", json: body)
            #expect(refused(r, 400, "BAD_REQUEST", start), "\(body): \(r.text)")
        }
        #expect(refused(try server.get("/_ck/schema/deploy"), 405, "METHOD_NOT_ALLOWED", "/_ck/schema/deploy answers POST, not GET"))
    }

    // MARK: Quotas

    @Test func quotasAreShownPerDatabaseAndUserAndSetAndCleared() throws {
        let s = try sandbox()
        #expect(try s.ck("quota", "set", "5MB", "--as", "alice").status == 0)
        #expect(try s.ck("quota", "set", "1GB", "--public").status == 0)
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "--name", "n1", "title=hello").status == 0)
        #expect(try s.ck("--as", "alice", "--db", "public", "record", "save", "Post", "--name", "p1", "body=hi there").status == 0)
        let used = try cli(s, "quota", "show", "--as", "alice")["used"]
        let publicUsed = try cli(s, "quota", "show", "--public")["used"]
        let server = try ServeProcess(s, arguments: ["--no-auth"])

        let shown = try server.get("/_ck/quotas")
        #expect(shown.status == 200, "\(shown.text)")
        #expect(publicUsed != .int(0) && publicUsed != used, "\(String(describing: publicUsed))")
        #expect(shown.json["public"] == .object(["quota": .int(1_000_000_000), "used": publicUsed ?? .null,
                                                 "byZone": .object(["_defaultZone": publicUsed ?? .null]),
                                                 "byRecordType": .object(["Post": publicUsed ?? .null])]), "\(shown.text)")
        let alice = try #require(shown.json["users"]?.arrayValue?.first { $0["user"] == .string("alice") }, "\(shown.text)")
        #expect(alice["quota"] == .int(5_000_000))
        #expect(alice["used"] == used && used != .int(0), "\(alice)")
        #expect(alice["byZone"] == .object(["_defaultZone": used ?? .null]))
        #expect(alice["byRecordType"] == .object(["Note": used ?? .null]))

        #expect(try server.post("/_ck/quotas", json: #"{"user": "alice", "quota": "2MB"}"#).json == .object(["user": .string("alice"), "quota": .int(2_000_000)]))
        #expect(try cli(s, "quota", "show", "--as", "alice")["quota"] == .int(2_000_000))
        #expect(try server.post("/_ck/quotas", json: #"{"user": "bob", "quota": 1024}"#).status == 200)
        #expect(try cli(s, "quota", "show", "--as", "bob")["quota"] == .int(1024))
        #expect(try server.post("/_ck/quotas", json: #"{"public": true, "quota": null}"#).json == .object(["user": .null, "quota": .null]))
        #expect(try cli(s, "quota", "show", "--public")["quota"] == .null)
        #expect(try server.post("/_ck/quotas", json: #"{"user": "alice", "quota": "none"}"#).status == 200)
        #expect(try cli(s, "quota", "show", "--as", "alice")["quota"] == .null)

        let typo = try server.post("/_ck/quotas", json: #"{"user": "alcie", "quota": 1}"#)
        #expect(refused(typo, 404, "NOT_FOUND", "user 'alcie' does not exist"), "\(typo.text)")
        for (body, start) in [(#"{"user": "alice"}"#, "quota: missing"), (#"{"quota": 5}"#, "user: missing"),
                              (#"{"user": "alice", "quota": "lots"}"#, "quota: "), (#"{"user": "alice", "quota": -1}"#, "quota: expected a whole number"),
                              (#"{"user": "alice", "quota": true}"#, "quota: expected a whole number"),
                              (#"{"public": true, "user": "alice", "quota": 1}"#, "user: the public database's quota is the container's"),
                              (#"{"public": "yes", "quota": 1}"#, "public: expected true or false")] {
            let r = try server.post("/_ck/quotas", json: body)
            #expect(refused(r, 400, "BAD_REQUEST", start), "\(body): \(r.text)")
        }
        #expect(try cli(s, "quota", "show", "--as", "bob")["quota"] == .int(1024), "no refused body changed a quota")
    }

    // MARK: Shares, zones, subscriptions of every user

    @Test func sharesZonesAndSubscriptionsOfEveryUserAreListed() throws {
        let s = try sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Lists").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "List", "--name", "list-1", "title=Groceries").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1", "--title", "Weekly shop").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "bob").status == 0)
        let link = try #require(try cli(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")["url"]?.stringValue)
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)
        #expect(try s.ck("--as", "bob", "zone", "create", "Work").status == 0)
        #expect(try s.ck("--as", "bob", "subscription", "create", "database", "--id", "everything").status == 0)
        #expect(try s.ck("--as", "alice", "subscription", "create", "query", "List", "title == 'x'", "--id", "lists").status == 0)
        #expect(try s.ck("account", "set", "noAccount", "--as", "carol").status == 0)
        let aliceURN = try #require(try cli(s, "user", "show", "alice")["userRecordName"]?.stringValue)
        let bobURN = try #require(try cli(s, "user", "show", "bob")["userRecordName"]?.stringValue)
        let server = try ServeProcess(s, arguments: ["--no-auth"])

        let shares = try server.get("/_ck/shares")
        #expect(shares.status == 200, "\(shares.text)")
        let list = shares.json["shares"]?.arrayValue ?? []
        #expect(list.count == 1, "\(shares.text)")
        let share = try #require(list.first)
        #expect(share["zone"] == .string("Lists"))
        #expect(share["owner"] == .string("alice"))
        #expect(share["ownerRecordName"] == .string(aliceURN))
        #expect(share["rootRecord"] == .string("list-1"))
        #expect(share["publicPermission"] == .string("none"))
        #expect(share["url"] == .string(link))
        #expect(share["title"] == .string("Weekly shop"))
        #expect(share["recordName"]?.stringValue?.isEmpty == false)
        #expect(share["participants"] == .array([
            .object(["user": .string("alice"), "userRecordName": .string(aliceURN), "role": .string("owner"),
                     "permission": .string("readWrite"), "acceptance": .string("accepted")]),
            .object(["user": .string("bob"), "userRecordName": .string(bobURN), "role": .string("privateUser"),
                     "permission": .string("readOnly"), "acceptance": .string("accepted")])]), "\(share)")
        #expect(shares.json["unreadable"]?.arrayValue?.map { $0["user"] } == [.string("carol")])

        let zones = try server.get("/_ck/zones")
        #expect(zones.status == 200, "\(zones.text)")
        let listed = (zones.json["zones"]?.arrayValue ?? []).map { z in
            [z["user"]?.stringValue ?? "-", z["database"]?.stringValue ?? "", z["zoneName"]?.stringValue ?? "", z["ownerRecordName"]?.stringValue ?? ""]
        }
        #expect(listed == [["-", "public", "_defaultZone", "_defaultOwner"],
                           ["alice", "private", "_defaultZone", aliceURN], ["alice", "private", "Lists", aliceURN],
                           ["bob", "private", "_defaultZone", bobURN], ["bob", "private", "Work", bobURN],
                           ["bob", "shared", "Lists", aliceURN]], "\(zones.text)")
        #expect(zones.json["zones"]?.arrayValue?[2]["capabilities"]?.arrayValue?.contains(.string("sharing")) == true, "\(zones.text)")
        #expect(zones.json["unreadable"]?.arrayValue?.map { $0["user"] } == [.string("carol")])

        let subscriptions = try server.get("/_ck/subscriptions")
        #expect(subscriptions.status == 200, "\(subscriptions.text)")
        let subs = subscriptions.json["subscriptions"]?.arrayValue ?? []
        #expect(subs.map { [$0["user"], $0["subscriptionID"], $0["database"], $0["subscriptionType"]] }
                == [[.string("alice"), .string("lists"), .string("private"), .string("query")],
                    [.string("bob"), .string("everything"), .string("private"), .string("database")]], "\(subscriptions.text)")
        #expect(subs.first?["query"]?["recordType"] == .string("List"))
        #expect(refused(try server.post("/_ck/zones", json: "{}"), 405, "METHOD_NOT_ALLOWED", "/_ck/zones answers GET, not POST"))
        #expect(refused(try server.get("/_ck/shares?environment=staging"), 400, "BAD_REQUEST", "environment: expected development or production"))
    }

    // MARK: Share actions

    /// What `ck share show` prints of a share as a user: its rows with the recordChangeTag left out.
    func shown(_ s: Sandbox, _ args: String...) throws -> [String] {
        let r = try s.run(args + ["-o", "plain"])
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("recordChangeTag") && !$0.hasPrefix("url") }
    }

    /// The two actions Web Services has no route for, as `ck zone purge` and `ck notification read` do them.
    @Test func zonePurgeAndNotificationsReadActAsTheNamedUser() throws {
        let s = try sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Scratch").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Scratch", "subscription", "create", "zone", "--id", "scratch-sub").status == 0)
        for name in ["a", "b"] {
            #expect(try s.ck("--as", "alice", "-z", "Scratch", "record", "save", "Note", "--name", name, "title=x").status == 0)
        }
        let server = try ServeProcess(s, arguments: ["--no-auth"])
        let unread = try JSON.parse(s.ck("--as", "alice", "notification", "list", "--unread", "-o", "json").stdout)["notifications"]?
            .arrayValue?.compactMap { $0["notificationID"]?.stringValue } ?? []
        try #require(unread.count == 2, "two notifications of the two saves: \(unread)")

        // read: one by ID, then all; the command line sees each.
        let one = try server.post("/_ck/notifications/read", json: #"{"user": "alice", "ids": ["\#(unread[0])"]}"#)
        #expect(one.json == .object(["user": .string("alice"), "read": .array([.string(unread[0])])]), "\(one.text)")
        let after = try s.ck("--as", "alice", "notification", "list", "--unread", "-o", "json").stdout
        #expect(!after.contains(unread[0]) && after.contains(unread[1]), "\(after)")
        let all = try server.post("/_ck/notifications/read", json: #"{"user": "alice", "all": true}"#)
        #expect(all.json["read"] == .array([.string(unread[1])]), "\(all.text)")
        for (body, field) in [(#"{"user": "alice"}"#, "ids or all"), (#"{"user": "alice", "ids": "x"}"#, "ids: expected an array"),
                              (#"{"user": "alice", "ids": [1]}"#, "ids[0]"), (#"{"user": "alice", "all": "yes"}"#, "all: expected"),
                              (#"{"ids": []}"#, "user: missing")] {
            let r = try server.post("/_ck/notifications/read", json: body)
            #expect(r.status == 400 && r.json["serverErrorCode"] == .string("BAD_REQUEST") && (r.json["reason"]?.stringValue ?? "").contains(field),
                    "\(body): \(r.text)")
        }

        // purge: the zone and its two records go, as when its user deletes it from iCloud settings.
        let purged = try server.post("/_ck/zones/purge", json: #"{"user": "alice", "zone": "Scratch"}"#)
        #expect(purged.json == .object(["user": .string("alice"), "zone": .string("Scratch"), "purged": .int(2)]), "\(purged.text)")
        #expect(try !s.ck("--as", "alice", "zone", "list").stdout.contains("Scratch"))
        let again = try server.post("/_ck/zones/purge", json: #"{"user": "alice", "zone": "Scratch"}"#)
        #expect(again.status == 404 && again.json["serverErrorCode"] == .string("ZONE_NOT_FOUND"), "\(again.text)")
        let noZone = try server.post("/_ck/zones/purge", json: #"{"user": "alice"}"#)
        #expect(noZone.status == 400 && (noZone.json["reason"]?.stringValue ?? "").contains("zone: missing"), "\(noZone.text)")
    }

    @Test func shareActionsActAsTheNamedUserAsTheCommandLineDoes() throws {
        let s = try sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Lists").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "List", "--name", "list-1", "title=Groceries").status == 0)
        #expect(try s.ck("user", "create", "bob").status == 0)
        let server = try ServeProcess(s, arguments: ["--no-auth"])

        // create: alice shares list-1; the command line shows the share.
        let created = try server.post("/_ck/shares/create", json: #"{"user": "alice", "zone": "Lists", "root": "list-1", "title": "Weekly shop"}"#)
        #expect(created.status == 200, "\(created.text)")
        #expect(created.json["share"]?["recordName"] == .string("share-list-1"), "\(created.text)")
        #expect(created.json["share"]?["owner"] == .string("alice"))
        #expect(try shown(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")
                == ["share\tshare-list-1", "zone\tLists", "owner\talice", "root\tlist-1", "publicPermission\tnone", "title\tWeekly shop",
                    "participant\talice owner readWrite accepted"])
        let link = try #require(created.json["share"]?["url"]?.stringValue)

        // invite: bob, read-write; pending until he accepts.
        let invited = try server.post("/_ck/shares/invite",
                                      json: #"{"user": "alice", "zone": "Lists", "share": "share-list-1", "participant": "bob", "permission": "readWrite"}"#)
        #expect(invited.status == 200, "\(invited.text)")
        #expect(try shown(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1").contains("participant\tbob privateUser readWrite pending"))

        // bob may not invite on alice's share: the command line's refusal, in CloudKit's shape.
        #expect(try s.ck("user", "create", "carol").status == 0)
        let cliRefusal = try s.run(["--as", "bob", "share", "invite", link, "carol"])
        #expect(cliRefusal.status != 0 && cliRefusal.stderr.contains("user bob does not own this share"), "\(cliRefusal.stderr)")
        let bobInvites = try server.post("/_ck/shares/invite", json: #"{"user": "bob", "share": "\#(link)", "participant": "carol"}"#)
        #expect(refused(bobInvites, 403, "ACCESS_DENIED", "user bob does not own this share"), "\(bobInvites.text)")

        // accept: bob's participation is accepted; leave: it is gone from his shared database.
        let accepted = try server.post("/_ck/shares/accept", json: #"{"user": "bob", "url": "\#(link)"}"#)
        #expect(accepted.status == 200, "\(accepted.text)")
        #expect(try shown(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1").contains("participant\tbob privateUser readWrite accepted"))
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "fetch", "list-1").status == 0)
        let left = try server.post("/_ck/shares/leave", json: #"{"user": "bob", "url": "\#(link)"}"#)
        #expect(left.json == .object(["user": .string("bob"), "share": .string("share-list-1"), "zone": .string("Lists"), "outcome": .string("left")]),
                "\(left.text)")
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "fetch", "list-1").status != 0)
        // alice may not leave her own share, as on the command line.
        #expect(refused(try server.post("/_ck/shares/leave", json: #"{"user": "alice", "url": "\#(link)"}"#),
                        400, "BAD_REQUEST", "user alice owns this share"))

        // update: public permission and title; remove: bob is no participant any more.
        let updated = try server.post("/_ck/shares/update", json: #"{"user": "alice", "zone": "Lists", "share": "list-1", "title": "Monthly shop"}"#)
        #expect(updated.status == 200, "\(updated.text)")
        #expect(try shown(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1").contains("title\tMonthly shop"))
        let invitedAgain = try server.post("/_ck/shares/invite", json: #"{"user": "alice", "zone": "Lists", "share": "list-1", "participant": "carol"}"#)
        #expect(invitedAgain.status == 200, "\(invitedAgain.text)")
        let removed = try server.post("/_ck/shares/remove", json: #"{"user": "alice", "zone": "Lists", "share": "list-1", "participant": "carol"}"#)
        #expect(removed.status == 200, "\(removed.text)")
        #expect(try shown(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1").filter { $0.contains("carol") } == [])
        let opened = try server.post("/_ck/shares/update", json: #"{"user": "alice", "zone": "Lists", "share": "list-1", "publicPermission": "readOnly"}"#)
        #expect(opened.status == 200, "\(opened.text)")
        #expect(try shown(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1").contains("publicPermission\treadOnly"))

        // delete: the share is gone; the root stays.
        let deleted = try server.post("/_ck/shares/delete", json: #"{"user": "alice", "zone": "Lists", "share": "list-1"}"#)
        #expect(deleted.json["outcome"] == .string("deleted"), "\(deleted.text)")
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "show", "list-1").status == 3)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "fetch", "list-1").status == 0)

        // A whole-zone share, without a root.
        #expect(try s.ck("--as", "alice", "zone", "create", "Team", "--zone-wide-sharing").status == 0)
        let whole = try server.post("/_ck/shares/create", json: #"{"user": "alice", "zone": "Team"}"#)
        #expect(whole.json["share"]?["recordName"] == .string("cloudkit.zoneshare"), "\(whole.text)")
        #expect(try shown(s, "--as", "alice", "-z", "Team", "share", "show", "cloudkit.zoneshare").contains("root\t(the whole zone)"))

        // Bad bodies are refused by the field's name; a near miss of a user is refused as --as refuses it.
        #expect(refused(try server.post("/_ck/shares/create", json: #"{"zone": "Lists"}"#), 400, "BAD_REQUEST", "user: missing"))
        #expect(refused(try server.post("/_ck/shares/invite", json: #"{"user": "alice", "share": "list-1"}"#), 400, "BAD_REQUEST", "participant: missing"))
        #expect(refused(try server.post("/_ck/shares/invite", json: #"{"user": "alice", "zone": "Team", "share": "cloudkit.zoneshare", "participant": "bob", "permission": "all"}"#),
                        400, "BAD_REQUEST", "permission: 'all' is not one of readOnly, readWrite"))
        #expect(refused(try server.post("/_ck/shares/update", json: #"{"user": "alice", "zone": "Team", "share": "cloudkit.zoneshare"}"#),
                        400, "BAD_REQUEST", "nothing to change"))
        #expect(refused(try server.post("/_ck/shares/accept", json: #"{"user": "bob", "url": 5}"#), 400, "BAD_REQUEST", "url: expected a string"))
        #expect(refused(try server.post("/_ck/shares/delete", json: #"{"user": "alice", "share": "x", "root": "y"}"#), 400, "BAD_REQUEST", "root: not a key"))
        #expect(refused(try server.post("/_ck/shares/accept", json: #"{"user": "alcie", "url": "\#(link)"}"#), 404, "NOT_FOUND", "user: user 'alcie' does not exist"))
        #expect(try s.ck("--as", "alcie", "user", "show").status == 3, "the near miss made nobody")
    }
}
