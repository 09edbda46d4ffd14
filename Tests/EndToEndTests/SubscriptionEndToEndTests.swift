import Foundation
import Testing

/// `ck subscription` and `ck notification` run as a user would, through the built binary.
@Suite struct SubscriptionEndToEndTests {
    func seeded() throws -> Sandbox {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "seed", "title=x", "priority=1")
        try s.ck("zone", "create", "Work")
        return s
    }

    @Test func createListShowDelete() throws {
        let s = try seeded()
        let q = try s.run(["subscription", "create", "query", "Note", "priority >= 5", "--id", "hot", "--alert", "Urgent",
                           "--desired-keys", "title", "--fires-on", "create,update", "-o", "table"])
        #expect(q.status == 0, "\(q.stderr)")
        #expect(q.stdout == "Created query subscription hot: Note where priority >= 5 in all zones on create,update\n")
        #expect(try s.ck("-z", "Work", "subscription", "create", "zone", "--id", "work").stdout == "work\n")
        let generated = try s.ck("subscription", "create", "database").stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: generated) != nil)
        let list = try s.ck("subscription", "list")
        #expect(list.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) } == [generated, "hot", "work"].sorted())
        let show = try s.ck("subscription", "show", "hot", "-o", "json")
        let json = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
        #expect(json?["subscriptionType"] as? String == "query")
        #expect(json?["firesOn"] as? [String] == ["create", "update"])
        #expect((json?["query"] as? [String: Any])?["predicate"] as? String == "priority >= 5")
        #expect((json?["notificationInfo"] as? [String: Any])?["alertBody"] as? String == "Urgent")
        #expect(try s.ck("__complete", "subscription").stdout.split(separator: "\n").count == 3)
        let del = try s.ck("subscription", "delete", "hot", "work", "-y", "-o", "table")
        #expect(del.status == 0 && del.stdout == "Deleted subscription hot\nDeleted subscription work\n")
        let missing = try s.ck("subscription", "show", "hot")
        #expect(missing.status == 3 && missing.stderr.contains("Subscription not found: 'hot'"))
        // CloudKit's refusals, with their exit codes.
        #expect(try s.ck("--db", "shared", "subscription", "create", "query", "Note", "title == 'a'").status == 7)
        #expect(try s.ck("subscription", "create", "query", "Note", "title == 'a'", "--fires-on", "").status == 8)
        #expect(try s.ck("subscription", "create", "zone").status == 8, "the default zone has no fetchChanges")
        #expect(try s.ck("subscription", "create", "query", "Note", "--fires-on", "sometimes").status == 64)
        #expect(try s.ck("-e", "production", "subscription", "create", "query", "Note", "title == 'a'").stderr.contains("ck schema deploy"))
    }

    @Test func aSaveProducesANotificationThatCanBeMarkedRead() throws {
        let s = try seeded()
        try s.ck("subscription", "create", "query", "Note", "priority >= 5", "--id", "hot", "--desired-keys", "title")
        try s.ck("record", "save", "Note", "--name", "n1", "title=Milk", "priority=9")
        try s.ck("record", "save", "Note", "--name", "n2", "title=Tea", "priority=2")
        try s.ck("--as", "bob", "record", "save", "Note", "--name", "b1", "title=Bob", "priority=9")
        let r = try s.ck("notification", "list", "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let list = doc?["notifications"] as? [[String: Any]] ?? []
        #expect(list.count == 1, "only the matching record of this user's own database")
        let n = list.first ?? [:]
        #expect(n["notificationType"] as? String == "query" && n["queryNotificationReason"] as? String == "recordCreated")
        #expect(n["recordName"] as? String == "n1" && n["subscriptionID"] as? String == "hot" && n["databaseScope"] as? String == "PRIVATE")
        #expect(((n["recordFields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String == "Milk")
        #expect(n["deviceID"] as? String == "ck" && n["read"] as? Bool == false)
        let id = n["notificationID"] as? String ?? ""
        #expect(try s.ck("notification", "read", id, "-o", "table").stdout == "Marked 1 notification read\n")
        #expect(try s.ck("notification", "list", "--unread").stdout.isEmpty)
        #expect(try s.ck("notification", "list").stdout.hasSuffix("\tread\n"))
        #expect(try s.ck("notification", "read", "nope").status == 3)
        #expect(try s.ck("notification", "read").status == 64)
        try s.ck("record", "save", "Note", "--name", "n3", "title=Jam", "priority=7")
        #expect(try s.ck("notification", "list", "--since", id).stdout.contains("n3"))
        #expect(try s.ck("notification", "read", "--all", "-o", "table").stdout == "Marked 1 notification read\n")
        let log = s.files(under: s.dir + "/store").filter { $0.contains("/notifications/") }
        #expect(log.count == 1)
    }

    @Test func exportImportRoundTripKeepsSubscriptions() throws {
        let s = try seeded()
        try s.ck("subscription", "create", "query", "Note", "title == 'a'", "--id", "q", "--fires-once")
        try s.ck("-z", "Work", "subscription", "create", "zone", "--id", "z", "--type", "Task")
        try s.ck("--db", "public", "record", "save", "Post", "--name", "p1", "body=hi")
        try s.ck("--db", "public", "subscription", "create", "query", "Post", "body == 'hi'", "--id", "posts")
        let first = try s.ck("export")
        #expect(first.stdout.contains("\"subscriptions\""))
        try s.write(first.stdout, to: "dev.json")
        let fresh = try Sandbox()
        let imported = try fresh.run(["import", s.dir + "/dev.json", "-o", "json"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.contains("\"subscriptions\": 3"))
        #expect(try fresh.ck("export").stdout == first.stdout)
        #expect(try fresh.ck("subscription", "list").stdout.contains("q\tquery"))
        // A subscription the document cannot support is refused with its JSON path, and nothing is written.
        let parts = first.stdout.components(separatedBy: "\"subscriptions\": [")
        try #require(parts.count == 2)
        let tail = parts[1]
        let at = try #require(tail.range(of: "\"zoneName\": \"Work\""))
        let bad = parts[0] + "\"subscriptions\": [" + tail.replacingCharacters(in: at, with: "\"zoneName\": \"Gone\"")
        let other = try Sandbox()
        let r = try other.run(["import", "-"], stdin: bad)
        #expect(r.status == 8 && r.stderr.contains("$.subscriptions[") && r.stderr.contains("'Gone'"), "\(r.stderr)")
        #expect(try other.ck("subscription", "list").stdout.isEmpty)
    }

    @Test func doctorReportsABrokenNotificationLine() throws {
        let s = try seeded()
        try s.ck("subscription", "create", "query", "Note", "priority >= 5")
        try s.ck("record", "save", "Note", "--name", "n1", "priority=9")
        let dir = s.dir + "/store/containers/iCloud.ck.default/development/notifications"
        let name = try #require(FileManager.default.contentsOfDirectory(atPath: dir).first)
        let handle = try #require(FileHandle(forWritingAtPath: dir + "/" + name))
        handle.seekToEndOfFile()
        handle.write(Data("{\"op\":\"what\"}\n".utf8))
        try handle.close()
        let r = try s.ck("doctor")
        #expect(r.status == 1 && r.stdout.contains(name + ":2"), "\(r.stdout)")
        #expect(try s.ck("doctor", "--repair").status == 0)
        #expect(try s.ck("notification", "list").stdout.contains("recordCreated Note n1"))
    }
}
