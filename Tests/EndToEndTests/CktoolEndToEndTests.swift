import Foundation
import Testing

/// cktool mode met as a team's CI meets it: a bash script written for `xcrun cktool`, run with ck linked as `cktool`
/// on PATH and a one-line `xcrun` wrapper, checked against cktool's documented output and exit codes.
@Suite struct CktoolEndToEndTests {
    static let schema = """
        DEFINE SCHEMA

            RECORD TYPE Book (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                pageCount       INT64 QUERYABLE SORTABLE,
                title           STRING QUERYABLE SEARCHABLE SORTABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

        """

    /// The script: schema import, records created with --fields-json, a filtered and sorted query,
    /// delete-records as a dry run (cktool's default, even with -y), then for real, and a delete-record of a
    /// record that is gone.
    static let script = #"""
        #!/bin/bash
        set -euo pipefail
        T="--team-id XYZ1234567 --container-id iCloud.com.example.Books"
        DB="--environment development --database-type public"
        xcrun cktool import-schema $T --environment development --file schema.ckdb
        created=$(xcrun cktool create-record $T $DB --record-type Book \
            --fields-json '{"title": {"type": "stringType", "value": "Great Expectations"}, "pageCount": {"type": "int64Type", "value": 544}}')
        name=$(printf '%s\n' "$created" | sed -n 's/^  "recordName": "\(.*\)",$/\1/p')
        echo "created $name"
        printf '{"title": {"type": "stringType", "value": "Bleak House"}, "pageCount": {"type": "int64Type", "value": 1017}}' > bleak.json
        cktool create-record $T $DB --record-type Book --fields-file bleak.json > /dev/null
        echo '{"title": {"type": "stringType", "value": "Hard Times"}, "pageCount": {"type": "int64Type", "value": 352}}' \
            | cktool create-record $T $DB --record-type Book --fields-stdin > /dev/null
        cktool query-records $T $DB --record-type Book --filters "pageCount > 500" --sort-by "pageCount DESC" --requested-fields title > long.json
        cktool delete-records $T $DB --record-type Book --filters "pageCount > 500" --dry-run true
        cktool delete-records $T $DB --record-type Book --filters "pageCount > 500" -y
        cktool delete-records $T $DB --record-type Book --filters "pageCount > 500" --dry-run false -y
        cktool query-records $T $DB --record-type Book > left.json
        status=0
        cktool delete-record --container-id iCloud.com.example.Books $DB --record-name "$name" -y || status=$?
        echo "delete-record of a deleted record: exit $status"
        """#

    /// A sandbox whose PATH has `cktool` (a link to the built binary) and an `xcrun` that runs its arguments.
    static func sandbox() throws -> Sandbox {
        let s = try Sandbox()
        let bin = s.dir + "/bin"
        try FileManager.default.createDirectory(atPath: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin + "/cktool", withDestinationPath: Sandbox.binary)
        try s.write("#!/bin/sh\nexec \"$@\"\n", to: "bin/xcrun")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: bin + "/xcrun")
        s.environment["PATH"] = bin + ":/usr/bin:/bin"
        return s
    }

    func cktool(_ s: Sandbox, _ args: [String], stdin: String? = nil) throws -> Sandbox.Result {
        try s.run(args, stdin: stdin, program: s.dir + "/bin/cktool")
    }

    func json(_ s: Sandbox, _ file: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: s.dir + "/" + file))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func titles(_ doc: [String: Any]) -> [String] {
        ((doc["records"] as? [[String: Any]]) ?? []).compactMap { r in
            ((r["fields"] as? [String: Any])?["title"] as? [String: Any])?["value"] as? String
        }
    }

    @Test func aCktoolScriptRunsUnchangedWithCktoolOnPath() throws {
        let s = try Self.sandbox()
        try s.write(Self.schema, to: "schema.ckdb")
        try s.write(Self.script, to: "ci.sh")
        let r = try s.run([s.dir + "/ci.sh"], stdin: "", program: "/bin/bash")
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let name = try #require(lines.first?.dropFirst("created ".count)).description
        #expect(UUID(uuidString: name) != nil, "create-record printed no recordName: \(r.stdout)")
        #expect(Array(lines.dropFirst()) == [
            "Dry run. Found 2 matching records to delete.",
            "Dry run. Found 2 matching records to delete.",
            "Deleted 2 records.",
            "delete-record of a deleted record: exit 1",
        ])
        // The query: sorted by pageCount descending, only the requested field, no continuationToken for one page.
        let long = try json(s, "long.json")
        #expect(titles(long) == ["Bleak House", "Great Expectations"])
        let first = try #require((long["records"] as? [[String: Any]])?.first)
        #expect((first["fields"] as? [String: Any])?.keys.sorted() == ["title"])
        #expect(((first["fields"] as? [String: Any])?["title"] as? [String: Any])?["type"] as? String == "stringType")
        #expect(long["continuationToken"] == nil)
        #expect(titles(try json(s, "left.json")) == ["Hard Times"])
        // Stderr: the container made on first use, ignored team IDs, the unknown record.
        #expect(r.stderr.contains("ck: created container iCloud.com.example.Books"))
        #expect(r.stderr.contains("ck: cktool mode: --team-id accepted and ignored (no account exists offline)\n"))
        #expect(r.stderr.contains("ck: unknownItem (11): Record not found: '\(name)'\n"))
        #expect(FileManager.default.fileExists(atPath: s.dir + "/store/containers/iCloud.com.example.Books/container.json"))
    }

    static let target = ["--team-id", "XYZ1234567", "--container-id", "iCloud.com.example.Books", "--environment", "development"]

    @Test func incorrectInvocationsExit64AndOtherFailuresExit1() throws {
        let s = try Self.sandbox()
        let usage: [[String]] = [
            ["frob"],
            ["query-records", "--container-id", "iCloud.com.example.Books", "--environment", "development", "--database-type", "public", "--record-type", "Book"],
            ["export-schema", "--team-id", "XYZ1234567", "--container-id", "iCloud.com.example.Books", "--environment", "staging"],
            ["query-records"] + Self.target + ["--database-type", "public"],
            ["query-records"] + Self.target + ["--database-type", "public", "--record-type", "Book", "--sort-by", "title UP"],
            ["delete-records"] + Self.target + ["--database-type", "public", "--record-type", "Book", "--dry-run"],
            ["create-record"] + Self.target + ["--database-type", "public", "--record-type", "Book", "--record-name", "b1"],
        ]
        for args in usage {
            let r = try cktool(s, args)
            #expect(r.status == 64, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("ck: usage: "), "\(args): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        let missing = try cktool(s, usage[1])
        #expect(missing.stderr == "ck: usage: missing expected argument '--team-id <team-id>'\nhint: see 'ck cktool query-records --help'\n")
        // Failures of the operation itself are cktool's exit 1, whatever ck's own code would be.
        let failures: [(args: [String], message: String)] = [
            (["query-records"] + Self.target + ["--database-type", "private", "--zone-name", "Nope", "--record-type", "Book"], "zoneNotFound"),
            (["import-schema"] + Self.target.dropLast() + ["production", "--file", "schema.ckdb"], "endpoint not applicable"),
            (["create-record"] + Self.target + ["--database-type", "private", "--record-type", "Book", "--fields-json", #"{"title": 5}"#],
             "field 'title': expected"),
        ]
        try s.write(Self.schema, to: "schema.ckdb")
        for f in failures {
            let r = try cktool(s, f.args)
            #expect(r.status == 1, "\(f.args): \(r.stderr)")
            #expect(r.stderr.contains(f.message), "\(f.args): \(r.stderr)")
        }
        // --help is not an error, for cktool and for a verb.
        let help = try cktool(s, ["--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("query-records"))
        #expect(try cktool(s, ["create-record", "--help"]).status == 0)
    }

    @Test func schemaVerbsRoundTripAndValidate() throws {
        let s = try Self.sandbox()
        try s.write(Self.schema, to: "schema.ckdb")
        try s.write("DEFINE SCHEMA\n    RECORD TYPE Book (title BADTYPE);\n", to: "bad.ckdb")
        #expect(try cktool(s, ["import-schema"] + Self.target + ["--file", "schema.ckdb", "--validate", "-q"]).stdout.isEmpty)
        let exported = try cktool(s, ["export-schema"] + Self.target)
        #expect(exported.status == 0)
        #expect(exported.stdout.contains("    RECORD TYPE Book (\n"))
        #expect(exported.stdout.contains("        pageCount       INT64 QUERYABLE SORTABLE,\n"))
        #expect(try cktool(s, ["export-schema"] + Self.target + ["--output-file", "out.ckdb", "-q"]).status == 0)
        #expect(try String(contentsOfFile: s.dir + "/out.ckdb", encoding: .utf8) == exported.stdout)
        let valid = try cktool(s, ["validate-schema"] + Self.target + ["--file", "schema.ckdb"])
        #expect(valid.status == 0)
        #expect(valid.stdout == "✅ Schema is valid.\n")
        let invalid = try cktool(s, ["validate-schema"] + Self.target + ["--file", "bad.ckdb", "-q"])
        #expect(invalid.status == 1)
        #expect(invalid.stdout.isEmpty)
        #expect(invalid.stderr.hasPrefix("❌ Schema validation failed: bad.ckdb:2:"), "\(invalid.stderr)")
        // reset-schema asks nothing and empties development (no production schema: all types go).
        #expect(try cktool(s, ["reset-schema", "--team-id", "T", "--container-id", "iCloud.com.example.Books", "-q"]).status == 0)
        #expect(!(try cktool(s, ["export-schema"] + Self.target).stdout.contains("RECORD TYPE Book")))
    }

    @Test func tokensAndTeamsNeedNoAccount() throws {
        let s = try Self.sandbox()
        let teams = try cktool(s, ["get-teams", "-t", "secret"])
        #expect(teams.status == 0)
        #expect(teams.stdout == "OFFLINE000: ck offline emulator (any --team-id is accepted)\n")
        #expect(teams.stderr == "ck: cktool mode: --token accepted and ignored (no account exists offline)\n")
        let save = try cktool(s, ["save-token", "abc", "--type", "management", "--method", "file"])
        #expect(save.status == 0)
        #expect(save.stderr.contains("ignored"))
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/home/.config/cktool"))
        #expect(try cktool(s, ["remove-token"]).status == 64)
        #expect(try cktool(s, ["remove-token", "--type", "user", "--force"]).status == 0)
        // `ck cktool` is the same command as a link named cktool.
        let noun = try s.ck("cktool", "get-teams")
        #expect(noun.stdout == teams.stdout)
    }

    @Test func createRecordTakesAssetFilesByKey() throws {
        let s = try Self.sandbox()
        try s.write("cover bytes", to: "cover.jpg")
        let fields = #"{"title": {"type": "stringType", "value": "Hard Times"}, "cover": {"type": "assetType", "value": "c"}}"#
        let args = ["create-record"] + Self.target + ["--database-type", "private", "--record-type", "Book", "--fields-json", fields, "-q"]
        let r = try cktool(s, args + ["--asset-files", "c=cover.jpg"])
        #expect(r.status == 0, "\(r.stderr)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let cover = try #require((record["fields"] as? [String: Any])?["cover"] as? [String: Any])
        #expect(cover["type"] as? String == "assetType")
        let url = try #require((cover["value"] as? [String: Any])?["downloadURL"] as? String)
        #expect(try String(contentsOf: try #require(URL(string: url)), encoding: .utf8) == "cover bytes")
        // A key with no file is refused (exit 1), naming cktool's option.
        let missing = try cktool(s, args)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no --asset-files given for key 'c'"), "\(missing.stderr)")
    }

    @Test func queryRecordsPagesWithATopLevelContinuationToken() throws {
        let s = try Self.sandbox()
        try s.write(Self.schema, to: "schema.ckdb")
        #expect(try cktool(s, ["import-schema"] + Self.target + ["--file", "schema.ckdb", "-q"]).status == 0)
        for (title, pages) in [("A", 1), ("B", 2), ("C", 3)] {
            let fields = #"{"title": {"type": "stringType", "value": "\#(title)"}, "pageCount": {"type": "int64Type", "value": \#(pages)}}"#
            #expect(try cktool(s, ["create-record"] + Self.target + ["--database-type", "public", "--record-type", "Book", "--fields-json", fields, "-q"]).status == 0)
        }
        let query = ["query-records"] + Self.target + ["--database-type", "public", "--record-type", "Book", "--sort-by", "pageCount", "--limit", "2", "-q"]
        let first = try cktool(s, query)
        #expect(first.status == 0)
        let page1 = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect(titles(page1) == ["A", "B"])
        let token = try #require(page1["continuationToken"] as? String)
        let second = try cktool(s, query + ["--continuation-token", token])
        let page2 = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        #expect(titles(page2) == ["C"])
        #expect(page2["continuationToken"] == nil)
    }

    /// cktool's words on ck's own commands point at `ck cktool` or at ck's word for the same thing (exit 64, as every
    /// usage error), not at the whole command list or a near spelling.
    @Test func cktoolWordsOnCksCommandsGetCksWord() throws {
        let s = try Sandbox()
        func usage(_ args: String...) throws -> String {
            let r = try s.run(args)
            #expect(r.status == 64, "ck \(args.joined(separator: " ")): \(r.stderr)")
            return r.stderr.split(separator: "\n").first.map(String.init) ?? ""
        }
        for verb in ["query-records", "save-token", "get-teams"] {
            #expect(try usage(verb) == "ck: usage: unknown command '\(verb)'; did you mean 'ck cktool \(verb)'? ('\(verb)' is cktool's)")
        }
        #expect(try usage("query-recrds") == "ck: usage: unknown command 'query-recrds'; did you mean 'ck cktool query-records'? ('query-records' is cktool's)")
        #expect(try usage("query", "Book", "--record-type", "Book")
            == "ck: usage: unknown option '--record-type'; 'ck query' takes it as its argument <record-type> ('--record-type' is cktool's; 'ck cktool query-records' takes it)")
        #expect(try usage("query", "Book", "--sort-by", "title ASC")
            == "ck: usage: unknown option '--sort-by'; did you mean '--sort'? ('--sort-by' is cktool's; 'ck cktool query-records' takes it)")
        #expect(try usage("query", "Book", "--zone-name", "Work")
            == "ck: usage: unknown option '--zone-name'; did you mean '-z/--zone'? ('--zone-name' is cktool's; 'ck cktool query-records' takes it)")
        #expect(try usage("record", "fetch", "b1", "--environment", "production")
            == "ck: usage: unknown option '--environment'; did you mean '-e/--env'? ('--environment' is cktool's)")
        #expect(try usage("export", "--output-file", "x.json")
            == "ck: usage: unknown option '--output-file'; did you mean '--file'? ('--output-file' is cktool's)")
        #expect(try usage("query", "Book", "--output-file", "x.json")
            == "ck: usage: unknown option '--output-file'; 'ck query' prints on stdout: redirect it ('> <file>') ('--output-file' is cktool's)")
        // Under 'ck cktool' the words are cktool's own, and a plain typo still gets the near spelling.
        #expect(try usage("query", "Book", "--zone-wid") == "ck: usage: unknown option '--zone-wid'; did you mean '--zone-wide'?")
        #expect(try s.ck("cktool", "query-records", "--team-id", "T", "--container-id", "iCloud.a", "--environment", "development",
                         "--database-type", "public", "--record-type", "Book", "--zone-name", "_defaultZone").stderr.contains("--zone-name") == false)
    }
}
