import Foundation
import Testing

/// `record save --batch` checks the whole file — syntax, shape, field types against the schema — before it writes
/// anything, and names every problem by file:line:column and JSON path (docs/cli.md §9).
@Suite struct BatchCheckTests {
    func note(_ name: String, _ fields: String) -> String {
        #"{"recordName":"\#(name)","recordType":"Note","fields":{\#(fields)}}"#
    }

    /// Saves `file` as a batch and expects it refused (exit 8) with `summary` after the file's name and each of
    /// `problems` on stderr.
    @discardableResult
    func refused(_ s: Sandbox, _ file: String, _ summary: String, _ problems: [String]) throws -> Sandbox.Result {
        let r = try s.ck("record", "save", "--batch", file)
        #expect(r.status == 8)
        #expect(r.stderr.contains("\(file): \(summary)"), "\(r.stderr)")
        for expected in problems {
            #expect(r.stderr.contains(expected), "missing \(expected) in\n\(r.stderr)")
        }
        return r
    }

    @Test func aBadLineNearTheEndOfALargeFileWritesNothing() throws {
        let s = try Sandbox()
        var lines = (1...10_000).map { note("r\($0)", #""n":{"value":\#($0)}"#) }
        lines[8_999] = note("r9000", #""n":{"value":"nine thousand","type":"INT64"}"#)
        try s.write(lines.joined(separator: "\n") + "\n", to: "notes.jsonl")
        let r = try s.ck("record", "save", "--batch", "notes.jsonl", "-q")
        #expect(r.status == 8, "\(r.stderr)")
        // Column 66 is where the value of `n` starts.
        #expect(r.stderr.contains("notes.jsonl:9000:66: $.fields.n.value: "), "\(r.stderr)")
        #expect(r.stderr.contains("nothing was saved"), "\(r.stderr)")
        #expect(try s.ck("record", "fetch", "r1").status == 3)
        #expect(try s.ck("record", "fetch", "r8999").status == 3)
    }

    @Test func shapeErrorsAreNamedWithLineColumnAndPath() throws {
        let s = try Sandbox()
        let lines = [
            note("ok", #""t":{"value":"fine"}"#),
            "[1, 2]",
            #"{"recordName":5,"recordType":"Note"}"#,
            #"{"operationType":"upsert","record":{"recordName":"u","recordType":"Note"}}"#,
            #"{"recordName":"x","fields":{}}"#,
            #"{"recordName":"y","recordType":"Note","colour":"red"}"#,
            #"{"recordName":"z","recordType":"Note","fields":{"t":"bare"}}"#,
        ]
        try s.write(lines.joined(separator: "\n"), to: "shapes.jsonl")
        try refused(s, "shapes.jsonl", "6 lines are invalid; nothing was saved (6 problems below)", [
            "  shapes.jsonl:2:1: invalidArguments (12): $: expected a JSON object",
            "  shapes.jsonl:3:15: invalidArguments (12): $.recordName: expected a string",
            "  shapes.jsonl:4:18: invalidArguments (12): $.operationType: expected one of create, update",
            "  shapes.jsonl:5:1: invalidArguments (12): $.recordType: missing: a new record needs its recordType",
            "  shapes.jsonl:6:48: invalidArguments (12): $.colour: unknown key 'colour' in a record",
            "  shapes.jsonl:7:53: invalidArguments (12): $.fields.t: expected a field dictionary",
        ])
        #expect(try s.ck("record", "fetch", "ok").status == 3, "the good line was not saved either")
    }

    @Test func typeErrorsAgainstTheValueTheSchemaAndEarlierLines() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "first", "n=1")
        let lines = [
            note("a", #""n":{"value":"abc"}"#),
            note("b", #""n":{"value":"x","type":"STRING"}"#),
            note("c", #""d":{"value":"soon","type":"TIMESTAMP"}"#),
            note("d", #""k":{"value":"text"}"#),
            note("e", #""k":{"value":7}"#),
            #"{"operationType":"forceUpdate","record":{"recordName":"first","recordType":"Note","fields":{"n":{"value":[1]}}}}"#,
        ]
        try s.write(lines.joined(separator: "\n"), to: "types.jsonl")
        let r = try s.ck("record", "save", "--batch", "types.jsonl", "-o", "json")
        #expect(r.status == 8)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(r.stderr.utf8)) as? [String: Any])
        let items = try #require(error["errors"] as? [[String: Any]])
        let places = items.compactMap { $0["id"] as? String }
        #expect(places == ["types.jsonl:1:62", "types.jsonl:2:62", "types.jsonl:3:62", "types.jsonl:5:62", "types.jsonl:6:106"], "\(r.stderr)")
        let reasons = items.compactMap { $0["reason"] as? String }
        #expect(reasons.count == 5, "\(r.stderr)")
        #expect(reasons.allSatisfy { $0.hasPrefix("$.") }, "\(reasons)")
        #expect(reasons.dropFirst().first?.contains("invalid attempt to set value type STRING for field 'n' for type 'Note', defined to be: INT64") == true, "\(reasons)")
        #expect(try s.ck("record", "fetch", "d").status == 3, "line 4 was valid, but nothing is saved")
    }

    @Test func manyProblemsListTheFirstTwentyAndCountAll() throws {
        let s = try Sandbox()
        let lines = (1...30).map { note("r\($0)", #""n":{"value":"x","type":"INT64"}"#) }
        try s.write(lines.joined(separator: "\n"), to: "many.jsonl")
        let r = try s.ck("record", "save", "--batch", "many.jsonl")
        #expect(r.status == 8)
        #expect(r.stderr.contains("many.jsonl: 30 lines are invalid; nothing was saved (the first 20 of 30 problems below)"), "\(r.stderr)")
        #expect(r.stderr.contains("  many.jsonl:20:64: "), "\(r.stderr)")
        #expect(!r.stderr.contains("  many.jsonl:21:"), "\(r.stderr)")
    }

    /// Lines after the first, whose fields the schema then declares, are still checked one by one when a value
    /// differs from the declaration: a checked key's other type, an encrypted value, a list for a scalar, a
    /// reference into another zone. An empty list of a declared list field, and values of the declared types, pass.
    @Test func laterLinesOfDeclaredFieldsAreStillChecked() throws {
        let s = try Sandbox()
        let lines = [
            note("a", #""n":{"value":5,"type":"INT64"},"s":{"value":"x","type":"STRING"},"l":{"value":["p"],"type":"STRING_LIST"},"r":{"value":{"recordName":"a"},"type":"REFERENCE"}"#),
            note("b", #""n":{"value":"x","type":"STRING"}"#),
            note("c", #""s":{"value":"x","type":"STRING","isEncrypted":true}"#),
            note("d", #""r":{"value":{"recordName":"x","zoneID":{"zoneName":"Other"}},"type":"REFERENCE"}"#),
            note("e", #""l":{"value":[],"type":"STRING_LIST"}"#),
            note("f", #""n":{"value":7,"type":"INT64"},"s":{"value":"y","type":"STRING"}"#),
            note("g", #""n":{"value":[7],"type":"INT64_LIST"}"#),
        ]
        try s.write(lines.joined(separator: "\n") + "\n", to: "declared.jsonl")
        let r = try refused(s, "declared.jsonl", "4 lines are invalid; nothing was saved (4 problems below)", [
            "  declared.jsonl:2:62: invalidArguments (12): $.fields.n.value: invalid attempt to set value type STRING for field 'n' for type 'Note', defined to be: INT64",
            "  declared.jsonl:3:62: invalidArguments (12): $.fields.s.value: field 's' of type 'Note' is STRING, not encrypted: an encrypted value can't be stored in it",
            "  declared.jsonl:4:62: invalidArguments (12): $.fields.r.value: field 'r': a reference must point into the record's own zone (_defaultZone), not 'Other'",
            "  declared.jsonl:7:62: invalidArguments (12): $.fields.n.value: invalid attempt to set value type INT64_LIST for field 'n' for type 'Note', defined to be: INT64",
        ])
        #expect(!r.stderr.contains("declared.jsonl:5:") && !r.stderr.contains("declared.jsonl:6:"), "\(r.stderr)")
        #expect(try s.ck("record", "fetch", "a").status == 3, "nothing was saved")
    }
}
