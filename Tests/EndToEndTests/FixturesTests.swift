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
        #expect(r.stderr == "ck: created container iCloud.com.example.Notes (now current)\n")
        #expect(r.stdout == "Imported 1 record, 0 zones and 0 assets into iCloud.com.example.Notes (development)\n")
        #expect(try fresh.ck("-c", "iCloud.com.example.Notes", "record", "fetch", "n").status == 0)
        // A fresh store's untouched default gives way: the imported container is current.
        #expect(try fresh.ck("record", "fetch", "n").status == 0)
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

    /// A document as a person writes it: no owners, change tags, stamps, capabilities or schema.
    static let minimal = """
        {"format": "ck-fixtures/1",
         "zones": [{"zoneName": "Work"}],
         "records": [
           {"record": {"recordName": "n1", "recordType": "Note", "fields": {"title": {"value": "Hello"}, "n": {"value": 3}}}},
           {"record": {"recordName": "t1", "recordType": "Task", "zoneID": {"zoneName": "Work"}, "fields": {"done": {"value": 0}}}},
           {"database": "public", "record": {"recordName": "p1", "recordType": "Post", "recordChangeTag": "k", "fields": {"body": {"value": "hi"}}}}
         ],
         "keyValueStores": [{"keys": {"theme": {"type": "string", "value": "dark"}}}]}
        """

    @Test func aHandWrittenMinimalDocumentImports() throws {
        let s = try Sandbox()
        try s.write(FixturesTests.minimal, to: "minimal.json")
        let r = try s.run(["--as", "alice", "import", "minimal.json", "-o", "table"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Imported 3 records, 1 zone, 1 key-value store and 0 assets into iCloud.ck.default (development)\n")
        let alice = try s.ck("--as", "alice", "user", "show", "-o", "plain").stdout
        let aliceID = try #require(alice.split(separator: "\n").first { $0.hasPrefix("userRecordName\t") }?.split(separator: "\t").last.map(String.init))
        // Owners and creators are the importing user; untagged records are numbered after the document's tag "k" (20).
        let n1 = try s.ck("--as", "alice", "record", "fetch", "n1", "-o", "json").stdout
        #expect(n1.contains("\"userRecordName\": \"\(aliceID)\""), "\(n1)")
        #expect(n1.contains("\"recordChangeTag\": \"l\""), "\(n1)")
        #expect(try s.ck("--as", "alice", "-z", "Work", "record", "fetch", "t1").stdout.hasPrefix("t1\tTask\tm\t"))
        #expect(try s.ck("--db", "public", "record", "fetch", "p1").stdout.hasPrefix("p1\tPost\tk\t"))
        #expect(try s.ck("--as", "alice", "kv", "get", "theme").stdout == "dark\n")
        // The schema is the one development's saves would have made.
        let schema = try s.ck("schema", "export").stdout
        #expect(schema.contains("RECORD TYPE Task (") && schema.contains(" INT64 QUERYABLE SORTABLE,"), "\(schema)")
        // A later save numbers after everything imported (the zone took 24).
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "--name", "n2", "title=x").stdout.hasPrefix("n2\tNote\tp\t"))
    }

    @Test func missingRequiredPartsAreNamedByFileAndJSONPath() throws {
        let s = try Sandbox()
        try s.write("""
            {"format": "ck-fixtures/1",
             "schema": {"format": 1, "roles": [], "recordTypes": {"Note": {"fields": {"title": {"type": "STRING"}}, "grants": []}}},
             "zones": [{"capabilities": []}],
             "records": [{"record": {"recordName": "a"}},
                         {"record": {"recordName": "b", "recordType": "Note", "fields": {"title": {"value": 5, "type": "INT64"}}}}]}
            """, to: "bad.json")
        let r = try s.ck("import", "bad.json")
        #expect(r.status == 8)
        #expect(r.stderr.contains("bad.json: 3 problems; nothing was imported"), "\(r.stderr)")
        #expect(r.stderr.contains("  bad.json: $.zones[0].zoneName: invalidArguments (12): missing (a zone needs a name)"), "\(r.stderr)")
        #expect(r.stderr.contains("  bad.json: $.records[0].record.recordType: invalidArguments (12): missing (a record needs a type)"), "\(r.stderr)")
        #expect(r.stderr.contains("  bad.json: $.records[1].record: invalidArguments (12): invalid attempt to set value type INT64 for field 'title' for type 'Note', defined to be: STRING"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/store"), "a failed import leaves no store")
    }

    @Test func theDocumentsEnvironmentIsHonoured() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "n", "title=x")
        try s.write(try s.ck("export").stdout, to: "dev.json")
        let fresh = try Sandbox()
        let refused = try fresh.run(["-e", "production", "import", s.dir + "/dev.json"])
        #expect(refused.status == 8)
        #expect(refused.stderr.contains("the document holds the development environment ($.environment), and -e production would load it into production; nothing was imported"), "\(refused.stderr)")
        #expect(refused.stderr.contains("hint: pass --into-env production"))
        let viaEnv = try fresh.run(["import", s.dir + "/dev.json"], env: ["CK_ENV": "production"])
        #expect(viaEnv.status == 8 && viaEnv.stderr.contains("CK_ENV=production would load it"), "\(viaEnv.stderr)")
        #expect(try fresh.run(["-e", "development", "import", "--into-env", "production", s.dir + "/dev.json"]).status == 64)
        // Loading a schema into production is an administrator's work: a user's import must fit the deployed schema.
        let asUser = try fresh.run(["import", "--into-env", "production", s.dir + "/dev.json"])
        #expect(asUser.status == 7 && asUser.stderr.contains("may not change the production schema"), "\(asUser.stderr)")
        let forced = try fresh.run(["import", "--all-users", "--into-env", "production", s.dir + "/dev.json", "-o", "table"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout == "Imported 1 record, 0 zones and 0 assets into iCloud.ck.default (production)\n")
        #expect(try fresh.ck("-e", "production", "record", "fetch", "n").status == 0)
        #expect(try fresh.ck("record", "fetch", "n").status == 3, "development is untouched")
        // Without -e, a production export goes back into production.
        try fresh.write(try fresh.ck("-e", "production", "export").stdout, to: "prod.json")
        let other = try Sandbox()
        #expect(try other.run(["import", "--all-users", fresh.dir + "/prod.json"]).status == 0)
        #expect(try other.ck("-e", "production", "record", "fetch", "n").status == 0)
        #expect(try other.ck("record", "fetch", "n").status == 3)
    }

    @Test func aFailedImportLeavesNothingBehind() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "keep", "title=x")
        let before = s.files(under: s.dir + "/store")
        func document(assets: String) -> String {
            """
            {"format": "ck-fixtures/1", "container": "iCloud.com.example.New",
             "records": [{"database": "public", "record": {"recordName": "p1", "recordType": "Post",
                          "fields": {"f": {"value": {"sha256": "\(FixturesTests.abcHash)", "size": 3}, "type": "ASSETID"}}}}],
             "assets": \(assets)}
            """
        }
        // Today's bug: the container was made before the document was checked.
        let invalid = try s.run(["import", "-"], stdin: document(assets: "{}"))
        #expect(invalid.status == 8, "\(invalid.stderr)")
        #expect(invalid.stderr.contains("<stdin>: $.assets: invalidArguments (12): no bytes for asset \(FixturesTests.abcHash)"), "\(invalid.stderr)")
        #expect(s.files(under: s.dir + "/store") == before, "no container, asset or pending tree is left")
        #expect(try s.ck("container", "list", "-o", "plain").stdout.hasPrefix("iCloud.ck.default"))
        #expect(try s.ck("-c", "iCloud.com.example.New", "record", "fetch", "p1").status == 3)
        // Refused by the store after the check (the environment is not empty): the asset it brought is not left.
        let valid = document(assets: "{\"\(FixturesTests.abcHash)\": \"YWJj\"}")
        let intoCurrent = try s.run(["-c", "iCloud.ck.default", "import", "-"], stdin: valid)
        #expect(intoCurrent.status == 4, "\(intoCurrent.stderr)")
        #expect(s.files(under: s.dir + "/store") == before)
        // Into a store the import created: the store goes too.
        let fresh = try Sandbox()
        #expect(try fresh.run(["import", "-"], stdin: document(assets: "{}")).status == 8)
        #expect(!FileManager.default.fileExists(atPath: fresh.dir + "/store"))
        // The valid document loads, asset and all, into a container of its own.
        #expect(try fresh.run(["import", "-"], stdin: valid).status == 0)
        #expect(try fresh.ck("-c", "iCloud.com.example.New", "--db", "public", "asset", "get", "p1", "f").stdout == "abc")
    }

    /// SHA-256 of "abc".
    static let abcHash = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

    @Test func readOnlyCommandsNeverCreateAStore() throws {
        let s = try Sandbox()
        let typo = s.dir + "/typo"
        for args in [["--data-dir", typo, "query", "Note"], ["--data-dir", typo, "record", "fetch", "n"], ["--data-dir", typo, "export"],
                     ["--data-dir", typo, "zone", "list"], ["--data-dir", typo, "doctor"], ["--data-dir", typo, "changes", "database"]] {
            let r = try s.run(args)
            #expect(r.status == 3, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("no ck store at \(typo) (from --data-dir)"), "\(r.stderr)")
            #expect(r.stderr.contains("hint: check the path, or create a store there with 'ck init'"))
        }
        let viaEnv = try s.run(["schema", "show"], env: ["CK_DATA_DIR": typo])
        #expect(viaEnv.status == 3 && viaEnv.stderr.contains("(from CK_DATA_DIR)"), "\(viaEnv.stderr)")
        #expect(!FileManager.default.fileExists(atPath: typo))
        // A write still creates the store on first use.
        #expect(try s.run(["--data-dir", typo, "record", "save", "Note", "title=x"]).status == 0)
        #expect(try s.run(["--data-dir", typo, "record", "fetch", "n"]).status == 3, "the store exists; the record does not")
    }
}
