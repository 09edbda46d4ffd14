import Foundation
import Testing

/// `ck doctor` reports what is wrong, changes nothing without --repair, and with it moves bad data aside.
@Suite struct DoctorTests {
    func env(_ s: Sandbox) -> String { s.dir + "/store/containers/iCloud.ck.default/development" }

    @Test func aHealthyStoreHasNoProblems() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let r = try s.ck("doctor", "-o", "table")
        #expect(r.status == 0)
        #expect(r.stdout == "No problems found in \(s.dir)/store.\n")
    }

    @Test func brokenLogLineIsReportedThenMovedAside() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        try s.ck("record", "save", "Note", "--name", "b", "t=2")
        try s.ck("zone", "create", "Other")
        try s.ck("-z", "Other", "record", "save", "Note", "--name", "o", "t=3")
        let log = try #require(s.files(under: env(s)).first { $0.hasSuffix("/_defaultZone.jsonl") && $0.hasPrefix("private/") })
        let path = env(s) + "/" + log
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[0] = "{not json"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let before = try String(contentsOfFile: path, encoding: .utf8)

        // The error names path:line and the next step; other zones keep working.
        let fetch = try s.ck("record", "fetch", "b")
        #expect(fetch.status == 1)
        #expect(fetch.stderr.contains("\(path):1:2: invalid JSON"))
        #expect(fetch.stderr.contains("ck doctor"))
        #expect(try s.ck("-z", "Other", "record", "fetch", "o").status == 0)

        let check = try s.ck("doctor")
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem\t\(path):1\tnot a valid log line"))
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before, "doctor without --repair changes nothing")

        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        #expect(try s.ck("record", "fetch", "b").stdout.hasPrefix("b\tNote\t"))
        let kept = s.files(under: s.dir + "/store/lost+found").filter { $0.hasSuffix(".removed-lines") }
        #expect(kept.count == 1)
        let removed = try String(contentsOfFile: s.dir + "/store/lost+found/" + kept[0], encoding: .utf8)
        #expect(removed == "{not json\n")
        #expect(try s.ck("doctor").status == 0)
    }

    @Test func brokenZonesAndSchemaAreRebuiltOrSetAside() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Work")
        try s.ck("-z", "Work", "record", "save", "Note", "--name", "w", "t=1")
        try "{\"zones\": [".write(toFile: env(s) + "/zones.json", atomically: true, encoding: .utf8)
        try "{\"recordTypes\": 3}".write(toFile: env(s) + "/schema.json", atomically: true, encoding: .utf8)
        let bad = try s.ck("-z", "Work", "record", "fetch", "w")
        #expect(bad.status == 1 && bad.stderr.contains("zones.json:1:"))
        let check = try s.ck("doctor")
        #expect(check.status == 1)
        #expect(check.stdout.contains("zones.json"))
        #expect(check.stdout.contains("schema.json"))
        #expect(try s.ck("doctor", "--repair").status == 0)
        #expect(try s.ck("-z", "Work", "record", "fetch", "w").status == 0, "the zone is back, rebuilt from its log")
        #expect(try s.ck("zone", "list").stdout.contains("Work\t"))
        #expect(s.files(under: s.dir + "/store/lost+found").contains { $0.hasSuffix("zones.json") })
        #expect(s.files(under: s.dir + "/store/lost+found").contains { $0.hasSuffix("schema.json") })
    }

    @Test func assetsIndexAndStrangers() throws {
        let s = try Sandbox()
        try s.write("bytes", to: "a.bin")
        try s.write("other", to: "b.bin")
        try s.ck("record", "save", "Doc", "--name", "keep", "f:asset=@a.bin")
        try s.ck("record", "save", "Doc", "--name", "gone", "f:asset=@b.bin")
        try s.ck("record", "delete", "gone")
        let assets = s.files(under: env(s) + "/assets")
        #expect(assets.count == 2)
        try "x".write(toFile: env(s) + "/notes.txt", atomically: true, encoding: .utf8)
        let check = try s.ck("doctor")
        #expect(check.status == 0, "warnings only")
        #expect(check.stdout.contains("asset no live record refers to"))
        #expect(check.stdout.contains("notes.txt\tnot a file ck makes"))
        try s.ck("doctor", "--repair")
        #expect(s.files(under: env(s) + "/assets").count == 1)
        // A missing asset file is a problem doctor can only report.
        for a in s.files(under: env(s) + "/assets") { try FileManager.default.removeItem(atPath: env(s) + "/assets/" + a) }
        let missing = try s.ck("doctor")
        #expect(missing.status == 1)
        #expect(missing.stdout.contains("a record refers to this asset but its file is missing"))
    }

    /// Every lock and companion file ck makes (fault rules' `.faults.lock` in each environment, the environment's
    /// `.lock`, the index's SQLite files, a replica's `.sqlite.lock`) is one doctor knows: none is a stranger.
    @Test func filesCkMakesAreNotStrangers() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Work")
        try s.ck("fault", "add", "--error", "zoneBusy", "--op", "save", "--type", "Nothing")
        try s.ck("-e", "production", "fault", "add", "--error", "zoneBusy", "--times", "1")
        try s.ck("-z", "Work", "fault", "add", "--error", "zoneBusy", "--type", "Nothing")
        try s.ck("kv", "set", "theme", "dark")
        try s.ck("-z", "Work", "sync", "phone")
        try s.ck("kv", "set", "--device", "phone", "volume", "7")
        try s.ck("device", "save", "phone", "Note", "--name", "n1", "-z", "Work", "t=5")
        let made = s.files(under: s.dir + "/store")
        for lock in ["containers/iCloud.ck.default/development/.faults.lock", "containers/iCloud.ck.default/production/.faults.lock"] {
            #expect(made.contains(lock), "the fault rules should leave \(lock): \(made)")
        }
        #expect(made.contains { $0.hasSuffix("/phone.sqlite.lock") }, "\(made)")
        let r = try s.ck("doctor", "-o", "table")
        #expect(r.status == 0)
        #expect(r.stdout == "No problems found in \(s.dir)/store.\n")
        // A stranger beside a replica is still one.
        let replica = try #require(made.first { $0.hasSuffix("/phone.sqlite") })
        try "x".write(toFile: s.dir + "/store/" + replica + ".bak", atomically: true, encoding: .utf8)
        #expect(try s.ck("doctor").stdout.contains("phone.sqlite.bak\tis not a file ck makes"))
    }
}
