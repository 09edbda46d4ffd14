import Foundation
import Testing

/// `ck import` into a store nobody has used yet: the container the document names becomes current, so the next
/// command reaches what was imported rather than the empty iCloud.ck.default; -c / CK_CONTAINER naming that
/// container is honoured; and the piped summary labels every count.
@Suite struct ImportCurrentContainerTests {
    /// What a piped import of ZoneHintTests.fixtures prints: one `name<TAB>count` row per count, as in the JSON.
    static let summary = "records\t3\nzones\t1\nassets\t0\nusers\t0\nsubscriptions\t0\nkeyValueStores\t0\nkept\t0\n"

    @Test func aFreshStoreMakesTheImportedContainerCurrentAndSaysSo() throws {
        let s = try Sandbox()
        try s.write(ZoneHintTests.fixtures, to: "dev.json")
        let r = try s.ck("import", "dev.json")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == Self.summary)
        #expect(r.stderr == "ck: created container iCloud.com.example.Notes (now current)\n")
        // No -c: the next command goes to the imported container.
        let q = try s.ck("-z", "Notes", "query", "Note", "priority > 3", "-o", "name")
        #expect(q.status == 0, "\(q.stderr)")
        #expect(q.stdout.split(separator: "\n").sorted() == ["note-1", "note-2"])
        #expect(try s.ck("container", "show", "-o", "plain").stdout.hasPrefix("identifier\tiCloud.com.example.Notes\ncurrent\tyes\n"))
    }

    @Test func containerVariableOrFlagNamingTheDocumentsContainerIsHonoured() throws {
        for (args, env) in [(["import", "dev.json"], ["CK_CONTAINER": "iCloud.com.example.Notes"]),
                            (["-c", "iCloud.com.example.Notes", "import", "dev.json"], [:])] {
            let s = try Sandbox()
            try s.write(ZoneHintTests.fixtures, to: "dev.json")
            let r = try s.run(args, env: env)
            #expect(r.status == 0, "\(args) \(env): \(r.stderr)")
            #expect(r.stdout == Self.summary)
            #expect(r.stderr == "ck: created container iCloud.com.example.Notes (now current)\n")
            #expect(try s.ck("-z", "Notes", "record", "fetch", "note-3", "-o", "name").stdout == "note-3\n")
        }
        // -c naming some other container that does not exist is still refused: a typo creates nothing.
        let s = try Sandbox()
        try s.write(ZoneHintTests.fixtures, to: "dev.json")
        let typo = try s.ck("-c", "iCloud.com.example.Note", "import", "dev.json")
        #expect(typo.status == 3, "badContainer is a not-found error")
        #expect(typo.stderr.hasPrefix("ck: badContainer (5): container 'iCloud.com.example.Note' does not exist"))
        #expect(!s.files(under: s.dir + "/store").contains { $0.contains("iCloud.com.example.Note") })
    }

    @Test func aCurrentContainerInUseStaysCurrent() throws {
        // The default container holds a record: it is in use, and the import does not take its place.
        let s = try Sandbox()
        try s.write(ZoneHintTests.fixtures, to: "dev.json")
        #expect(try s.ck("record", "save", "Note", "--name", "mine", "title=x").status == 0)
        let r = try s.ck("import", "dev.json")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "ck: created container iCloud.com.example.Notes\n")
        #expect(try s.ck("record", "fetch", "mine", "-o", "name").stdout == "mine\n")
        // A container chosen with 'container use' stays current too, even empty.
        let t = try Sandbox()
        try t.write(ZoneHintTests.fixtures, to: "dev.json")
        #expect(try t.ck("container", "create", "iCloud.com.example.Other", "--use").status == 0)
        #expect(try t.ck("import", "dev.json").stderr == "ck: created container iCloud.com.example.Notes\n")
        #expect(try t.ck("container", "show", "-o", "plain").stdout.contains("identifier\tiCloud.com.example.Other"))
    }

    @Test func anExistingContainerBecomesCurrentInAnUnusedStore() throws {
        // The container exists already (empty) and the current one is the untouched default: it becomes current.
        let s = try Sandbox()
        try s.write(ZoneHintTests.fixtures, to: "dev.json")
        #expect(try s.ck("container", "create", "iCloud.com.example.Notes").status == 0)
        let r = try s.ck("import", "dev.json", "-o", "table")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "ck: now using container iCloud.com.example.Notes\n")
        #expect(r.stdout == "Imported 3 records, 1 zone and 0 assets into iCloud.com.example.Notes (development)\n")
        #expect(try s.ck("-z", "Notes", "record", "fetch", "note-1", "-o", "name").stdout == "note-1\n")
    }
}
