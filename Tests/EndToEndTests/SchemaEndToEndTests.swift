import Foundation
import Testing

@Suite struct SchemaEndToEndTests {
    static let usersBlock = """
        RECORD TYPE Users (
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE,
            roles           LIST<INT64>,
            GRANT WRITE TO "_creator",
            GRANT READ TO "_world"
        );

    """

    @Test func freshStoreExportsTheEmptySchema() throws {
        let s = try Sandbox()
        try s.ck("init")
        let r = try s.ck("schema", "export")
        #expect(r.status == 0)
        #expect(r.stdout == "DEFINE SCHEMA\n\n" + Self.usersBlock)
    }

    @Test func justInTimeTypesExportWithTheirIndexes() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "title=Hi", "count=2", "tags:string[]=a", "photo:asset=@/dev/null")
        let r = try s.ck("schema", "export")
        #expect(r.stdout.contains("""
                RECORD TYPE Note (
                    "___createTime" TIMESTAMP,
                    "___createdBy"  REFERENCE,
                    "___etag"       STRING,
                    "___modTime"    TIMESTAMP,
                    "___modifiedBy" REFERENCE,
                    "___recordID"   REFERENCE,
                    count           INT64 QUERYABLE SORTABLE,
                    photo           ASSET,
                    tags            LIST<STRING> QUERYABLE,
                    title           STRING QUERYABLE SEARCHABLE SORTABLE,
                    GRANT WRITE TO "_creator",
                    GRANT CREATE TO "_icloud",
                    GRANT READ TO "_world"
                );
            """))
    }

    @Test func developmentToProductionFlow() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=Hi").status == 0)
        // Production has no schema yet: a save is refused and nothing is created there.
        let refused = try s.ck("-e", "production", "record", "save", "Note", "title=Hi")
        #expect(refused.status == 8)
        #expect(refused.stderr.contains("Cannot create new type Note in production schema"))
        let diff = try s.ck("schema", "diff")
        #expect(diff.stdout.contains("+ record type Note\n"))
        #expect(diff.stdout.contains("+ field Note.title STRING QUERYABLE SEARCHABLE SORTABLE\n"))
        #expect(try s.ck("schema", "deploy", "--dry-run").stdout.contains("+ record type Note"))
        #expect(try s.ck("-e", "production", "schema", "show").stdout.isEmpty, "dry run changes nothing")
        let deploy = try s.ck("schema", "deploy", "-y")
        #expect(deploy.status == 0, "\(deploy.stderr)")
        #expect(deploy.stdout.contains("+ field Note.title"))
        #expect(try s.ck("schema", "diff").stdout.isEmpty)
        #expect(try s.ck("schema", "deploy", "-y", "-o", "table").stdout == "Nothing to deploy: production matches development.\n")
        // Records are never copied.
        #expect(try s.ck("-e", "production", "record", "fetch", "n1").status == 3)
        #expect(try s.ck("-e", "production", "record", "save", "Note", "--name", "p1", "title=Prod").status == 0)
        // A field production never got is refused there, and production's schema stays as deployed.
        try s.ck("record", "save", "Note", "--name", "n2", "body=dev only")
        let never = try s.ck("-e", "production", "record", "save", "Note", "--name", "p2", "body=x")
        #expect(never.status == 8)
        #expect(never.stderr.contains("Cannot create new field 'body' in type Note in production schema"))
        #expect(try s.ck("-e", "production", "schema", "export").stdout
                == s.ck("schema", "export").stdout.replacingOccurrences(of: "        body            STRING QUERYABLE SEARCHABLE SORTABLE,\n", with: ""))
        // Import may not drop what production has.
        try s.write("DEFINE SCHEMA\n    RECORD TYPE Note ( body STRING );\n", to: "drop.ckdb")
        let dropped = try s.ck("schema", "import", "drop.ckdb")
        #expect(dropped.status == 8)
        #expect(dropped.stderr.contains("  Note.title: invalidArguments (12): field 'title' (STRING) exists in production and can't be removed"))
        #expect(try s.ck("schema", "show", "Note").stdout.contains("title"))
        // Production import answers as cktool does.
        let prodImport = try s.ck("-e", "production", "schema", "import", "drop.ckdb")
        #expect(prodImport.status == 7)
        #expect(prodImport.stderr.contains("endpoint not applicable in the environment 'production'"))
    }

    @Test func refusedDeployListsEveryConflict() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "title=Hi", "count=1")
        try s.ck("schema", "deploy", "-y")
        // Development drifts by hand: a field removed, another retyped.
        let path = s.dir + "/store/containers/iCloud.ck.default/development/schema.json"
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"type\": \"INT64\"", with: "\"type\": \"STRING\"")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let r = try s.ck("schema", "deploy", "-y")
        #expect(r.status == 8)
        #expect(r.stderr.hasPrefix("ck: invalidArguments (12): deploy refused: development would remove or retype 1 thing production has"))
        #expect(r.stderr.contains("  Note.count: invalidArguments (12): field 'count' is INT64 in production and can't become STRING"))
        #expect(try s.ck("-e", "production", "schema", "show", "Note").stdout.contains("count\tINT64"))
        let diff = try s.ck("schema", "diff", "-o", "json")
        #expect(diff.stdout.contains(#""kind": "retypeField""#))
    }

    @Test func resetMakesDevelopmentACopyOfProduction() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "title=Hi")
        try s.ck("schema", "deploy", "-y")
        try s.ck("zone", "create", "Z")
        try s.ck("-z", "Z", "record", "save", "Draft", "--name", "d", "body=x")
        try s.ck("record", "save", "Note", "--name", "n", "extra=1")
        let r = try s.ck("schema", "reset", "-y")
        #expect(r.status == 0 && r.stdout == "3\n")
        #expect(try s.ck("schema", "export").stdout == s.ck("-e", "production", "schema", "export").stdout)
        #expect(try s.ck("zone", "list").stdout.split(separator: "\n").count == 1)
        #expect(try s.ck("record", "fetch", "n").status == 3)
        // No production schema at all: reset removes every type.
        let fresh = try Sandbox()
        try fresh.ck("record", "save", "Note", "title=Hi")
        try fresh.ck("schema", "reset", "-y")
        #expect(try fresh.ck("schema", "show").stdout.isEmpty)
    }

    @Test func indexesOnSystemFields() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "title=Hi")
        #expect(try s.ck("schema", "index", "Note", "___recordID", "--queryable").stdout == "~ indexes Note.___recordID: (none) -> QUERYABLE\n")
        #expect(try s.ck("schema", "index", "Note", "___createTime", "--sortable").status == 0)
        let export = try s.ck("schema", "export").stdout
        #expect(export.contains("        \"___createTime\" TIMESTAMP SORTABLE,\n"))
        #expect(export.contains("        \"___recordID\"   REFERENCE QUERYABLE,\n"))
        #expect(try s.ck("schema", "index", "Note", "title", "--remove").status == 0)
        #expect(try s.ck("schema", "export").stdout.contains("        title           STRING,\n"))
        #expect(try s.ck("schema", "index", "Note", "nope", "--queryable").status == 3)
        #expect(try s.ck("schema", "index", "Nope", "title", "--queryable").status == 3)
        #expect(try s.ck("schema", "index", "Note", "___createTime", "--searchable").status == 8)
        #expect(try s.ck("-e", "production", "schema", "index", "Note", "title", "--queryable").status == 7)
    }

    @Test func exportImportExportIsByteIdentical() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "title=Hi", "count=2", "at=2026-01-01", "owner:reference=x", "where:location=1,2")
        try s.ck("schema", "index", "Note", "___recordID", "--queryable")
        let first = try s.ck("schema", "export", "--file", "a.ckdb")
        #expect(first.status == 0)
        let other = try Sandbox()
        #expect(try other.run(["schema", "import", s.dir + "/a.ckdb"]).status == 0)
        #expect(try other.ck("schema", "export").stdout == String(contentsOfFile: s.dir + "/a.ckdb", encoding: .utf8))
        #expect(try other.run(["schema", "import", s.dir + "/a.ckdb", "-o", "table"]).stdout == "Schema unchanged.\n")
    }

    @Test func validateAndFmt() throws {
        let s = try Sandbox()
        try s.ck("init")
        try s.write("DEFINE SCHEMA\n\n  RECORD TYPE Note (\n    title STRING QUERYABLE,\n    body BADTYPE\n  );\n", to: "bad.ckdb")
        let bad = try s.ck("schema", "validate", "bad.ckdb")
        #expect(bad.status == 8)
        #expect(bad.stderr.contains("bad.ckdb:5:10:"))
        #expect(bad.stderr.contains("BADTYPE"))
        try s.write("DEFINE SCHEMA\n// notes\nRECORD TYPE Note (\n  \"title\" STRING SORTABLE QUERYABLE, -- the title\n  \"___recordID\" REFERENCE QUERYABLE\n);\n", to: "hand.ckdb")
        #expect(try s.ck("schema", "validate", "hand.ckdb").stdout == "✅ Schema is valid.\n")
        #expect(try s.ck("schema", "fmt", "--check", "hand.ckdb").status == 1)
        #expect(try s.ck("schema", "fmt", "hand.ckdb").status == 0)
        let formatted = try String(contentsOfFile: s.dir + "/hand.ckdb", encoding: .utf8)
        #expect(formatted.hasPrefix("DEFINE SCHEMA\n\n    RECORD TYPE Note (\n        \"___createTime\" TIMESTAMP,\n"))
        #expect(formatted.contains("        \"___recordID\"   REFERENCE QUERYABLE,\n        title           STRING QUERYABLE SORTABLE\n    );\n"))
        #expect(try s.ck("schema", "fmt", "--check", "hand.ckdb").status == 0)
        // Indexes a type can't carry are refused with the field named.
        try s.write("DEFINE SCHEMA\nRECORD TYPE Note ( n INT64 SEARCHABLE );\n", to: "idx.ckdb")
        let idx = try s.ck("schema", "validate", "idx.ckdb")
        #expect(idx.status == 8 && idx.stderr.contains("Note.n: invalidArguments (12): only STRING fields can be SEARCHABLE"))
    }
}
