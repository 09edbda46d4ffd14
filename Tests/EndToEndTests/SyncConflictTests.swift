import Foundation
import Testing

/// `ck sync --on-conflict`, `ck device conflicts` and `ck device resolve` through the binary: failed saves handed
/// back to the app as CKSyncEngine does, the app's merge program, and every way that program can go wrong.
@Suite struct SyncConflictTests {
    /// Server records (title=Hello body=first count=1) that phone fetched and edited offline (title=Phone body=b2)
    /// while tablet changed them on the server (title=Tablet count=2). Answers the tags phone fetched and the
    /// server's tags now, by record.
    @discardableResult
    func conflict(_ s: Sandbox, records: [String] = ["n1"]) throws -> (fetched: [String: String], server: [String: String]) {
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        for n in records {
            #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", n, "title=Hello", "body=first", "count=1").status == 0)
        }
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("sync", "tablet").status == 0)
        var fetched: [String: String] = [:], now: [String: String] = [:]
        for n in records {
            fetched[n] = try tag(s, n)
            #expect(try s.ck("device", "save", "phone", "Note", "--name", n, "-z", "Notes", "title=Phone", "body=b2").status == 0)
            #expect(try s.ck("device", "save", "tablet", "Note", "--name", n, "-z", "Notes", "title=Tablet", "count=2").status == 0)
        }
        let pushed = try s.ck("sync", "tablet")
        #expect(pushed.status == 0, "\(pushed.stderr)")
        for n in records { now[n] = try tag(s, n) }
        return (fetched, now)
    }

    /// The server's record as JSON.
    func server(_ s: Sandbox, _ name: String) throws -> [String: Any] {
        let r = try s.ck("-z", "Notes", "record", "fetch", name, "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        return try #require((o["records"] as? [[String: Any]])?.first, "\(r.stdout)")
    }

    func tag(_ s: Sandbox, _ name: String) throws -> String {
        try #require(try server(s, name)["recordChangeTag"] as? String)
    }

    /// A record dictionary's fields as `key=value` text, sorted, for comparing with hand-written lists.
    func fields(_ record: Any?) -> [String] {
        guard let r = record as? [String: Any], let f = r["fields"] as? [String: Any] else { return [] }
        return f.keys.sorted().map { k in "\(k)=\((f[k] as? [String: Any])?["value"] ?? "?")" }
    }

    func conflicts(_ s: Sandbox, _ device: String = "phone") throws -> [[String: Any]] {
        let r = try s.ck("device", "conflicts", device, "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any], "\(r.stdout)")
        return try #require(o["conflicts"] as? [[String: Any]])
    }

    @Test(RequiredTool.needed("jq")) func manualLeavesTheSavePendingAndAMergeProgramResolvesIt() throws {
        let s = try Sandbox()
        let tags = try conflict(s)
        let fetchedTag = try #require(tags.fetched["n1"]), serverTag = try #require(tags.server["n1"])
        #expect(serverTag != fetchedTag)

        let manual = try s.ck("sync", "phone", "--on-conflict", "manual")
        #expect(manual.status == 10, "\(manual.stdout) \(manual.stderr)")
        #expect(manual.stdout.contains("conflict\tNotes\tn1\t\(serverTag)\t"), "\(manual.stdout)")
        #expect(manual.stderr.contains("conflict left to the app"), "\(manual.stderr)")
        // The server kept tablet's record; phone's edit is still pending.
        #expect(fields(try server(s, "n1")) == ["body=first", "count=2", "title=Tablet"])
        #expect(try s.ck("device", "records", "phone", "-z", "Notes").stdout.contains("Notes\tn1\tNote\t"))
        let list = try conflicts(s)
        #expect(list.count == 1)
        let c = try #require(list.first)
        #expect(c["recordName"] as? String == "n1")
        #expect(c["zoneName"] as? String == "Notes")
        #expect(c["recordType"] as? String == "Note")
        #expect(c["serverRecordChangeTag"] as? String == serverTag)
        #expect((c["ancestor"] as? [String: Any])?["recordChangeTag"] as? String == fetchedTag)
        #expect(fields(c["ancestor"]) == ["body=first", "count=1", "title=Hello"])
        #expect(fields(c["client"]) == ["body=b2", "count=1", "title=Phone"])
        #expect(fields(c["server"]) == ["body=first", "count=2", "title=Tablet"])
        #expect(c["error"] is NSNull)
        // A later sync without --on-conflict does not send it again.
        let again = try s.ck("sync", "phone")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!again.stdout.contains("pushed"), "\(again.stdout)")
        #expect(try tag(s, "n1") == serverTag)
        #expect(try conflicts(s).count == 1)

        // The app's merge function: the server's record, the device's changed keys on top, both titles kept.
        try s.write("""
            jq -c '.ancestor as $a | .client as $c | .server as $s | $s
              | .fields += ($c.fields | with_entries(select(.value != $a.fields[.key])))
              | .fields.title.value = $c.fields.title.value + "+" + $s.fields.title.value'
            """, to: "merge.sh")
        let merged = try s.ck("sync", "phone", "--on-conflict", "sh merge.sh")
        #expect(merged.status == 0, "\(merged.stdout) \(merged.stderr)")
        #expect(merged.stdout.contains("pushed\tsave\tNotes\tn1\n"), "\(merged.stdout)")
        let saved = try server(s, "n1")
        #expect(fields(saved) == ["body=b2", "count=2", "title=Phone+Tablet"])
        #expect((saved["modified"] as? [String: Any])?["deviceID"] as? String == "phone")
        #expect(try conflicts(s).isEmpty)
        #expect(try s.ck("device", "show", "phone", "-o", "plain").stdout.contains("pending saves\t0\n"))
    }

    @Test func resolveTakesServerClientOrFields() throws {
        let s = try Sandbox()
        let tags = try conflict(s, records: ["a", "b", "c"])
        let held = try s.ck("sync", "phone", "--on-conflict", "manual", "-o", "json")
        #expect(held.status == 10)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(held.stdout.utf8)) as? [String: Any], "\(held.stdout)")
        let reported = try #require(report["conflicts"] as? [[String: Any]])
        #expect(reported.map { $0["recordName"] as? String } == ["a", "b", "c"])
        #expect(reported.map { $0["serverRecordChangeTag"] as? String } == ["a", "b", "c"].map { tags.server[$0] })
        #expect(reported.map { ($0["error"] as? [String: Any])?["ckErrorCode"] as? String } == Array(repeating: "serverRecordChanged", count: 3))
        #expect(try conflicts(s).map { $0["recordName"] as? String } == ["a", "b", "c"])
        let server = try s.ck("device", "resolve", "phone", "a", "-z", "Notes", "--take", "server")
        #expect(server.status == 0, "\(server.stderr)")
        #expect(server.stdout == "Notes\ta\t-\n", "\(server.stdout)")
        #expect(try s.ck("device", "resolve", "phone", "b", "--take", "client").status == 0)
        let some = try s.ck("device", "resolve", "phone", "c", "-z", "Notes", "--take", "body")
        #expect(some.stdout == "Notes\tc\tsave(body)\n", "\(some.stdout)")
        #expect(try conflicts(s).isEmpty)
        // No conflict (any more) is unknownItem; a field neither version has is refused.
        let none = try s.ck("device", "resolve", "phone", "a", "-z", "Notes", "--take", "server")
        #expect(none.status == 3 && none.stderr.contains("no conflict for record 'a' in zone Notes on device 'phone'"), "\(none.stderr)")
        // The resolved edits are based on the server's tags: a plain sync sends them and they are saved.
        let sent = try s.ck("sync", "phone")
        #expect(sent.status == 0, "\(sent.stdout) \(sent.stderr)")
        #expect(!sent.stdout.contains("merged"), "a resolved edit met a conflict again: \(sent.stdout)")
        #expect(fields(try self.server(s, "a")) == ["body=first", "count=2", "title=Tablet"])
        #expect(fields(try self.server(s, "b")) == ["body=b2", "count=1", "title=Phone"])
        #expect(fields(try self.server(s, "c")) == ["body=b2", "count=2", "title=Tablet"])
        #expect(try s.ck("device", "records", "phone", "-z", "Notes", "-o", "plain").stdout.contains("\ta\tNote\t") )
    }

    @Test func resolveRefusesWhatItCannotDo() throws {
        let s = try Sandbox()
        try conflict(s)
        #expect(try s.ck("sync", "phone", "--on-conflict", "manual").status == 10)
        let field = try s.ck("device", "resolve", "phone", "n1", "-z", "Notes", "--take", "titel")
        #expect(field.status == 8 && field.stderr.contains("neither version has a field 'titel'"), "\(field.stderr)")
        let missing = try s.ck("device", "resolve", "phone", "n1", "-z", "Notes")
        #expect(missing.status == 64, "\(missing.stderr)")
        #expect(try conflicts(s).count == 1, "a refused resolve changed nothing")
        let empty = try s.ck("sync", "phone", "--on-conflict", " ")
        #expect(empty.status == 64 && empty.stderr.contains("--on-conflict: expected merge, server, client, manual or a command"), "\(empty.stderr)")
        let timeout = try s.ck("sync", "phone", "--on-conflict", "cat", "--conflict-timeout", "0")
        #expect(timeout.status == 64, "\(timeout.stderr)")
        #expect(try conflicts(s).count == 1, "a refused sync changed nothing")
    }

    @Test func serverAndClientPolicies() throws {
        let s = try Sandbox()
        let tag = try #require(try conflict(s).server["n1"])
        let server = try s.ck("sync", "phone", "--on-conflict", "server")
        #expect(server.status == 0, "\(server.stderr)")
        #expect(server.stdout.contains("dropped\tNotes\tn1\tchanged on the server; its record was kept"), "\(server.stdout)")
        #expect(try self.tag(s, "n1") == tag, "the server's record was not saved again")
        #expect(try s.ck("device", "records", "phone", "-z", "Notes", "-o", "plain").stdout.contains("\tn1\tNote\t\(tag)\t-\tbody=first\tcount=2\ttitle=Tablet\n"))

        // client: the device's whole version, its ancestor's count included, replaces the server's record.
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n1", "-z", "Notes", "title=Phone", "body=b2").status == 0)
        #expect(try s.ck("device", "save", "tablet", "Note", "--name", "n1", "-z", "Notes", "count=3", "extra=x").status == 0)
        #expect(try s.ck("sync", "tablet").status == 0)
        let client = try s.ck("sync", "phone", "--on-conflict", "client")
        #expect(client.status == 0, "\(client.stderr)")
        #expect(client.stdout.contains("pushed\tsave\tNotes\tn1\n"), "\(client.stdout)")
        #expect(fields(try self.server(s, "n1")) == ["body=b2", "count=2", "title=Phone"])
    }

    @Test func aRecordDeletedOnTheServerIsAConflictUnderManual() throws {
        let s = try Sandbox()
        try conflict(s)
        #expect(try s.ck("-z", "Notes", "record", "delete", "n1", "-y").status == 0)
        let held = try s.ck("sync", "phone", "--on-conflict", "manual")
        #expect(held.status == 10, "\(held.stdout) \(held.stderr)")
        #expect(held.stdout.contains("conflict\tNotes\tn1\t-\t"), "\(held.stdout)")
        let c = try #require(try conflicts(s).first)
        #expect(c["server"] is NSNull)
        #expect(c["serverRecordChangeTag"] is NSNull)
        #expect(fields(c["client"]) == ["body=b2", "count=1", "title=Phone"])
        #expect(try s.ck("device", "resolve", "phone", "n1", "-z", "Notes", "--take", "client").status == 0)
        let sent = try s.ck("sync", "phone")
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(fields(try server(s, "n1")) == ["body=b2", "count=1", "title=Phone"])
    }

    @Test(RequiredTool.needed("jq")) func aMergeProgramSeesADeletedRecordAndMayDelete() throws {
        let s = try Sandbox()
        try conflict(s, records: ["a", "b"])
        #expect(try s.ck("-z", "Notes", "record", "delete", "a", "-y").status == 0)
        // Held first: a sync given the program later hands it the same three versions.
        let held = try s.ck("sync", "phone", "--on-conflict", "manual")
        #expect(held.status == 10 && held.stdout.contains("conflict\tNotes\ta\t-\t"), "\(held.stdout)")
        // Keep what the server deleted (as the device has it, from its ancestor), delete what the server changed.
        try s.write("jq -c 'if .server == null and .ancestor.fields.title.value == \"Hello\" then .client else null end'", to: "keep.sh")
        let r = try s.ck("sync", "phone", "--on-conflict", "sh keep.sh")
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        #expect(r.stdout.contains("pushed\tsave\tNotes\ta\n") && r.stdout.contains("pushed\tdelete\tNotes\tb\n"), "\(r.stdout)")
        #expect(fields(try server(s, "a")) == ["body=b2", "count=1", "title=Phone"])
        #expect(try s.ck("-z", "Notes", "record", "fetch", "b").status == 3)
        // Under merge, a deletion held for the app still wins when released: the record is not created behind it.
        try conflict(s, records: ["c"])
        #expect(try s.ck("-z", "Notes", "record", "delete", "c", "-y").status == 0)
        #expect(try s.ck("sync", "phone", "--on-conflict", "manual").status == 10)
        let merged = try s.ck("sync", "phone", "--on-conflict", "merge")
        #expect(merged.status == 0 && merged.stdout.contains("dropped\tNotes\tc\tdeleted on the server"), "\(merged.stdout) \(merged.stderr)")
        #expect(try s.ck("-z", "Notes", "record", "fetch", "c").status == 3)
    }

    @Test func heldConflictsGoWithTheirZoneOrAccount() throws {
        let s = try Sandbox()
        try conflict(s)
        #expect(try s.ck("sync", "phone", "--on-conflict", "manual").status == 10)
        #expect(try conflicts(s).count == 1)
        // The zone purged: the device wipes it, and a conflict in it has nothing left to resolve into.
        #expect(try s.ck("zone", "purge", "Notes", "-y").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try conflicts(s).isEmpty)
        // An account switch clears the previous account's data, held conflicts included.
        let t = try Sandbox()
        try conflict(t)
        #expect(try t.ck("sync", "phone", "--on-conflict", "manual").status == 10)
        #expect(try t.ck("device", "switch-account", "phone", "--to", "bob").status == 0)
        #expect(try t.ck("--as", "bob", "sync", "phone").status == 0)
        let left = try t.ck("--as", "bob", "device", "conflicts", "phone", "-o", "json")
        #expect(left.status == 0, "\(left.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(left.stdout.utf8)) as? [String: Any], "\(left.stdout)")
        #expect((doc["conflicts"] as? [Any])?.isEmpty == true, "\(left.stdout)")
    }

    @Test func aMergeProgramThatFailsLeavesTheEditPending() throws {
        let s = try Sandbox()
        let tag = try #require(try conflict(s).server["n1"])
        try s.write("echo 'no merge today' >&2; exit 3", to: "fail.sh")
        try s.write("echo '{\"recordName\": '", to: "bad.sh")
        try s.write("jq '.server | .recordName = \"other\"'", to: "name.sh")
        try s.write("echo $$ > pgid; sleep 30; echo '{}'", to: "hang.sh")
        let cases: [(program: String, args: [String], said: String)] = [
            ("sh fail.sh", [], "conflict program 'sh fail.sh' exited with status 3 (stderr: no merge today)"),
            ("sh bad.sh", [], "conflict program 'sh bad.sh' printed invalid JSON"),
            ("sh name.sh", [], "conflict program 'sh name.sh' printed record 'other' of type Note, not 'n1' of type Note"),
            ("sh hang.sh", ["--conflict-timeout", "1"], "conflict program 'sh hang.sh' timed out after 1 s; its process group was killed"),
        ]
        for c in cases {
            if c.program == "sh name.sh", RequiredTool.path("jq") == nil { continue }
            let r = try s.run(["sync", "phone", "--on-conflict", c.program] + c.args)
            #expect(r.status == 10, "\(c.program): \(r.stdout) \(r.stderr)")
            #expect(r.stdout.contains("conflict\tNotes\tn1\t\(tag)\t" + c.said), "\(c.program): \(r.stdout)")
            let held = try conflicts(s)
            #expect(held.count == 1 && (held.first?["error"] as? String)?.hasPrefix(c.said) == true, "\(c.program): \(held)")
            #expect(fields(held.first?["client"]) == ["body=b2", "count=1", "title=Phone"], "nothing of the edit is lost")
            #expect(try self.tag(s, "n1") == tag, "\(c.program): the server's record changed")
        }
        // The hung program's whole process group is gone: the shell and the sleep it started.
        let pgid = try #require(Int32(try String(contentsOfFile: s.dir + "/pgid", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        var alive = SyncConflictTests.members(of: pgid)
        // A killed process leaves the table as it exits; wait for that, not for a time.
        for _ in 0..<100 where !alive.isEmpty {
            usleep(20_000)
            alive = SyncConflictTests.members(of: pgid)
        }
        #expect(alive.isEmpty, "processes of the conflict program still run: \(alive)")
        // Nothing was lost: the edit still goes through once resolved.
        #expect(try s.ck("device", "resolve", "phone", "n1", "-z", "Notes", "--take", "title").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(fields(try server(s, "n1")) == ["body=first", "count=2", "title=Phone"])
    }

    /// Processes (not zombies) whose process group is `pgid`, from /proc.
    static func members(of pgid: Int32) -> [String] {
        let pids = (try? FileManager.default.contentsOfDirectory(atPath: "/proc"))?.filter { Int($0) != nil } ?? []
        return pids.compactMap { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After "pid (comm)": state ppid pgrp …
            let rest = stat[stat.index(after: close)...].split(separator: " ")
            guard rest.count > 2, rest[0] != "Z", rest[0] != "X", Int32(rest[2]) == pgid else { return nil }
            return pid + " " + stat
        }
    }
}
