import Foundation
import Testing

/// `ck changes` and `ck gc` as a script meets them: tokens on stdout, exit codes, files on disk.
@Suite struct ChangesEndToEndTests {
    func token(_ r: Sandbox.Result) -> String {
        r.stdout.split(separator: "\n").first { $0.hasPrefix("syncToken\t") }.map { String($0.dropFirst("syncToken\t".count)) } ?? ""
    }

    @Test func zoneFeedThroughTheBinary() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Notes")
        try s.ck("-z", "Notes", "record", "save", "Note", "--name", "a", "title=A")
        try s.ck("-z", "Notes", "record", "save", "Note", "--name", "b", "title=B")
        let first = try s.ck("changes", "zone", "Notes")
        #expect(first.status == 0)
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0] == "saved\ta\tNote\t2\tNotes\ttitle=A")
        #expect(lines[1] == "saved\tb\tNote\t3\tNotes\ttitle=B")
        let t = token(first)
        #expect(t.hasPrefix("ckt1."))

        try s.ck("-z", "Notes", "record", "delete", "a")
        let next = try s.ck("-z", "Notes", "changes", "zone", "--since", t, "-o", "json")
        #expect(next.status == 0)
        #expect(next.stdout.contains("\"deleted\": true"))
        #expect(next.stdout.contains("\"moreComing\": false"))
        #expect(!next.stdout.contains("\"recordName\": \"b\""))

        let db = try s.ck("changes", "database", "-o", "jsonl")
        #expect(db.stdout.hasPrefix("{\"zoneID\":{\"zoneName\":\"Notes\""))

        let wrong = try s.ck("changes", "database", "--since", t)
        #expect(wrong.status == 8)
        #expect(wrong.stderr.contains("zone token, not a database token"))
        let dflt = try s.ck("changes", "zone")
        #expect(dflt.status == 8)
        #expect(dflt.stderr.contains("only in custom zones"))
        #expect(try s.ck("changes", "zone", "--limit", "0").status == 64)
    }

    @Test func gcCompactsRemovesOrphanAssetsAndExpiresOldTokens() throws {
        let s = try Sandbox()
        try s.write("cat bytes", to: "cat.png")
        try s.write("dog bytes", to: "dog.png")
        try s.ck("zone", "create", "Z")
        try s.ck("-z", "Z", "record", "save", "Pet", "--name", "p", "photo:asset=@cat.png")
        let old = token(try s.ck("changes", "zone", "Z"))
        try s.ck("-z", "Z", "record", "save", "Pet", "--name", "p", "photo:asset=@dog.png", "--policy", "changed-keys")
        try s.ck("-z", "Z", "record", "save", "Pet", "--name", "q", "n=1")
        try s.ck("-z", "Z", "record", "delete", "q")
        let current = token(try s.ck("changes", "zone", "Z"))
        let env = s.dir + "/store/containers/iCloud.ck.default/development"
        #expect(s.files(under: env + "/assets").count == 2)

        let dry = try s.ck("gc", "--dry-run", "-o", "json")
        #expect(dry.stdout.contains("\"assetsRemoved\": 1"))
        #expect(s.files(under: env + "/assets").count == 2, "a dry run changes nothing")
        let doctor = try s.ck("doctor")
        #expect(doctor.stdout.contains("'ck gc' removes it"))

        let gc = try s.ck("gc", "-o", "table")
        #expect(gc.status == 0)
        #expect(gc.stdout.contains("Compacted 1 of 1 zone log in development: 4 → 1 lines"))
        #expect(s.files(under: env + "/assets").count == 1)
        let log = try String(contentsOfFile: env + "/private/" + (s.files(under: env + "/private").first { $0.hasSuffix("Z.jsonl") } ?? ""), encoding: .utf8)
        #expect(log.split(separator: "\n").count == 1)

        let expired = try s.ck("changes", "zone", "Z", "--since", old)
        #expect(expired.status == 9)
        #expect(expired.stderr.contains("changeTokenExpired"))
        #expect(try s.ck("changes", "zone", "Z", "--since", current).status == 0)
        #expect(try s.ck("-z", "Z", "record", "fetch", "p").stdout.contains("photo=asset "))
        #expect(try s.ck("-z", "Z", "asset", "get", "p", "photo").stdout == "dog bytes")
        // Numbers dropped by compaction are never handed out again.
        let saved = try s.ck("-z", "Z", "record", "save", "Pet", "--name", "r", "n=2")
        #expect(saved.stdout.hasPrefix("r\tPet\t6\t"))
        #expect(try s.ck("doctor").status == 0)
    }
}
