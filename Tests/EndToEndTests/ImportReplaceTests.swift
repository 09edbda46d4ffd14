import Foundation
import Testing

/// `ck import --replace` by a user replaces only what that user may write, and stays within its quotas;
/// `--all-users` is the administrator's load (docs/fixtures.md, docs/quotas.md).
@Suite struct ImportReplaceTests {
    static let schema = """
        DEFINE SCHEMA

            RECORD TYPE Post (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                title           STRING QUERYABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

        """

    /// A fixtures document of the development schema now in the store and the given records.
    func document(_ s: Sandbox, records: [[String: Any]]) throws -> String {
        let exported = try s.ck("export")
        try #require(exported.status == 0, "\(exported.stderr)")
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
        doc["records"] = records
        doc["zones"] = []
        doc["users"] = []
        doc["assets"] = [:] as [String: Any]
        let data = try JSONSerialization.data(withJSONObject: doc)
        return String(decoding: data, as: UTF8.self)
    }

    func post(_ name: String, _ title: String) -> [String: Any] {
        ["database": "public", "record": ["recordName": name, "recordType": "Post", "fields": ["title": ["value": title]]]]
    }

    func exists(_ s: Sandbox, _ name: String) throws -> Bool {
        try s.run(["--db", "public", "record", "fetch", name]).status == 0
    }

    @Test func aUsersReplaceKeepsPublicRecordsItMayNotDelete() throws {
        let s = try Sandbox()
        try s.write(Self.schema, to: "schema.ckdb")
        #expect(try s.ck("schema", "import", "schema.ckdb").status == 0)
        for name in ["a1", "a2"] {
            #expect(try s.run(["--as", "alice", "--db", "public", "record", "save", "Post", "--name", name, "title=alice's"]).status == 0)
        }
        #expect(try s.run(["--as", "bob", "--db", "public", "record", "save", "Post", "--name", "b1", "title=bob's"]).status == 0)
        try s.write(try document(s, records: [post("b2", "new")]), to: "doc.json")

        let r = try s.run(["--as", "bob", "import", "--replace", "doc.json", "-o", "table"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Imported 1 record, 0 zones and 0 assets into iCloud.ck.default (development); kept 2 public records that the acting user may not delete (its roles lack the type's WRITE grant)\n")
        // Alice's records stay, with their values; bob's own record was his to replace.
        #expect(try exists(s, "a1") && exists(s, "a2"))
        #expect(try s.run(["--db", "public", "record", "fetch", "a1"]).stdout.contains("alice's"))
        #expect(try !exists(s, "b1"))
        #expect(try exists(s, "b2"))
        let json = try s.run(["--as", "bob", "import", "--replace", "doc.json", "-o", "json"])
        #expect(json.stdout.contains("\"kept\": 2"), "\(json.stdout)")

        // A document that would replace alice's record by one of bob's is refused whole.
        try s.write(try document(s, records: [post("a1", "bob's now"), post("b3", "x")]), to: "takeover.json")
        let takeover = try s.run(["--as", "bob", "import", "--replace", "takeover.json"])
        #expect(takeover.status != 0)
        #expect(takeover.stderr.contains("may not create 1 public record; nothing was imported"), "\(takeover.stderr)")
        #expect(takeover.stderr.contains("public record 'a1' was created by"), "\(takeover.stderr)")
        #expect(try s.run(["--db", "public", "record", "fetch", "a1"]).stdout.contains("alice's"))
        #expect(try !exists(s, "b3") && exists(s, "b2"))

        // The administrator's load replaces everything.
        let admin = try s.run(["import", "--all-users", "--replace", "doc.json", "-o", "table"])
        #expect(admin.status == 0, "\(admin.stderr)")
        #expect(admin.stdout == "Imported 1 record, 0 zones and 0 assets into iCloud.ck.default (development)\n")
        #expect(try !exists(s, "a1") && !exists(s, "a2"))
    }

    @Test func aUsersImportStaysWithinItsQuotas() throws {
        let s = try Sandbox()
        #expect(try s.run(["--as", "bob", "record", "save", "Note", "--name", "old", "text=kept"]).status == 0)
        #expect(try s.run(["--as", "bob", "quota", "set", "5000"]).status == 0)
        let big = String(repeating: "x", count: 1000)
        let notes: [[String: Any]] = (1...10).map { i in
            ["database": "private", "record": ["recordName": "n\(i)", "recordType": "Note", "fields": ["text": ["value": big]]]]
        }
        try s.write(try document(s, records: notes), to: "notes.json")
        let r = try s.run(["--as", "bob", "import", "--replace", "notes.json"])
        #expect(r.status == 6, "\(r.stderr)")
        #expect(r.stderr.contains("quotaExceeded"), "\(r.stderr)")
        #expect(r.stderr.contains("of its 5000 bytes; nothing was imported"), "\(r.stderr)")
        #expect(try s.run(["--as", "bob", "record", "fetch", "old"]).status == 0)
        #expect(try s.run(["--as", "bob", "record", "fetch", "n1"]).status != 0)

        // The public database's quota holds for a user's import too.
        #expect(try s.run(["quota", "set", "5000", "--public"]).status == 0)
        let posts: [[String: Any]] = (1...10).map { i in
            ["database": "public", "record": ["recordName": "p\(i)", "recordType": "Note", "fields": ["text": ["value": big]]]]
        }
        try s.write(try document(s, records: posts), to: "posts.json")
        let p = try s.run(["--as", "bob", "import", "--replace", "posts.json"])
        #expect(p.status == 6, "\(p.stderr)")
        #expect(try !exists(s, "p1"))

        // The administrator's load is not counted against quotas, as its saves are not (docs/quotas.md).
        let admin = try s.run(["--as", "bob", "import", "--all-users", "--replace", "notes.json"])
        #expect(admin.status == 0, "\(admin.stderr)")
        #expect(try s.run(["--as", "bob", "record", "fetch", "n1"]).status == 0)
    }
}
