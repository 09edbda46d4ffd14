import Foundation
import Testing

/// A user's `ck import` never changes the grants or roles of the schema: it may only add what that user's saves
/// would add, and every permission check uses the grants in force before the import; `--all-users` is the
/// administrator's load, which may (docs/fixtures.md, docs/users.md).
@Suite struct ImportSchemaGrantsTests {
    /// Post: WRITE to the creator, CREATE to signed-in users, READ to signed-in users only (not the world).
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
                GRANT READ TO "_icloud"
            );

        """

    /// A sandbox whose development schema is `schema`, with one public post of alice's.
    func seeded() throws -> Sandbox {
        let s = try Sandbox()
        try s.write(Self.schema, to: "schema.ckdb")
        let imported = try s.ck("schema", "import", "schema.ckdb")
        try #require(imported.status == 0, "\(imported.stderr)")
        let saved = try s.run(["--as", "alice", "--db", "public", "record", "save", "Post", "--name", "a1", "title=alice's"])
        try #require(saved.status == 0, "\(saved.stderr)")
        return s
    }

    /// A fixtures document holding `records`, with the schema bob exports changed by `edit` (nil: no schema at all).
    func document(_ s: Sandbox, records: [[String: Any]], edit: ((inout [String: Any]) -> Void)?) throws -> String {
        let exported = try s.run(["--as", "bob", "export"])
        try #require(exported.status == 0, "\(exported.stderr)")
        var doc = try #require(try JSONSerialization.jsonObject(with: Data(exported.stdout.utf8)) as? [String: Any])
        if let edit {
            var schema = try #require(doc["schema"] as? [String: Any])
            edit(&schema)
            doc["schema"] = schema
        } else {
            doc["schema"] = nil
        }
        doc["records"] = records
        let data = try JSONSerialization.data(withJSONObject: doc)
        return String(decoding: data, as: UTF8.self)
    }

    func post(_ name: String, type: String = "Post") -> [String: Any] {
        ["database": "public", "record": ["recordName": name, "recordType": type, "fields": ["title": ["value": "bob's"]]]]
    }

    /// Sets the grants of `type` in a schema document.
    func grant(_ type: String, _ grants: [[String: Any]]) -> (inout [String: Any]) -> Void {
        { schema in
            var types = schema["recordTypes"] as? [String: Any] ?? [:]
            var t = types[type] as? [String: Any] ?? [:]
            t["grants"] = grants
            types[type] = t
            schema["recordTypes"] = types
        }
    }

    static var loosened: [[String: Any]] { [
        ["role": "_creator", "permissions": ["WRITE"]], ["role": "_icloud", "permissions": ["CREATE", "READ"]],
        ["role": "_world", "permissions": ["WRITE"]],
    ] }

    /// A type's block of `ck schema export`.
    func block(_ s: Sandbox, _ type: String = "Post") throws -> String {
        let exported = try s.ck("schema", "export")
        try #require(exported.status == 0, "\(exported.stderr)")
        let text = exported.stdout
        let start = try #require(text.range(of: "RECORD TYPE \(type) ("), "\(text)")
        let end = text[start.upperBound...].range(of: ");") ?? (text.endIndex..<text.endIndex)
        return String(text[start.lowerBound..<end.lowerBound])
    }

    @Test func aUsersImportCannotLoosenGrants() throws {
        let s = try seeded()
        try s.write(try document(s, records: [post("b1")], edit: grant("Post", Self.loosened)), to: "loose.json")

        for args in [["--replace"], []] {
            let r = try s.run(["--as", "bob", "import"] + args + ["loose.json"])
            #expect(r.status == 7, "\(r.stderr)")
            #expect(r.stderr.contains("permissionFailure"), "\(r.stderr)")
            #expect(r.stderr.contains("may not change the development schema (1 change); nothing was imported"), "\(r.stderr)")
            #expect(r.stderr.contains("~ grants Post:"), "\(r.stderr)")
        }
        let grants = try block(s)
        #expect(!grants.contains("_world"), "\(grants)")
        #expect(grants.contains("GRANT READ, CREATE TO \"_icloud\""), "\(grants)")
        #expect(try s.run(["--db", "public", "record", "fetch", "b1"]).status != 0, "nothing was written")
        // alice's post stays out of the world's reach and out of bob's hands.
        #expect(try s.run(["--anonymous", "--db", "public", "record", "fetch", "a1"]).status != 0)
        #expect(try s.run(["--as", "bob", "--db", "public", "record", "delete", "a1"]).status == 7)

        // Adding a role is a change of the schema's security too.
        try s.write(try document(s, records: [], edit: { $0["roles"] = ["Moderator"] }), to: "role.json")
        let role = try s.run(["--as", "bob", "import", "--replace", "role.json"])
        #expect(role.status == 7, "\(role.stderr)")
        #expect(role.stderr.contains("+ role Moderator"), "\(role.stderr)")
        #expect(try !s.ck("schema", "export").stdout.contains("Moderator"))
    }

    @Test func aUsersCreateCheckUsesTheGrantsInForce() throws {
        let s = try seeded()
        // Notice grants CREATE to nobody; a document granting it to bob's roles is no way to create one.
        try s.write(Self.schema.replacingOccurrences(of: "    );\n", with: "    );\n\n    RECORD TYPE Notice (\n        title STRING,\n        GRANT READ TO \"_world\"\n    );\n"),
                    to: "schema.ckdb")
        let imported = try s.ck("schema", "import", "schema.ckdb")
        try #require(imported.status == 0, "\(imported.stderr)")
        let open: [[String: Any]] = [["role": "_icloud", "permissions": ["CREATE"]], ["role": "_world", "permissions": ["READ"]]]
        try s.write(try document(s, records: [post("n1", type: "Notice")], edit: grant("Notice", open)), to: "notice.json")
        let r = try s.run(["--as", "bob", "import", "--replace", "notice.json"])
        #expect(r.status == 7, "\(r.stderr)")
        #expect(r.stderr.contains("~ grants Notice:"), "\(r.stderr)")
        #expect(try s.run(["--db", "public", "record", "fetch", "n1"]).status != 0)
        #expect(try block(s, "Notice").contains("GRANT READ TO \"_world\"\n"))
        // The same record with the schema as it is: refused by the grants in force.
        try s.write(try document(s, records: [post("n1", type: "Notice")], edit: { _ in }), to: "same.json")
        let same = try s.run(["--as", "bob", "import", "--replace", "same.json"])
        #expect(same.status == 7, "\(same.stderr)")
        #expect(same.stderr.contains("may not create 1 public record"), "\(same.stderr)")
        #expect(try s.run(["--db", "public", "record", "fetch", "n1"]).status != 0)
    }

    @Test func aDocumentWithoutSchemaKeepsTheGrantsInForce() throws {
        let s = try seeded()
        // A new type the records need is added just in time, with CloudKit's default grants.
        try s.write(try document(s, records: [post("b1"), post("c1", type: "Comment")], edit: nil), to: "bare.json")
        let r = try s.run(["--as", "bob", "import", "--replace", "bare.json"])
        #expect(r.status == 0, "\(r.stderr)")
        let grants = try block(s)
        #expect(grants.contains("GRANT READ, CREATE TO \"_icloud\""), "\(grants)")
        #expect(!grants.contains("_world"), "\(grants)")
        let comment = try block(s, "Comment")
        #expect(comment.contains("GRANT WRITE TO \"_creator\",\n        GRANT CREATE TO \"_icloud\",\n        GRANT READ TO \"_world\""), "\(comment)")
        #expect(try s.run(["--anonymous", "--db", "public", "record", "fetch", "a1"]).status != 0)
        #expect(try s.run(["--as", "carol", "--db", "public", "record", "fetch", "b1"]).status == 0)

        // A document that leaves a type out would remove it: refused.
        try s.write(try document(s, records: [], edit: { schema in
            var types = schema["recordTypes"] as? [String: Any] ?? [:]
            types["Comment"] = nil
            schema["recordTypes"] = types
        }), to: "fewer.json")
        let fewer = try s.run(["--as", "bob", "import", "--replace", "fewer.json"])
        #expect(fewer.status == 7, "\(fewer.stderr)")
        #expect(fewer.stderr.contains("- record type Comment"), "\(fewer.stderr)")
        #expect(try s.ck("schema", "show", "Comment").status == 0)
    }

    @Test func theAdministratorsLoadChangesTheSchema() throws {
        let s = try seeded()
        try s.write(try document(s, records: [post("b1")], edit: grant("Post", Self.loosened)), to: "loose.json")
        let r = try s.run(["import", "--all-users", "--replace", "loose.json"])
        #expect(r.status == 0, "\(r.stderr)")
        let grants = try block(s)
        #expect(grants.contains("GRANT WRITE TO \"_world\""), "\(grants)")
    }

    @Test func withoutReplaceOtherUsersPublicRecordsDoNotCount() throws {
        let s = try seeded()
        // alice's post is not bob's to replace, so it does not make the environment "already have records" for him.
        try s.write(try document(s, records: [post("b1")], edit: { _ in }), to: "doc.json")
        let r = try s.run(["--as", "bob", "import", "doc.json", "-o", "table"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "Imported 1 record, 0 zones and 0 assets into iCloud.ck.default (development); kept 1 public record that the acting user may not delete (its roles lack the type's WRITE grant)\n")
        #expect(try s.run(["--as", "alice", "--db", "public", "record", "fetch", "a1"]).status == 0)
        // bob's own post is his to replace: now only --replace does.
        try s.write(try document(s, records: [post("b2")], edit: { _ in }), to: "more.json")
        let again = try s.run(["--as", "bob", "import", "more.json"])
        #expect(again.status != 0)
        #expect(again.stderr.contains("already has records or zones"), "\(again.stderr)")
        #expect(try s.run(["--as", "bob", "--db", "public", "record", "fetch", "b1"]).status == 0)
    }
}
