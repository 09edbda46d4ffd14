import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// ck's own routes under /_ck/ over HTTP to a running `ck serve --port 0`: health, reset, faults, notifications and
/// the request log; and `ck serve log` reading that log from another process, found through the store's serve.json.
/// What the server did is checked with the command line, as a developer would.
@Suite struct ServeControlPlaneTests {
    static let container = "iCloud.ck.default"
    static let base = "/database/1/iCloud.ck.default/development"

    func sandbox() throws -> Sandbox {
        let s = try Sandbox()
        #expect(try s.ck("init").status == 0)
        return s
    }

    func object(_ text: String) throws -> JSON { try JSON.parse(utf8: Array(text.utf8)) }

    /// The request log's entry for the request a reply answered (found by its X-Apple-Request-UUID).
    func logEntry(_ server: ServeProcess, _ reply: HTTPClientReply) throws -> JSON {
        let id = try #require(reply.header("X-Apple-Request-UUID"))
        let entries = try server.get("/_ck/requests").json["requests"]?.arrayValue ?? []
        return try #require(entries.first { $0["requestID"]?.stringValue == id }, "request \(id) is not in the log")
    }

    /// The error shape of a control-plane refusal: CloudKit's `{uuid, serverErrorCode, reason}`.
    func refused(_ r: HTTPClientReply, _ status: Int, _ code: String) -> Bool {
        r.status == status && r.json["serverErrorCode"]?.stringValue == code && r.json["reason"]?.stringValue?.isEmpty == false
            && r.json["uuid"]?.stringValue == r.header("X-Apple-Request-UUID")
    }

    // MARK: Health

    @Test func healthNamesTheStoreAndTheServerAndUnknownRoutesAreRefused() throws {
        let s = try sandbox()
        let server = try ServeProcess(s)
        let h = try server.get("/_ck/health")
        #expect(h.status == 200)
        #expect(h.json["status"] == .string("ok"))
        #expect(h.json["store"] == .string(s.dir + "/store"))
        #expect(h.json["storeFormat"] == .int(1))
        #expect(h.json["currentContainer"] == .string(Self.container))
        #expect(h.json["containers"] == .array([.string(Self.container)]))
        #expect(h.json["url"] == .string("http://127.0.0.1:\(server.port)"))
        #expect(h.json["pid"] == .int(Int64(server.process.processIdentifier)))
        // A container made from the command line while the server runs is listed at once.
        #expect(try s.ck("container", "create", "iCloud.com.example.Other").status == 0)
        #expect(try server.get("/_ck/health").json["containers"]?.arrayValue?.compactMap(\.stringValue).sorted()
                == [Self.container, "iCloud.com.example.Other"])
        let post = try server.post("/_ck/health", json: "{}")
        #expect(refused(post, 405, "METHOD_NOT_ALLOWED"))
        #expect(post.json["reason"] == .string("/_ck/health answers GET, not POST"))
        let unknown = try server.get("/_ck/nothing")
        #expect(refused(unknown, 404, "NOT_FOUND"))
        #expect(unknown.json["reason"]?.stringValue?.contains("GET /_ck/health") == true, "\(unknown.text)")
    }

    // MARK: Reset

    @Test func resetReplacesAnEnvironmentWithAFixturesDocumentOrWithNothing() throws {
        let s = try sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "old", "title=before").status == 0)
        #expect(try s.ck("zone", "create", "Work").status == 0)
        let server = try ServeProcess(s)
        // docs/fixtures.md's minimal example: owners and creators left out, supplied by the user `default`.
        let minimal = """
            {"format": "ck-fixtures/1", "records": [
              {"record": {"recordName": "n1", "recordType": "Note", "fields": {"title": {"value": "Hello"}}}},
              {"database": "public", "record": {"recordName": "p1", "recordType": "Post", "fields": {"body": {"value": "hi"}}}}]}
            """
        let done = try server.post("/_ck/reset", json: #"{"fixtures": \#(minimal)}"#)
        #expect(done.status == 200, "\(done.text)")
        #expect(done.json["container"] == .string(Self.container))
        #expect(done.json["environment"] == .string("development"))
        #expect(done.json["created"] == .bool(false))
        #expect(done.json["loaded"]?["records"] == .int(2))
        #expect(done.json["loaded"]?["zones"] == .int(0))
        let n1 = try s.ck("record", "fetch", "n1", "-o", "plain")
        #expect(n1.status == 0, "\(n1.stderr)")
        #expect(n1.stdout.hasPrefix("n1\tNote\t") && n1.stdout.hasSuffix("\t_defaultZone\ttitle=Hello\n"), "\(n1.stdout)")
        #expect(try s.ck("--db", "public", "record", "fetch", "p1", "-o", "plain").stdout.hasSuffix("\tbody=hi\n"))
        #expect(try s.ck("record", "fetch", "old").status == 3, "the reset removed what the document does not hold")
        #expect(try s.ck("zone", "list", "-o", "plain").stdout == "_defaultZone\t\(try userRecordName(s, "default"))\t-\n")

        // A bad document changes nothing and says where it is wrong.
        let bad = try server.post("/_ck/reset", json: """
            {"fixtures": {"format": "ck-fixtures/1", "records": [
              {"record": {"recordName": "n2", "recordType": "Note"}},
              {"record": {"recordType": "Note", "fields": {"title": {"value": "nameless"}}}}]}}
            """)
        #expect(refused(bad, 400, "BAD_REQUEST"))
        #expect(bad.json["reason"]?.stringValue?.contains("$.records[1].record.recordName") == true, "\(bad.text)")
        #expect(bad.json["reason"]?.stringValue?.contains("nothing was imported") == true, "\(bad.text)")
        #expect(try s.ck("record", "fetch", "n1").status == 0)
        #expect(try s.ck("record", "fetch", "n2").status == 3)
        for (body, place) in [(#"{"fixtures": [1]}"#, "fixtures: expected a fixtures document"),
                              (#"{"fixtures": {"format": "ck-fixtures/9"}}"#, "$.format"),
                              (#"{"environment": "staging"}"#, "environment: expected development or production"),
                              (#"{"environment": "production", "fixtures": {"format": "ck-fixtures/1", "environment": "development"}}"#, "fixtures:"),
                              (#"{"user": "_3869"}"#, "_3869"),
                              ("[", "not valid JSON")] {
            let r = try server.post("/_ck/reset", json: body)
            #expect(refused(r, 400, "BAD_REQUEST"), "\(body): \(r.text)")
            #expect(r.json["reason"]?.stringValue?.contains(place) == true, "\(body): \(r.text)")
        }
        #expect(try s.ck("record", "fetch", "n1").status == 0, "no refused reset changed anything")

        // `user` names who owns what the document leaves unowned.
        let asAlice = try server.post("/_ck/reset", json: #"{"user": "alice", "fixtures": {"format": "ck-fixtures/1", "records": [{"record": {"recordName": "a1", "recordType": "Note"}}]}}"#)
        #expect(asAlice.status == 200, "\(asAlice.text)")
        #expect(try s.ck("--as", "alice", "record", "fetch", "a1").status == 0)
        #expect(try s.ck("record", "fetch", "n1").status == 3)

        // A document without a schema brings the one its records make (Note only, no Post).
        #expect(try s.ck("schema", "show", "-o", "plain").stdout.split(separator: "\n").contains("Post") == false)

        // With nothing: the data goes, the schema stays.
        let empty = try server.post("/_ck/reset", json: "{}")
        #expect(empty.status == 200, "\(empty.text)")
        #expect(empty.json["loaded"]?["records"] == .int(0))
        #expect(try s.ck("--as", "alice", "record", "fetch", "a1").status == 3)
        #expect(try s.ck("schema", "show", "-o", "plain").stdout.split(separator: "\n").contains("Note"))

        // A document naming a container the store lacks creates it.
        let other = try server.post("/_ck/reset", json: #"{"fixtures": {"format": "ck-fixtures/1", "container": "iCloud.com.example.New", "records": [{"record": {"recordName": "z1", "recordType": "Note"}}]}}"#)
        #expect(other.status == 200, "\(other.text)")
        #expect(other.json["container"] == .string("iCloud.com.example.New"))
        #expect(other.json["created"] == .bool(true))
        #expect(try s.ck("-c", "iCloud.com.example.New", "record", "fetch", "z1").status == 0)
        #expect(try s.ck("record", "fetch", "z1").status == 3, "the current container is untouched")
    }

    func userRecordName(_ s: Sandbox, _ user: String) throws -> String {
        let r = try s.ck("--as", user, "user", "show", "-o", "json")
        return try #require(try object(r.stdout)["userRecordName"]?.stringValue, "\(r.stderr)")
    }

    // MARK: Faults

    @Test func aFaultAddedOverHTTPFailsTheNextMatchingRequestAndTheCommandLineSeesIt() throws {
        let s = try sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=x").status == 0)
        let server = try ServeProcess(s, arguments: ["--no-auth"])
        let query = #"{"query": {"recordType": "Note", "filterBy": [{"fieldName": "title", "comparator": "EQUALS", "fieldValue": {"value": "x"}}]}}"#
        let added = try server.post("/_ck/faults", json: #"{"error": "requestRateLimited", "op": "query", "times": 1, "retryAfter": 3}"#)
        #expect(added.status == 200, "\(added.text)")
        #expect(added.json["id"] == .string("f1"))
        #expect(added.json["error"] == .string("requestRateLimited"))
        #expect(added.json["code"] == .int(7))
        #expect(added.json["op"] == .string("query"))
        #expect(added.json["timesLeft"] == .int(1))
        #expect(added.json["retryAfter"]?.doubleValue == 3)
        let listed = try object(try s.ck("fault", "list", "-o", "json").stdout)["faults"]?.arrayValue ?? []
        #expect(listed.map { $0["id"] } == [.string("f1")])
        #expect(listed.first?["timesLeft"] == .int(1))

        // The next query fails with CloudKit's THROTTLED shape; the one after it is answered.
        let throttled = try server.post(Self.base + "/private/records/query", json: query)
        #expect(refused(throttled, 429, "THROTTLED"), "\(throttled.text)")
        #expect(throttled.json["retryAfter"] == .int(3))
        #expect(throttled.header("Retry-After") == "3")
        #expect(throttled.json["reason"]?.stringValue?.hasPrefix("injected fault f1") == true, "\(throttled.text)")
        // The rule refuses until its retryAfter has passed on the store's clock, which the server follows.
        #expect(try server.post(Self.base + "/private/records/query", json: query).status == 429)
        #expect(try s.ck("clock", "advance", "3s").status == 0)
        let answered = try server.post(Self.base + "/private/records/query", json: query)
        #expect(answered.status == 200, "\(answered.text)")
        #expect(answered.json["records"]?.arrayValue?.map { $0["recordName"] } == [.string("n1")])
        #expect(try object(try s.ck("fault", "list", "-o", "json").stdout)["faults"] == .array([]), "the --times 1 rule is used up")
        #expect(try server.get("/_ck/faults").json["faults"] == .array([]))

        // A rule added from the command line is listed over HTTP, fires on HTTP requests, and is removed by id.
        #expect(try s.ck("fault", "add", "--error", "quotaExceeded", "--op", "save", "--id", "full").status == 0)
        let list = try server.get("/_ck/faults")
        #expect(list.json["container"] == .string(Self.container))
        #expect(list.json["environment"] == .string("development"))
        #expect(list.json["faults"]?.arrayValue?.map { $0["id"] } == [.string("full")])
        let save = #"{"operations": [{"operationType": "create", "record": {"recordType": "Note", "recordName": "n2"}}]}"#
        #expect(refused(try server.post(Self.base + "/private/records/modify", json: save), 413, "QUOTA_EXCEEDED"))
        #expect(try server.request("DELETE", "/_ck/faults/full").json == .object(["cleared": .array([.string("full")])]))
        #expect(refused(try server.request("DELETE", "/_ck/faults/full"), 404, "NOT_FOUND"))
        #expect(try server.post(Self.base + "/private/records/modify", json: save).status == 200)
        #expect(try s.ck("record", "fetch", "n2").status == 0)

        // Rules are checked as `ck fault add` checks its options; a refused rule is not added.
        for (rule, start) in [(#"{"error": "bogus"}"#, "error: unknown error 'bogus'"), (#"{"op": "save"}"#, "error is required"),
                              (#"{"error": "zoneBusy", "times": 0}"#, "times: expected a whole number of at least 1"),
                              (#"{"error": "zoneBusy", "probability": 2}"#, "probability: expected a number between 0 and 1"),
                              (#"{"error": "zoneBusy", "colour": "red"}"#, "colour: not a fault rule key")] {
            let r = try server.post("/_ck/faults", json: rule)
            #expect(refused(r, 400, "BAD_REQUEST"), "\(rule): \(r.text)")
            #expect(r.json["reason"]?.stringValue?.hasPrefix(start) == true, "\(rule): \(r.text)")
        }
        // The refused value is echoed as written: a whole number as one.
        #expect(try server.post("/_ck/faults", json: #"{"error": "zoneBusy", "times": 0}"#).json["reason"]
                == .string("times: expected a whole number of at least 1, not 0"))
        #expect(try server.post("/_ck/faults", json: #"{"error": "zoneBusy", "times": 1.5}"#).json["reason"]
                == .string("times: expected a whole number of at least 1, not 1.5"))
        let wrongError = try server.post("/_ck/faults", json: #"{"error": "notAuthenticated", "retryAfter": 1}"#)
        #expect(wrongError.status == 400, "retryAfter fits retryable errors only: \(wrongError.text)")
        #expect(try server.get("/_ck/faults").json["faults"] == .array([]))

        // Production's rules are its own; DELETE /_ck/faults clears every rule of an environment.
        #expect(try server.post("/_ck/faults?environment=production", json: #"{"error": "zoneBusy"}"#).status == 200)
        #expect(try server.post("/_ck/faults?environment=production", json: #"{"error": "serviceUnavailable", "id": "down"}"#).status == 200)
        let prod = try object(try s.ck("-e", "production", "fault", "list", "-o", "json").stdout)["faults"]?.arrayValue ?? []
        #expect(prod.map { $0["id"] } == [.string("f1"), .string("down")])
        #expect(try object(try s.ck("fault", "list", "-o", "json").stdout)["faults"] == .array([]))
        #expect(try server.request("DELETE", "/_ck/faults?environment=production").json == .object(["cleared": .array([.string("f1"), .string("down")])]))
        #expect(try object(try s.ck("-e", "production", "fault", "list", "-o", "json").stdout)["faults"] == .array([]))
        #expect(refused(try server.request("PUT", "/_ck/faults", body: []), 405, "METHOD_NOT_ALLOWED"))
    }

    // MARK: Notifications

    @Test func notificationsShowWhatASaveOverHTTPWouldHavePushed() throws {
        let s = try sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "seed", "priority=1").status == 0)
        #expect(try s.ck("subscription", "create", "query", "Note", "priority >= 5", "--id", "hot", "--alert", "Urgent", "--fires-on", "create").status == 0)
        #expect(try s.ck("subscription", "create", "query", "Note", "priority >= 8", "--id", "quiet").status == 0)
        let me = try userRecordName(s, "default")
        let server = try ServeProcess(s, arguments: ["--no-auth"])
        #expect(try server.get("/_ck/notifications").json["notifications"] == .array([]))
        let save = try server.post(Self.base + "/private/records/modify", json: """
            {"operations": [{"operationType": "create", "record": {"recordType": "Note", "recordName": "h1", "fields": {"priority": {"value": 9}}}},
                            {"operationType": "create", "record": {"recordType": "Note", "recordName": "l1", "fields": {"priority": {"value": 1}}}}]}
            """)
        #expect(save.status == 200 && save.json["records"]?.arrayValue?.count == 2, "\(save.text)")
        let got = try server.get("/_ck/notifications")
        #expect(got.json["container"] == .string(Self.container))
        #expect(got.json["environment"] == .string("development"))
        let list = got.json["notifications"]?.arrayValue ?? []
        #expect(list.count == 2, "one record matched two subscriptions: \(got.text)")
        #expect(Set(list.compactMap { $0["subscriptionID"]?.stringValue }) == ["hot", "quiet"])
        for n in list {
            let sid = n["subscriptionID"]?.stringValue ?? ""
            #expect(n["user"] == .string("default"))
            #expect(n["userRecordName"] == .string(me))
            #expect(n["database"] == .string("private"))
            #expect(n["notificationType"] == .string("query"))
            #expect(n["reason"] == .string("recordCreated"))
            #expect(n["record"] == .object(["recordName": .string("h1"), "recordType": .string("Note")]))
            #expect(n["read"] == .bool(false))
            // The web-courier frame (web-services.md §8): fo 1 is "created".
            let ck = n["push"]?["ck"]
            #expect(ck?["nid"] == n["notificationID"])
            #expect(ck?["cid"] == .string(Self.container))
            #expect(ck?["ckuserid"] == .string(me))
            #expect(ck?["qry"]?["sid"] == .string(sid))
            #expect(ck?["qry"]?["rid"] == .string("h1"))
            #expect(ck?["qry"]?["fo"] == .int(1))
            #expect(ck?["qry"]?["zid"] == .string("_defaultZone"))
            // aps only when the subscription set an alert.
            if sid == "hot" {
                #expect(n["push"]?["aps"]?["alert"]?["body"] == .string("Urgent"))
            } else {
                #expect(n["push"]?["aps"] == nil)
            }
        }
        // The command line sees the same notifications.
        let cli = try object(try s.ck("notification", "list", "-o", "json").stdout)["notifications"]?.arrayValue ?? []
        #expect(Set(cli.compactMap { $0["notificationID"]?.stringValue }) == Set(list.compactMap { $0["notificationID"]?.stringValue }))
        // With the same push payload: the courier's frame is the payload ck notification show --payload prints.
        for c in cli {
            let plane = list.first { $0["notificationID"] == c["notificationID"] }
            #expect(c["payload"] != nil && c["payload"] == plane?["push"], "\(c)")
        }

        // since= an id: the ones after it; since= a time: the ones made after it.
        #expect(try s.ck("record", "save", "Note", "--name", "h2", "priority=6").status == 0)
        let all = try server.get("/_ck/notifications").json["notifications"]?.arrayValue ?? []
        #expect(all.count == 3)
        let firstID = all.first?["notificationID"]?.stringValue ?? ""
        let after = try server.get("/_ck/notifications?since=" + firstID).json["notifications"]?.arrayValue ?? []
        #expect(after.map { $0["notificationID"] } == Array(all.dropFirst()).map { $0["notificationID"] })
        #expect(after.last?["record"]?["recordName"] == .string("h2"))
        #expect(after.last?["subscriptionID"] == .string("hot"))
        let lastID = all.last?["notificationID"]?.stringValue ?? ""
        #expect(try server.get("/_ck/notifications?since=" + lastID).json["notifications"] == .array([]))
        #expect(try server.get("/_ck/notifications?since=2001-01-01T00:00:00Z").json["notifications"]?.arrayValue?.count == 3)
        #expect(try server.get("/_ck/notifications?since=2999-01-01T00:00:00Z").json["notifications"] == .array([]))
        #expect(refused(try server.get("/_ck/notifications?since=nope"), 404, "NOT_FOUND"))
        #expect(try server.get("/_ck/notifications?user=bob").json["notifications"] == .array([]))
        #expect(try server.get("/_ck/notifications?user=default").json["notifications"]?.arrayValue?.count == 3)
        #expect(try server.get("/_ck/notifications?environment=production").json["notifications"] == .array([]))
    }

    // MARK: The request log

    static let ledgerSchema = """
        DEFINE SCHEMA

            CREATE ROLE Auditor;

            RECORD TYPE Ledger (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                amount          INT64 QUERYABLE,
                GRANT CREATE, WRITE TO "_icloud",
                GRANT READ TO Auditor
            );

            RECORD TYPE Memo (
                body            STRING,
                GRANT READ TO "_world"
            );

        """

    @Test func theRequestLogKeepsEachRequestAndTheRuleThatRefusedOne() throws {
        let s = try sandbox()
        try s.write(Self.ledgerSchema, to: "ledger.ckdb")
        #expect(try s.ck("schema", "import", "ledger.ckdb").status == 0)
        #expect(try s.ck("--as", "bob", "account", "set", "available").status == 0)
        let token = try s.ck("serve", "token", "create", "--as", "bob").stdout.trimmingCharacters(in: .newlines)
        let encoded = token.replacingOccurrences(of: "+", with: "%2B").replacingOccurrences(of: "/", with: "%2F").replacingOccurrences(of: "=", with: "%3D")
        let server = try ServeProcess(s)
        #expect(try server.get("/_ck/requests").json == .object(["requests": .array([]), "lastSeq": .int(0)]))

        // bob holds no role that may read Ledger: refused, and the log names the grant and bob's roles.
        let target = Self.base + "/public/records/query?ckWebAuthToken=" + encoded
        let before = Date()
        let denied = try server.post(target, json: #"{"query": {"recordType": "Ledger"}}"#)
        let afterwards = Date()
        #expect(refused(denied, 403, "ACCESS_DENIED"))
        #expect(denied.json["reason"] == .string("READ operation not permitted"))
        let e = try logEntry(server, denied)
        #expect(e["seq"] == .int(1))
        #expect(e["method"] == .string("POST"))
        #expect(e["path"] == .string(Self.base + "/public/records/query"))
        #expect(e["container"] == .string(Self.container))
        #expect(e["database"] == .string("public"))
        #expect(e["operation"] == .string("records/query"))
        #expect(e["caller"] == .string("bob (web token)"))
        #expect(e["status"] == .int(403))
        #expect(e["serverErrorCode"] == .string("ACCESS_DENIED"))
        #expect(e["reason"] == .string("READ operation not permitted"))
        #expect(e["rule"] == .string("public database: record type Ledger grants READ to Auditor; user bob holds _world, _icloud"))
        #expect((e["duration"]?.doubleValue ?? -1) >= 0)
        let time = try #require(e["time"]?.stringValue.flatMap(ISO8601.parse), "\(e)")
        #expect(time >= Int64((before.timeIntervalSince1970 * 1000).rounded(.down)) && time <= Int64((afterwards.timeIntervalSince1970 * 1000).rounded(.up)))

        // With the role the same query is answered, and its entry carries no refusal.
        #expect(try s.ck("role", "assign", "Auditor", "bob").status == 0)
        let allowed = try server.post(target, json: #"{"query": {"recordType": "Ledger"}}"#)
        #expect(allowed.status == 200, "\(allowed.text)")
        let ok = try logEntry(server, allowed)
        #expect(ok["seq"] == .int(2))
        #expect(ok["status"] == .int(200))
        #expect(ok["serverErrorCode"] == nil && ok["rule"] == nil && ok["reason"] == nil)
        // ck's own routes are logged by route; reads of the log itself are not logged.
        let health = try server.get("/_ck/health")
        let h = try logEntry(server, health)
        #expect(h["operation"] == .string("control/health"))
        #expect(h["caller"] == nil && h["container"] == nil)
        let log = try server.get("/_ck/requests")
        #expect(log.json["requests"]?.arrayValue?.map { $0["seq"] } == [.int(1), .int(2), .int(3)])
        #expect(log.json["lastSeq"] == .int(3))

        // Paging: after= a sequence number, limit= how many.
        let page = try server.get("/_ck/requests?after=1&limit=1")
        #expect(page.json["requests"]?.arrayValue?.map { $0["requestID"] } == [.string(allowed.header("X-Apple-Request-UUID") ?? "")])
        #expect(page.json["lastSeq"] == .int(3))
        #expect(try server.get("/_ck/requests?after=3").json["requests"] == .array([]))
        #expect(refused(try server.get("/_ck/requests?limit=0"), 400, "BAD_REQUEST"))
        #expect(refused(try server.get("/_ck/requests?after=soon"), 400, "BAD_REQUEST"))
        // Query parameters are percent-decoded, the first of a repeated name counts, and a malformed escape in a
        // value leaves it empty (refused as not a number).
        let decoded = try server.get("/_ck/requests?%61fter=%31&limit=1&limit=5")
        #expect(decoded.json["requests"]?.arrayValue?.map { $0["seq"] } == [.int(2)], "\(decoded.text)")
        #expect(refused(try server.get("/_ck/requests?limit=%2"), 400, "BAD_REQUEST"))
        #expect(refused(try server.get("/_ck/requests?limit=1+2"), 400, "BAD_REQUEST"))

        // DELETE forgets the entries; sequence numbers go on.
        #expect(try server.request("DELETE", "/_ck/requests").json == .object(["cleared": .int(3)]))
        let cleared = try server.get("/_ck/requests").json["requests"]?.arrayValue ?? []
        #expect(cleared.map { $0["seq"] } == [.int(4)])
        #expect(cleared.first?["method"] == .string("DELETE"))

        // The log is a ring of the last 1000 requests (`ck serve log --help`): the oldest go first.
        let fd = try HTTPClient.connect(port: server.port, timeout: 30)
        defer { close(fd) }
        for _ in 0..<1005 {
            try HTTPClient.sendAll(fd, Array("GET /_ck/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            #expect(try HTTPClient.readReply(fd).status == 200)
        }
        let ring = try server.get("/_ck/requests?limit=5000").json
        let seqs = ring["requests"]?.arrayValue?.compactMap { $0["seq"]?.int64Value } ?? []
        #expect(seqs.count == 1000)
        // Entries 4 (the DELETE) to 1009 were made; the ring holds the last 1000 of them.
        #expect(seqs.first == 10, "\(seqs.prefix(3))")
        #expect(seqs.last == 1009)
        #expect(ring["lastSeq"] == .int(1009))

        // A refusal of one record inside an HTTP 200 is logged as a refusal too: nobody may create a Memo.
        let modify = try server.post(Self.base + "/public/records/modify?ckWebAuthToken=" + encoded, json: """
            {"operations": [{"operationType": "create", "record": {"recordType": "Memo", "recordName": "m1",
             "fields": {"body": {"value": "hi"}}}}]}
            """)
        #expect(modify.status == 200, "\(modify.text)")
        #expect(modify.json["records"]?.arrayValue?.first?["serverErrorCode"] == .string("ACCESS_DENIED"), "\(modify.text)")
        let m = try logEntry(server, modify)
        #expect(m["status"] == .int(200))
        #expect(m["serverErrorCode"] == .string("ACCESS_DENIED"))
        #expect(m["reason"] == .string("1 item failed inside the 200; the first: CREATE operation not permitted"), "\(m)")
        let rule = m["rule"]?.stringValue ?? ""
        #expect(rule.contains("record type Memo") && rule.contains("CREATE") && rule.contains("user bob holds _world, _icloud"), "\(m)")
    }

    // MARK: ck serve log

    @Test func serveLogReadsTheServerTheStoreAdvertises() throws {
        let s = try sandbox()
        let root = s.dir + "/store"
        let server = try ServeProcess(s, arguments: ["--no-auth"])
        // serve.json at the store's root says where the server listens.
        let ad = try object(String(contentsOfFile: root + "/serve.json", encoding: .utf8))
        #expect(ad["url"] == .string(server.baseURL))
        #expect(ad["pid"] == .int(Int64(server.process.processIdentifier)))
        #expect(try s.ck("serve", "log", "-o", "table").stdout == "No requests yet.\n")

        let health = try server.get("/_ck/health")
        let missing = try server.post(Self.base + "/private/records/query", json: #"{"query": {"recordType": "Nope"}}"#)
        #expect(refused(missing, 404, "NOT_FOUND"))
        let healthID = health.header("X-Apple-Request-UUID") ?? "", missingID = missing.header("X-Apple-Request-UUID") ?? ""

        let json = try s.ck("serve", "log", "-o", "json")
        #expect(json.status == 0, "\(json.stderr)")
        let entries = try object(json.stdout).arrayValue ?? []
        #expect(entries.map { $0["requestID"] } == [.string(healthID), .string(missingID)])
        let q = entries.last
        #expect(q?["seq"] == .int(2))
        #expect(q?["method"] == .string("POST"))
        #expect(q?["path"] == .string(Self.base + "/private/records/query"))
        #expect(q?["operation"] == .string("records/query"))
        #expect(q?["container"] == .string(Self.container))
        #expect(q?["database"] == .string("private"))
        #expect(q?["caller"] == .string("default (--no-auth)"))
        #expect(q?["status"] == .int(404))
        #expect(q?["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(q?["reason"] == .string("Did not find record type: Nope"))
        #expect(q?["time"]?.stringValue.flatMap(ISO8601.parse) != nil)
        #expect(q?["duration"]?.doubleValue != nil)

        // Plain: one tab-separated line a request.
        let plain = try s.ck("serve", "log", "-o", "plain")
        let lines = plain.stdout.split(separator: "\n").map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        #expect(lines.count == 2, "\(plain.stdout)")
        let cells = lines.last ?? []
        #expect(cells.count == 9, "\(cells)")
        if cells.count == 9 {
            #expect(ISO8601.parse(cells[0]) != nil)
            #expect(Array(cells[1...6]) == ["404", "POST", "records/query", "\(Self.container)/private", "default (--no-auth)", "NOT_FOUND"])
            #expect(Double(cells[7]) != nil)
            #expect(cells[8] == missingID)
        }
        #expect(lines.first?[3] == "control/health")
        let table = try s.ck("serve", "log", "-o", "table").stdout.split(separator: "\n")
        #expect(table.first?.split(separator: " ") == ["TIME", "STATUS", "METHOD", "OPERATION", "CONTAINER/DATABASE", "CALLER", "CODE", "MS"])
        #expect(table.count == 3)
        // --url names a server without serve.json.
        let byURL = try s.ck("serve", "log", "--url", server.baseURL, "-o", "json")
        #expect(try object(byURL.stdout).arrayValue?.map { $0["requestID"] } == [.string(healthID), .string(missingID)])

        // A stopped server removes its serve.json; `ck serve log` then says there is none.
        #expect(server.stop().status == 0)
        #expect(!FileManager.default.fileExists(atPath: root + "/serve.json"))
        let none = try s.ck("serve", "log")
        #expect(none.status == 3)
        #expect(none.stderr.contains("no ck serve is running for the store at \(root) (it has no serve.json)"), "\(none.stderr)")
        let gone = try s.ck("serve", "log", "--url", server.baseURL)
        #expect(gone.status == 5)
        #expect(gone.stderr.contains("cannot connect to \(server.baseURL)"), "\(gone.stderr)")

        // A server killed outright leaves serve.json behind; its process is gone, and `ck serve log` says so.
        let killed = try ServeProcess(s)
        let pid = killed.process.processIdentifier
        killed.stop(signal: SIGKILL)
        #expect(FileManager.default.fileExists(atPath: root + "/serve.json"))
        let stale = try s.ck("serve", "log")
        #expect(stale.status == 3)
        #expect(stale.stderr.contains("(started with pid \(pid), gone)"), "\(stale.stderr)")
        // The next server takes serve.json over.
        let next = try ServeProcess(s)
        #expect(try object(String(contentsOfFile: root + "/serve.json", encoding: .utf8))["url"] == .string(next.baseURL))
        #expect(try s.ck("serve", "log", "-o", "json").status == 0)
    }

    @Test func serveLogFollowPrintsANewRequestAsItHappens() throws {
        let s = try sandbox()
        let server = try ServeProcess(s, arguments: ["--no-auth"])
        let early = try server.get("/_ck/health")
        let follower = try Follower(s, ["serve", "log", "--follow", "-o", "jsonl"])
        // What the log held when the follow started comes first.
        let first = try #require(follower.line(containing: early.header("X-Apple-Request-UUID") ?? "?"), "the follow printed nothing")
        #expect(try object(first)["operation"] == .string("control/health"))
        // A request made while it follows is printed as one JSON line.
        let made = try server.post(Self.base + "/private/records/query", json: #"{"query": {"recordType": "Nope"}}"#)
        let id = try #require(made.header("X-Apple-Request-UUID"))
        let line = try #require(follower.line(containing: id), "the follow did not print request \(id)")
        let entry = try object(line)
        #expect(entry["requestID"] == .string(id))
        #expect(entry["status"] == .int(404))
        #expect(entry["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(entry["operation"] == .string("records/query"))
        // SIGTERM (as Ctrl-C's SIGINT) ends the follow cleanly.
        let ended = follower.stop()
        #expect(ended.status == 0 && ended.reason == .exit, "\(ended.stderr)")

        // A follow ends by itself, exit 0, when the server stops.
        let second = try Follower(s, ["serve", "log", "--follow", "-o", "jsonl"])
        #expect(second.line(containing: id) != nil)
        #expect(server.stop().status == 0)
        let over = second.wait()
        #expect(over.status == 0 && over.reason == .exit, "\(over.stderr)")
        #expect(over.stderr.contains("the server at \(server.baseURL) stopped"), "\(over.stderr)")
    }
}

/// A `ck` command that keeps running (`ck serve log --follow`), read a line at a time.
final class Follower {
    let process = Process()
    private let out = Pipe(), err = Pipe()
    private var pending = Data()

    init(_ sandbox: Sandbox, _ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Sandbox.binary)
        process.arguments = arguments
        process.environment = sandbox.environment
        process.currentDirectoryURL = URL(fileURLWithPath: sandbox.dir)
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A guard, not a timing assertion: a follow that never prints must not hang the suite.
        let p = process
        DispatchQueue.global().asyncAfter(deadline: .now() + 60) { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
    }

    deinit { if process.isRunning { process.terminate(); process.waitUntilExit() } }

    /// The next line holding `text` (lines before it are skipped); nil when the output ends first.
    func line(containing text: String) -> String? {
        while true {
            if let nl = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
                pending = Data(pending[(nl + 1)...])
                if line.contains(text) { return line }
                continue
            }
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            pending.append(chunk)
        }
    }

    /// Sends SIGTERM and waits.
    func stop() -> (status: Int32, reason: Process.TerminationReason, stderr: String) {
        process.terminate()
        return wait()
    }

    /// Waits for the process to end by itself.
    func wait() -> (status: Int32, reason: Process.TerminationReason, stderr: String) {
        let (_, e) = Sandbox.finish(process, out: out, err: err)
        return (process.terminationStatus, process.terminationReason, String(decoding: e, as: UTF8.self))
    }
}
