import Foundation
import Testing
import CKModel

/// A `ck serve --port 0` on a sandbox's store (container iCloud.ck.default, made by `ck init`), and the Web Services
/// requests a client sends it: `/database/1/…` and `/device/1/…` paths, a web auth token in the query when given.
struct ServeSession {
    static let container = "iCloud.ck.default"
    let sandbox: Sandbox
    let server: ServeProcess

    /// `ck init`, then `setup` (CLI argument lists, each must succeed), then `ck serve --port 0 ARGS`.
    init(setup: [[String]] = [], serve arguments: [String] = []) throws {
        sandbox = try Sandbox()
        for args in [["init"]] + setup {
            let r = try sandbox.run(args)
            try #require(r.status == 0, "ck \(args.joined(separator: " ")): \(r.stderr)")
        }
        server = try ServeProcess(sandbox, arguments: arguments)
    }

    /// A web auth token for `user` (`ck serve token create --as USER`), as `?ckWebAuthToken=` carries it.
    func token(for user: String) throws -> String {
        let r = try sandbox.run(["serve", "token", "create", "--as", user])
        try #require(r.status == 0, "\(r.stderr)")
        return ServeSession.percentEncoded(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// The user record name of `user` as docs/store.md derives it (`_` and the first 32 hex digits of the SHA-256 of
    /// `ck-user:<name>`), computed by sha256sum, not by ck: `ck user show` of a user the container never met is
    /// not found.
    func userRecordName(_ user: String) throws -> String {
        let r = try sandbox.run(["-c", "printf 'ck-user:%s' \"$1\" | sha256sum | cut -c1-32", "sh", user], program: "/bin/sh")
        try #require(r.status == 0, "\(r.stderr)")
        return "_" + r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `+`, `/` and `=` escaped, as CloudKit JS sends a web auth token (web-services.md §3.2).
    static func percentEncoded(_ s: String) -> String {
        s.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "=", with: "%3D")
    }

    /// `/database/1/iCloud.ck.default/development/DB/OP`, with `ckAPIToken` and `ckWebAuthToken` when a token is given.
    func path(_ db: String, _ op: String, token: String? = nil) -> String {
        "/database/1/\(ServeSession.container)/development/\(db)/\(op)" + (token.map { "?ckAPIToken=test&ckWebAuthToken=" + $0 } ?? "")
    }

    func post(_ db: String, _ op: String, _ json: String, token: String? = nil) throws -> HTTPClientReply {
        try server.post(path(db, op, token: token), json: json)
    }

    func get(_ db: String, _ op: String, token: String? = nil) throws -> HTTPClientReply {
        try server.get(path(db, op, token: token))
    }

    /// A CLI command that must succeed; its stdout parsed as JSON (`-o json` is added).
    @discardableResult
    func cliJSON(_ args: [String]) throws -> JSON {
        let r = try sandbox.run(args + ["-o", "json"])
        try #require(r.status == 0, "ck \(args.joined(separator: " ")): \(r.stderr)")
        return try JSON.parse(r.stdout)
    }

    /// The path and query of a URL the server handed out, checking it points at this server.
    func target(of url: String) throws -> String {
        try #require(url.hasPrefix(server.baseURL + "/"), "\(url) is not on \(server.baseURL)")
        return String(url.dropFirst(server.baseURL.count))
    }
}

/// The IDs of a `{subscriptions:[…]}` answer's entries (errors included), in order.
private func ids(_ j: JSON) -> [String] {
    (j["subscriptions"]?.arrayValue ?? []).compactMap { $0["subscriptionID"]?.stringValue }
}

/// subscriptions/modify, list and lookup over HTTP (cloudkit.md §2.11, §3.8; web-services.md §4, §9.2), and the
/// command line seeing what HTTP made and the other way round.
@Suite struct ServeSubscriptionsTests {
    static let setup: [[String]] = [
        ["zone", "create", "Work"],
        ["record", "save", "Note", "--name", "seed", "title=x"],
        ["schema", "index", "Note", "___recordID", "--queryable"],
        ["schema", "index", "Note", "title", "--queryable"],
    ]

    static let createBoth = """
        {"operations":[
          {"operationType":"create","subscription":{"subscriptionID":"hot","subscriptionType":"query",
            "query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"title","fieldValue":{"value":"urgent","type":"STRING"}}]},
            "firesOn":["create","update"],"notificationInfo":{"alertBody":"Urgent note","shouldBadge":true}}},
          {"operationType":"create","subscription":{"subscriptionID":"work","subscriptionType":"zone",
            "zoneID":{"zoneName":"Work"},"notificationInfo":{"shouldSendContentAvailable":true}}}]}
        """

    @Test func createListLookupDeleteAndTheCommandLineSeesThem() throws {
        let s = try ServeSession(setup: Self.setup, serve: ["--no-auth"])

        // create: each saved subscription in operation order, as sent.
        let made = try s.post("private", "subscriptions/modify", Self.createBoth)
        #expect(made.status == 200, "\(made.text)")
        let subs = made.json["subscriptions"]?.arrayValue ?? []
        try #require(subs.count == 2, "\(made.text)")
        let hot = subs[0], work = subs[1]
        #expect(hot["serverErrorCode"] == nil && work["serverErrorCode"] == nil, "\(made.text)")
        #expect(hot["subscriptionID"] == .string("hot"))
        #expect(hot["subscriptionType"] == .string("query"))
        #expect(hot["query"]?["recordType"] == .string("Note"))
        let filter = hot["query"]?["filterBy"]?.arrayValue?.first
        #expect(filter?["comparator"] == .string("EQUALS"))
        #expect(filter?["fieldName"] == .string("title"))
        #expect(filter?["fieldValue"]?["value"] == .string("urgent"))
        #expect(Set(hot["firesOn"]?.arrayValue?.compactMap(\.stringValue) ?? []) == ["create", "update"])
        #expect(hot["notificationInfo"]?["alertBody"] == .string("Urgent note"))
        #expect(hot["notificationInfo"]?["shouldBadge"] == .bool(true))
        #expect(work["subscriptionID"] == .string("work"))
        #expect(work["subscriptionType"] == .string("zone"))
        #expect(work["zoneID"]?["zoneName"] == .string("Work"))
        #expect(work["notificationInfo"]?["shouldSendContentAvailable"] == .bool(true))

        // list answers GET (Apple's documented method) and POST {} (what iCloud.com clients send).
        let listed = try s.get("private", "subscriptions/list")
        #expect(listed.status == 200)
        #expect(Set(ids(listed.json)) == ["hot", "work"], "\(listed.text)")
        #expect(Set(ids(try s.post("private", "subscriptions/list", "{}").json)) == ["hot", "work"])

        // lookup: the found one in place, the missing one as {subscriptionID, reason, serverErrorCode} (§9.2).
        let looked = try s.post("private", "subscriptions/lookup", #"{"subscriptions":[{"subscriptionID":"work"},{"subscriptionID":"nope"}]}"#)
        #expect(looked.status == 200)
        let found = looked.json["subscriptions"]?.arrayValue ?? []
        try #require(found.count == 2, "\(looked.text)")
        #expect(found[0]["subscriptionID"] == .string("work"))
        #expect(found[0]["subscriptionType"] == .string("zone"))
        #expect(found[1]["subscriptionID"] == .string("nope"))
        #expect(found[1]["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(found[1]["reason"]?.stringValue?.isEmpty == false)
        #expect(Set(found[1].objectValue?.keys.map { $0 } ?? []) == ["subscriptionID", "reason", "serverErrorCode"])

        // The command line sees both, as the same user and database.
        let cli = try s.cliJSON(["subscription", "list"])
        #expect(Set(ids(cli)) == ["hot", "work"], "\(cli.serialized())")
        // And HTTP sees one the command line made.
        try s.cliJSON(["subscription", "create", "query", "Note", "title == 'cli'", "--id", "fromcli"])
        #expect(Set(ids(try s.get("private", "subscriptions/list").json)) == ["hot", "work", "fromcli"])

        // The subscriptions fire: a matching save over HTTP makes a notification with the alert sent; one in
        // zone Work fires the zone subscription; a non-matching one fires nothing.
        let saves = """
            {"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"urgent"}}}},
                           {"operationType":"create","record":{"recordName":"n2","recordType":"Note","fields":{"title":{"value":"calm"}}}}]}
            """
        #expect(try s.post("private", "records/modify", saves).status == 200)
        #expect(try s.post("private", "records/modify", #"{"zoneID":{"zoneName":"Work"},"operations":[{"operationType":"create","record":{"recordName":"w1","recordType":"Note","fields":{"title":{"value":"calm"}}}}]}"#).status == 200)
        let notes = try s.cliJSON(["notification", "list"])["notifications"]?.arrayValue ?? []
        let bySub = Dictionary(grouping: notes, by: { $0["subscriptionID"]?.stringValue ?? "" })
        #expect(bySub["hot"]?.count == 1, "\(notes)")
        #expect(bySub["hot"]?.first?["recordName"] == .string("n1"))
        #expect(bySub["hot"]?.first?["alertBody"] == .string("Urgent note"))
        #expect(bySub["work"]?.count == 1, "\(notes)")
        #expect(bySub["fromcli"] == nil)

        // delete: {subscriptionID, deleted:true}; a second delete of the same ID is a per-item NOT_FOUND.
        let deleted = try s.post("private", "subscriptions/modify", """
            {"operations":[{"operationType":"delete","subscription":{"subscriptionID":"hot"}},
                           {"operationType":"delete","subscription":{"subscriptionID":"hot"}}]}
            """)
        #expect(deleted.status == 200)
        let del = deleted.json["subscriptions"]?.arrayValue ?? []
        try #require(del.count == 2, "\(deleted.text)")
        #expect(del[0]["subscriptionID"] == .string("hot"))
        #expect(del[0]["deleted"] == .bool(true))
        #expect(del[1]["subscriptionID"] == .string("hot"))
        #expect(del[1]["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(Set(ids(try s.get("private", "subscriptions/list").json)) == ["work", "fromcli"])
        #expect(Set(ids(try s.cliJSON(["subscription", "list"]))) == ["work", "fromcli"])
    }

    @Test func badOperationsFailInTheirPlaceAndABadEnvelopeFailsTheRequest() throws {
        let s = try ServeSession(setup: Self.setup, serve: ["--no-auth"])
        let r = try s.post("private", "subscriptions/modify", """
            {"operations":[
              {"operationType":"frob","subscription":{"subscriptionID":"a","subscriptionType":"zone","zoneID":{"zoneName":"Work"}}},
              {"operationType":"create","subscription":{"subscriptionID":"b","subscriptionType":"database"}},
              {"operationType":"create","subscription":{"subscriptionID":"c","subscriptionType":"zone","zoneID":{"zoneName":"Missing"}}},
              {"operationType":"update","subscription":{"subscriptionID":"d","subscriptionType":"zone","zoneID":{"zoneName":"Work"}}},
              {"operationType":"create","subscription":{"subscriptionID":"ok","subscriptionType":"zone","zoneID":{"zoneName":"Work"}}}]}
            """)
        #expect(r.status == 200, "\(r.text)")
        let items = r.json["subscriptions"]?.arrayValue ?? []
        try #require(items.count == 5, "\(r.text)")
        #expect(ids(r.json) == ["a", "b", "c", "d", "ok"])
        // An unknown operation, and "database" (Web Services has query and zone only, cloudkit.md §2.11).
        #expect(items[0]["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(items[1]["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(items[2]["serverErrorCode"] == .string("ZONE_NOT_FOUND"))
        // update needs an existing subscription.
        #expect(items[3]["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(items[4]["serverErrorCode"] == nil)
        #expect(ids(try s.get("private", "subscriptions/list").json) == ["ok"])

        // No operations array: a request-level 400 with {uuid, serverErrorCode, reason} (§9.1).
        let bad = try s.post("private", "subscriptions/modify", #"{"operation":[]}"#)
        #expect(bad.status == 400)
        #expect(bad.json["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(bad.json["uuid"]?.stringValue?.isEmpty == false)
        #expect(bad.json["reason"]?.stringValue?.contains("operations") == true, "\(bad.text)")
    }

    @Test func aSubscriptionBelongsToTheUserWhoseTokenMadeIt() throws {
        let s = try ServeSession(setup: Self.setup)
        let alice = try s.token(for: "alice"), bob = try s.token(for: "bob")
        let body = #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"mine","subscriptionType":"query","query":{"recordType":"Note"},"notificationInfo":{"alertBody":"x"}}}]}"#
        let made = try s.post("private", "subscriptions/modify", body, token: alice)
        #expect(ids(made.json) == ["mine"])
        #expect(made.json["subscriptions"]?.arrayValue?.first?["serverErrorCode"] == nil, "\(made.text)")

        #expect(ids(try s.get("private", "subscriptions/list", token: alice).json) == ["mine"])
        #expect(ids(try s.get("private", "subscriptions/list", token: bob).json) == [])
        let bobLooks = try s.post("private", "subscriptions/lookup", #"{"subscriptions":[{"subscriptionID":"mine"}]}"#, token: bob)
        #expect(bobLooks.json["subscriptions"]?.arrayValue?.first?["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(ids(try s.cliJSON(["--as", "alice", "subscription", "list"])) == ["mine"])
        #expect(ids(try s.cliJSON(["--as", "bob", "subscription", "list"])) == [])

        // Subscriptions are a user's: without a token, 421 AUTHENTICATION_REQUIRED (web-services.md §3.4).
        let anonymous = try s.get("private", "subscriptions/list")
        #expect(anonymous.status == 421)
        #expect(anonymous.json["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
        #expect(anonymous.json["redirectURL"]?.stringValue?.isEmpty == false)
    }
}

/// users/caller, users/current, users/discover and the users/lookup forms over HTTP (web-services.md §2.1, §4;
/// cloudkit.md §2.12, §3.9), as the users whose web auth tokens make the requests.
@Suite struct ServeUsersTests {
    @Test func callerAndCurrentAnswerTheTokensUser() throws {
        let s = try ServeSession()
        let alice = try s.token(for: "alice"), bob = try s.token(for: "bob")
        let aliceName = try s.userRecordName("alice"), bobName = try s.userRecordName("bob")
        #expect(aliceName != bobName)

        // Documented under /public/; a live /private/ call answered too, so every database segment works.
        for db in ["public", "private"] {
            let caller = try s.get(db, "users/caller", token: alice)
            #expect(caller.status == 200, "\(caller.text)")
            #expect(caller.json["userRecordName"] == .string(aliceName))
            let current = try s.get(db, "users/current", token: alice)
            #expect(current.status == 200, "\(current.text)")
            #expect(current.json["userRecordName"] == .string(aliceName))
            #expect(try s.get(db, "users/caller", token: bob).json["userRecordName"] == .string(bobName))
            #expect(try s.get(db, "users/current", token: bob).json["userRecordName"] == .string(bobName))
        }
        // Read-only endpoints take POST too.
        #expect(try s.post("public", "users/caller", "{}", token: bob).json["userRecordName"] == .string(bobName))

        // Without a user: 421 with a redirectURL to sign in (web-services.md §3.2).
        for op in ["users/caller", "users/current", "users/discover"] {
            let r = try s.get("public", op)
            #expect(r.status == 421, "\(op)")
            #expect(r.json["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
            #expect(r.json["redirectURL"]?.stringValue?.contains("/_ck/signin") == true)
        }

        // --no-auth --as: every request is that user, with or without a token.
        let noAuth = try ServeProcess(s.sandbox, arguments: ["--no-auth", "--as", "carol"])
        let carol = try s.userRecordName("carol")
        #expect(try noAuth.get(s.path("public", "users/caller")).json["userRecordName"] == .string(carol))
        #expect(try noAuth.get(s.path("public", "users/caller", token: alice)).json["userRecordName"] == .string(carol))
    }

    @Test func discoverAndLookupFindOnlyUsersWithAnICloudAccount() throws {
        // bob and dave are known to the container (bob wrote, dave's account was set); erin has no iCloud
        // account; carol has a token but the container never met her.
        let s = try ServeSession(setup: [["--as", "bob", "record", "save", "Note", "--name", "b", "t=1"],
                                         ["--as", "dave", "account", "set", "available"],
                                         ["--as", "erin", "account", "set", "noAccount"]])
        let alice = try s.token(for: "alice")
        _ = try s.token(for: "carol")
        let bob = try s.userRecordName("bob"), dave = try s.userRecordName("dave"), erin = try s.userRecordName("erin")
        let me = try s.userRecordName("alice"), carolName = try s.userRecordName("carol")

        // GET: every discoverable user but the caller.
        let all = try s.get("public", "users/discover", token: alice)
        #expect(all.status == 200, "\(all.text)")
        let names = Set((all.json["users"]?.arrayValue ?? []).compactMap { $0["userRecordName"]?.stringValue })
        #expect(names.contains(bob) && names.contains(dave), "\(all.text)")
        #expect(!names.contains(me))
        #expect(!names.contains(erin), "a user without an iCloud account is not discoverable: \(all.text)")
        #expect(!names.contains(carolName))
        #expect((all.json["users"]?.arrayValue ?? []).allSatisfy { $0["nameComponents"] != nil })

        // lookupInfos: found users only, each with the lookupInfo that found it. ck's users have no e-mail
        // address or phone number, so those forms find nobody.
        let looked = try s.post("public", "users/discover", """
            {"lookupInfos":[{"userRecordName":"\(bob)"},{"emailAddress":"bob@example.com"},{"phoneNumber":"+15555550123"},
                            {"userRecordName":"_00000000000000000000000000000000"},{"userRecordName":"\(erin)"}]}
            """, token: alice)
        #expect(looked.status == 200, "\(looked.text)")
        let users = looked.json["users"]?.arrayValue ?? []
        try #require(users.count == 1, "\(looked.text)")
        #expect(users[0]["userRecordName"] == .string(bob))
        #expect(users[0]["lookupInfo"]?["userRecordName"] == .string(bob))
        #expect(users[0]["nameComponents"]?["givenName"] == .string("bob"))

        // The legacy forms: lookup/id answers user dictionaries (cloudkit.md §2.12); email and contacts find nobody.
        let byID = try s.post("public", "users/lookup/id", #"{"users":[{"userRecordName":"\#(dave)"},{"userRecordName":"\#(erin)"},{"userRecordName":"_nobody"}]}"#, token: alice)
        #expect(byID.status == 200, "\(byID.text)")
        #expect((byID.json["users"]?.arrayValue ?? []).compactMap { $0["userRecordName"]?.stringValue } == [dave])
        #expect(byID.json["users"]?.arrayValue?.first?["firstName"] == .string("dave"))
        let byEmail = try s.post("public", "users/lookup/email", #"{"users":[{"emailAddress":"dave@example.com"}]}"#, token: alice)
        #expect(byEmail.status == 200)
        #expect(byEmail.json["users"] == .array([]))
        let contacts = try s.post("public", "users/lookup/contacts", #"{"contacts":[]}"#, token: alice)
        #expect(contacts.status == 200)
        #expect(contacts.json["users"] == .array([]))

        // A lookupInfo with none of the three keys is a bad request.
        let bad = try s.post("public", "users/discover", #"{"lookupInfos":[{"name":"bob"}]}"#, token: alice)
        #expect(bad.status == 400)
        #expect(bad.json["serverErrorCode"] == .string("BAD_REQUEST"))
    }
}
