import Foundation
import Testing

/// `ck export` / `ck import`: one JSON document per environment, checked whole before anything is written.
@Suite struct FixturesTests {
    func seeded() throws -> Sandbox {
        let s = try Sandbox()
        try s.write("asset bytes", to: "a.bin")
        try s.ck("record", "save", "Note", "--name", "n1", "title=Hello", "tags:string[]=a,b", "f:asset=@a.bin")
        try s.ck("zone", "create", "Work")
        try s.ck("-z", "Work", "record", "save", "Task", "--name", "t1", "done=0")
        try s.ck("--as", "bob", "record", "save", "Note", "--name", "b1", "title=Bob's")
        try s.ck("--db", "public", "record", "save", "Post", "--name", "p1", "body=hi")
        try s.ck("schema", "index", "Note", "___recordID", "--queryable")
        return s
    }

    @Test func importWithoutContainerSeedsTheDocumentsContainer() throws {
        let s = try Sandbox()
        try s.ck("container", "create", "iCloud.com.example.Notes")
        try s.ck("-c", "iCloud.com.example.Notes", "record", "save", "Note", "--name", "n", "t=1")
        try s.write(try s.ck("-c", "iCloud.com.example.Notes", "export").stdout, to: "notes.json")
        let fresh = try Sandbox()
        let r = try fresh.run(["import", s.dir + "/notes.json", "-o", "table"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "ck: created container iCloud.com.example.Notes\n")
        #expect(r.stdout == "Imported 1 record, 0 zones and 0 assets into iCloud.com.example.Notes (development)\n")
        #expect(try fresh.ck("-c", "iCloud.com.example.Notes", "record", "fetch", "n").status == 0)
        #expect(try fresh.ck("record", "fetch", "n").status == 3, "the current container is unchanged")
        // -c chooses the target.
        let other = try Sandbox()
        #expect(try other.run(["-c", "iCloud.ck.default", "import", s.dir + "/notes.json"]).status == 0)
        #expect(try other.ck("record", "fetch", "n").status == 0)
    }

    @Test func exportImportExportIsIdentical() throws {
        let s = try seeded()
        let first = try s.ck("export", "--all-users")
        #expect(first.status == 0, "\(first.stderr)")
        try s.write(first.stdout, to: "dev.json")
        let fresh = try Sandbox()
        let imported = try fresh.run(["import", "--all-users", s.dir + "/dev.json", "-o", "table"])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == "Imported 4 records, 1 zone and 1 asset into iCloud.ck.default (development)\n")
        #expect(try fresh.ck("export", "--all-users").stdout == first.stdout)
        #expect(try fresh.ck("-z", "Work", "record", "fetch", "t1").stdout.hasPrefix("t1\tTask\t"))
        #expect(try fresh.ck("--as", "bob", "record", "fetch", "b1").status == 0)
        #expect(try fresh.ck("query", "Note").stdout.contains("n1\tNote"))
        // New saves never reuse an imported change tag.
        let tags = Set(try fresh.ck("export", "--all-users", "-o", "json").stdout.components(separatedBy: "\"recordChangeTag\": ").dropFirst().map { String($0.prefix(while: { $0 != "," })) })
        let next = try fresh.ck("record", "save", "Note", "--name", "n2", "title=x")
        let tag = "\"" + (next.stdout.split(separator: "\t").dropFirst(2).first.map(String.init) ?? "") + "\""
        #expect(!tags.contains(tag))
    }

    @Test func anInvalidDocumentWritesNothingAndListsEveryProblem() throws {
        let s = try seeded()
        var doc = try s.ck("export").stdout
        doc = doc.replacingOccurrences(of: "\"recordType\": \"Task\"", with: "\"recordType\": \"Bad Type\"")
        doc = doc.replacingOccurrences(of: "\"zoneName\": \"Work\"", with: "\"zoneName\": \"_bad\"")
        try s.write(doc, to: "bad.json")
        let fresh = try Sandbox()
        let r = try fresh.run(["import", s.dir + "/bad.json"])
        #expect(r.status == 8)
        #expect(r.stderr.contains("nothing was imported"))
        #expect(r.stderr.contains("$.zones[0]"))
        #expect(r.stderr.contains("$.records["))
        #expect(try fresh.ck("record", "fetch", "n1").status == 3, "nothing written")
    }

    @Test func importIntoANonEmptyEnvironmentNeedsReplace() throws {
        let s = try seeded()
        let doc = try s.ck("export").stdout
        let r = try s.run(["import", "-"], stdin: doc)
        #expect(r.status == 4 && r.stderr.contains("--replace"))
        try s.ck("record", "save", "Note", "--name", "extra", "title=x")
        #expect(try s.run(["import", "-", "--replace"], stdin: doc).status == 0)
        #expect(try s.ck("record", "fetch", "extra").status == 3, "replace removes what the document lacks")
        #expect(try s.ck("record", "fetch", "n1").status == 0)
        let broken = try s.run(["import", "-"], stdin: "{not json")
        #expect(broken.status == 8 && broken.stderr.contains("<stdin>:1:2"))
    }
}
