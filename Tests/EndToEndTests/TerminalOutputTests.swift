import Foundation
import Testing

/// What people see on a terminal (tables, empty lists, a batch's page) and what scripts get instead
/// (every row when piped or with -o; names for xargs). A real terminal comes from script(1), which gives ck a pty.
@Suite struct TerminalOutputTests {
    /// A store with `count` notes n1… in the default zone, queryable without filters.
    func notes(_ count: Int) throws -> Sandbox {
        let s = try Sandbox()
        let lines = (1...count).map { #"{"recordName":"n\#($0)","recordType":"Note","fields":{"title":{"value":"note number \#($0) with a title long enough to be cut"},"n":{"value":\#($0)}}}"# }
        try s.write(lines.joined(separator: "\n") + "\n", to: "notes.jsonl")
        #expect(try s.ck("record", "save", "--batch", "notes.jsonl").status == 0)
        #expect(try s.ck("schema", "index", "Note", "___recordID", "--queryable").status == 0)
        return s
    }

    /// Runs ck on a terminal of `rows` × `columns` and returns what the terminal showed, without carriage returns.
    func onTerminal(_ s: Sandbox, _ args: String, rows: Int = 24, columns: Int = 200) throws -> String {
        let script = "/usr/bin/script"
        try #require(FileManager.default.isExecutableFile(atPath: script), "this test needs script(1) (util-linux) to give ck a terminal")
        let r = try s.run(["-qec", "LINES=\(rows) COLUMNS=\(columns) '\(Sandbox.binary)' \(args)", "/dev/null"], program: script)
        #expect(r.status == 0, "\(r.stdout) \(r.stderr)")
        return r.stdout.replacingOccurrences(of: "\r", with: "")
    }

    @Test func aListIsATableOfOneRowPerRecordCutToTheWidth() throws {
        let s = try notes(3)
        let wide = try s.ck("query", "Note", "--sort", "n", "-o", "table")
        #expect(wide.status == 0)
        #expect(wide.stdout == """
            NAME  TYPE  TAG  FIELDS
            n1    Note  1    n=1, title=note number 1 with a title long enough to be cut
            n2    Note  2    n=2, title=note number 2 with a title long enough to be cut
            n3    Note  3    n=3, title=note number 3 with a title long enough to be cut

            """)
        let narrow = try s.run(["query", "Note", "--sort", "n", "-o", "table"], env: ["COLUMNS": "40"])
        let lines = narrow.stdout.split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines.allSatisfy { $0.count <= 40 }, "\(narrow.stdout)")
        #expect(lines[1] == "n1    Note  1    n=1, title=note number…")
        // One record fetched stays a block.
        let one = try s.ck("record", "fetch", "n2", "-o", "table")
        #expect(one.stdout.hasPrefix("recordName  n2\nrecordType  Note\n"))
    }

    @Test func anEmptyListSaysSoOnStderrOnly() throws {
        let s = try notes(1)
        let table = try s.ck("query", "Note", "n > 5", "-o", "table")
        #expect(table.status == 0 && table.stdout.isEmpty && table.stderr == "ck: no records\n")
        let quiet = try s.ck("query", "Note", "n > 5", "-o", "table", "-q")
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty)
        let piped = try s.ck("query", "Note", "n > 5")
        #expect(piped.status == 0 && piped.stdout.isEmpty && piped.stderr.isEmpty)
        let subs = try s.ck("subscription", "list", "-o", "table")
        #expect(subs.stdout.isEmpty && subs.stderr == "ck: no subscriptions in the private database\n")
        #expect(try s.ck("subscription", "list").stderr.isEmpty)
    }

    @Test func aBatchOnATerminalPrintsAPageAndASummary() throws {
        let s = try notes(1)
        let lines = (1...40).map { #"{"recordName":"b\#($0)","recordType":"Note","fields":{"n":{"value":\#($0)}}}"# }
        try s.write(lines.joined(separator: "\n") + "\n", to: "batch.jsonl")
        let shown = try onTerminal(s, "record save --batch batch.jsonl", rows: 12)
        let out = shown.split(separator: "\n").map(String.init)
        #expect(out.first == "NAME  TYPE  TAG  FIELDS")
        #expect(out.count == 10, "a header, 8 rows and the summary: \(shown)")
        #expect(out.last == "Batch of 40 operations: 40 saved (showing the first 8; all of them with -o plain or -o json)")
        // Piped: every record, one line each; with -o table: every row and the summary.
        let piped = try s.ck("record", "save", "--batch", "batch.jsonl", "--policy", "changed-keys")
        #expect(piped.stdout.split(separator: "\n").count == 40)
        let table = try s.ck("record", "save", "--batch", "batch.jsonl", "--policy", "changed-keys", "-o", "table")
        let rows = table.stdout.split(separator: "\n")
        #expect(rows.count == 42 && rows.last == "Batch of 40 operations: 40 saved")
    }

    @Test func aQueryOnATerminalIsATable() throws {
        let s = try notes(2)
        let shown = try onTerminal(s, "query Note --sort n", columns: 30)
        #expect(shown == """
            NAME  TYPE  TAG  FIELDS
            n1    Note  1    n=1, title=n…
            n2    Note  2    n=2, title=n…

            """)
    }

    @Test func namesFeedXargs() throws {
        let s = try notes(3)
        let names = try s.ck("query", "Note", "n >= 2", "-o", "name")
        #expect(names.stdout == "n2\nn3\n")
        let bin = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let r = try s.run(["-c", "ck query Note 'n >= 2' -o name | xargs ck record delete -y -o name"], program: "/bin/bash",
                          env: ["PATH": bin + ":/usr/bin:/bin"])
        #expect(r.status == 0 && r.stdout == "n2\nn3\n", "\(r.stderr)")
        #expect(try s.ck("query", "Note", "-o", "name").stdout == "n1\n")
        #expect(try s.ck("zone", "list", "-o", "name").stdout == "_defaultZone\n")
        // A command without names refuses -o name before doing anything, and takes CK_OUTPUT=name as plain.
        let created = try s.ck("zone", "create", "Z", "-o", "name")
        #expect(created.status == 0 && created.stdout == "Z\n")
        let doctor = try s.ck("doctor", "-o", "name")
        #expect(doctor.status == 64 && doctor.stderr.hasPrefix("ck: usage: -o name: 'ck doctor' prints no names"))
        let viaEnv = try s.run(["user", "list"], env: ["CK_OUTPUT": "name"])
        let plain = try s.ck("user", "list", "-o", "plain")
        #expect(viaEnv.status == plain.status && viaEnv.stdout == plain.stdout && !plain.stdout.isEmpty)
    }

    @Test func failedItemsStayOutOfRecords() throws {
        let s = try notes(2)
        let r = try s.ck("record", "fetch", "n1", "nope", "n2", "-o", "json")
        #expect(r.status == 10)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let records = try #require(doc["records"] as? [[String: Any]])
        #expect(records.map { $0["recordName"] as? String } == ["n1", "n2"])
        let errors = try #require(doc["errors"] as? [[String: Any]])
        #expect(errors.count == 1 && errors.first?["recordName"] as? String == "nope" && errors.first?["serverErrorCode"] as? String == "NOT_FOUND")
        let ok = try s.ck("record", "fetch", "n1", "-o", "json")
        let okDoc = try #require(try JSONSerialization.jsonObject(with: Data(ok.stdout.utf8)) as? [String: Any])
        #expect(okDoc["errors"] == nil, "a complete answer has exactly the Web Services shape")
    }
}
