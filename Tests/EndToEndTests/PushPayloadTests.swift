import Foundation
import Testing

/// Notifications as APNs delivers them (issue 30): the push payload, the 4 KB limit, coalescing for a device that
/// is not fetching, and `ck notification watch`, through the built binary.
@Suite struct PushPayloadTests {
    /// The default user's record name, as every store derives it (docs/store.md).
    static let owner = "_38691fd977d484b8b25e1808632b7d11"

    func seeded() throws -> Sandbox {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "seed", "title=x", "priority=1", "body=y", "summary=z")
        return s
    }

    func json(_ text: String) throws -> NSDictionary {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    /// The IDs `ck notification list` prints, oldest first.
    func ids(_ s: Sandbox, _ extra: String...) throws -> [String] {
        let r = try s.run(["notification", "list", "-o", "plain"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
    }

    @Test func aQueryNotificationCarriesTheAlertAndTheDesiredKeys() throws {
        let s = try seeded()
        let sub = try s.run(["subscription", "create", "query", "Note", "priority >= 5", "--id", "hot",
                             "--title", "Groceries", "--title-key", "T_KEY", "--title-arg", "t1",
                             "--subtitle", "Today", "--subtitle-key", "S_KEY", "--subtitle-arg", "s1", "--subtitle-arg", "s2",
                             "--alert", "Buy it", "--alert-key", "B_KEY", "--alert-arg", "milk",
                             "--action-key", "OPEN", "--launch-image", "launch.png",
                             "--sound", "ping.aiff", "--category", "NOTE", "--badge", "--desired-keys", "title,priority"])
        #expect(sub.status == 0, "\(sub.stderr)")
        try s.ck("record", "save", "Note", "--name", "n1", "title=Milk", "priority=9", "body=not wanted")
        let list = try ids(s)
        #expect(list.count == 1)
        let id = list.first ?? ""
        let r = try s.ck("notification", "show", id, "--payload")
        #expect(r.status == 0, "\(r.stderr)")
        let expected: NSDictionary = [
            "aps": [
                "alert": ["title": "Groceries", "title-loc-key": "T_KEY", "title-loc-args": ["t1"],
                          "subtitle": "Today", "subtitle-loc-key": "S_KEY", "subtitle-loc-args": ["s1", "s2"],
                          "body": "Buy it", "loc-key": "B_KEY", "loc-args": ["milk"],
                          "action-loc-key": "OPEN", "launch-image": "launch.png"],
                "badge": 1, "sound": "ping.aiff", "category": "NOTE",
            ],
            "ck": [
                "ce": 1, "cid": "iCloud.ck.default", "ckuserid": Self.owner, "nid": id,
                "qry": ["sid": "hot", "dbs": 2, "fo": 1, "rid": "n1", "zid": "_defaultZone", "zoid": Self.owner,
                        "af": ["title": "Milk", "priority": 9]],
            ],
        ]
        #expect(try json(r.stdout) == expected, "\(r.stdout)")
        // -o json of show and list carry the same payload; a silent subscription's push says content-available.
        #expect(try json(s.ck("notification", "show", id, "-o", "json").stdout)["payload"] as? NSDictionary == expected)
        let listed = try json(s.ck("notification", "list", "-o", "json").stdout)["notifications"] as? [NSDictionary]
        #expect(listed?.first?["payload"] as? NSDictionary == expected)
        try s.ck("subscription", "create", "query", "Note", "priority == 2", "--id", "quiet", "--content-available")
        try s.ck("record", "save", "Note", "--name", "n2", "title=Tea", "priority=2")
        let quiet = try ids(s).last ?? ""
        let push = try json(s.ck("notification", "show", quiet, "--payload").stdout)
        #expect(push["aps"] as? NSDictionary == ["content-available": 1])
        #expect(try s.ck("notification", "show", "nope", "--payload").status == 3)
    }

    @Test func desiredKeysOverFourKilobytesAreDroppedAndTheNotificationIsPruned() throws {
        let s = try seeded()
        try s.ck("subscription", "create", "query", "Note", "priority >= 5", "--id", "big", "--desired-keys", "title,body,summary")
        // title and body fit in 4096 bytes together; summary would pass them, so it is dropped.
        let body = String(repeating: "b", count: 3000)
        let summary = String(repeating: "s", count: 2000)
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=Short", "priority=9", "body=\(body)", "summary=\(summary)").status == 0)
        let id = try ids(s).first ?? ""
        let shown = try json(s.ck("notification", "show", id, "-o", "json").stdout)
        #expect(shown["isPruned"] as? Bool == true)
        let payload = try s.ck("notification", "show", id, "--payload").stdout
        let af = (((try json(payload))["ck"] as? NSDictionary)?["qry"] as? NSDictionary)?["af"] as? NSDictionary
        #expect(af == ["title": "Short", "body": body])
        let compact = try JSONSerialization.data(withJSONObject: try json(payload))
        #expect(compact.count <= 4096)
        // A notification that fits is not pruned.
        try s.ck("record", "save", "Note", "--name", "n2", "title=Small", "priority=9", "body=b", "summary=s")
        let small = try json(s.ck("notification", "show", try ids(s).last ?? "", "-o", "json").stdout)
        #expect(small["isPruned"] == nil)
    }

    @Test func quickSavesCoalesceForADeviceThatDidNotFetch() throws {
        let s = try seeded()
        try s.ck("subscription", "create", "query", "Note", "priority >= 5", "--id", "hot")
        for n in ["n1", "n2", "n3"] { try s.ck("record", "save", "Note", "--name", n, "title=\(n)", "priority=9") }
        let all = try ids(s)
        #expect(all.count == 3, "the user's list keeps every notification")
        // iphone never fetched: APNs kept only the last of the three for it.
        #expect(try ids(s, "--device", "iphone") == [all[2]])
        let json = try json(s.ck("notification", "list", "--device", "iphone", "-o", "json").stdout)
        let only = (json["notifications"] as? [NSDictionary])?.first
        #expect(only?["recordName"] as? String == "n3" && only?["isPruned"] as? Bool == true)
        // After it fetches, the next notification reaches it alone, not pruned; the earlier window stays coalesced.
        #expect(try s.ck("sync", "iphone").status == 0)
        try s.ck("record", "save", "Note", "--name", "n4", "title=n4", "priority=9")
        let after = try ids(s)
        #expect(try ids(s, "--device", "iphone") == [all[2], after[3]])
        let listed = try self.json(s.ck("notification", "list", "--device", "iphone", "-o", "json").stdout)["notifications"] as? [NSDictionary]
        #expect(listed?.last?["isPruned"] == nil)
    }

    /// Reads the watch's stderr until it says it is watching (or ends), so the change comes after its baseline.
    func waitUntilWatching(_ err: Pipe) -> String {
        var text = ""
        while !text.contains("watching notifications") {
            let chunk = err.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        return text
    }

    @Test func watchPrintsASaveMadeByAnotherProcess() throws {
        let s = try seeded()
        try s.ck("subscription", "create", "query", "Note", "priority >= 5", "--id", "hot")
        try s.ck("subscription", "create", "query", "Note", "priority < 5", "--id", "cold")
        try s.ck("record", "save", "Note", "--name", "before", "title=b", "priority=9")
        // --timeout only bounds a broken watch; the test waits for it to end, not for a time.
        let w = try s.launch(["notification", "watch", "--subscription", "hot", "--count", "1", "--timeout", "60", "-o", "jsonl"])
        let said = waitUntilWatching(w.err)
        #expect(said.contains("watching notifications of default from subscription hot"), "\(said)")
        // The first save fires only cold, which the watch leaves out; the second fires hot.
        #expect(try s.ck("record", "save", "Note", "--name", "c1", "title=x", "priority=1").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=x", "priority=9").status == 0)
        let (out, _) = Sandbox.finish(w.process, out: w.out, err: w.err)
        #expect(w.process.terminationStatus == 0)
        let lines = String(decoding: out, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1, "only what came after the watch started")
        let n = try json(String(lines.first ?? ""))
        #expect(n["recordName"] as? String == "n1" && n["subscriptionID"] as? String == "hot")
        #expect(((n["payload"] as? NSDictionary)?["ck"] as? NSDictionary)?["qry"] != nil)
    }

    @Test func watchEndsWithTheDocumentedStatus() throws {
        let s = try seeded()
        // --timeout before --count notifications came: 124; a watch bounded by --timeout alone: 0.
        let timedOut = try s.ck("notification", "watch", "--count", "1", "--timeout", "0.2")
        #expect(timedOut.status == 124 && timedOut.stdout.isEmpty, "\(timedOut.stderr)")
        #expect(try s.ck("notification", "watch", "--timeout", "0.2").status == 0)
        // SIGTERM: 143; Ctrl-C: 130.
        let term = try s.launch(["notification", "watch"])
        _ = waitUntilWatching(term.err)
        term.process.terminate()
        _ = Sandbox.finish(term.process, out: term.out, err: term.err)
        #expect(term.process.terminationStatus == 143)
        let int = try s.launch(["notification", "watch"])
        _ = waitUntilWatching(int.err)
        int.process.interrupt()
        _ = Sandbox.finish(int.process, out: int.out, err: int.err)
        #expect(int.process.terminationStatus == 130)
        // A subscription that doesn't exist is refused at once instead of waited for.
        let unknown = try s.ck("notification", "watch", "--subscription", "nosuch", "--timeout", "60")
        #expect(unknown.status == 3)
        #expect(unknown.stderr.contains("Subscription not found: 'nosuch'"), "\(unknown.stderr)")
        // The store deleted under the watch: a clear error, exit 3.
        let gone = try s.launch(["notification", "watch", "--timeout", "60"])
        _ = waitUntilWatching(gone.err)
        try FileManager.default.removeItem(atPath: s.dir + "/store")
        let (_, err) = Sandbox.finish(gone.process, out: gone.out, err: gone.err)
        #expect(gone.process.terminationStatus == 3)
        #expect(String(decoding: err, as: UTF8.self).contains("was removed while 'ck notification watch' waited"))
    }
}
