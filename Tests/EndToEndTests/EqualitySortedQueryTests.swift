import Foundation
import Testing

/// An equality sorted by another field (bench's "equal, sort other": `priority == 42 --sort -date`) reads its page
/// in order from the pair of the two fields (docs/performance.md, "A smaller index, and equality sorted by another
/// field"), so a page costs the same however many records match.
@Suite struct EqualitySortedQueryTests {
    /// A store of the first `n` of IndexSizeTests' bench-shaped records.
    static func seeded(_ n: Int, program: String = Sandbox.binary) throws -> Sandbox {
        let s = try Sandbox()
        try s.write(IndexSizeTests.notes(n), to: "notes.jsonl")
        #expect(try s.run(["zone", "create", "Notes"], program: program).status == 0)
        let saved = try s.run(["-z", "Notes", "record", "save", "--batch", "notes.jsonl", "-q"], program: program)
        #expect(saved.status == 0, "\(saved.stderr)")
        return s
    }

    /// Through the index, every page of the query and of its variants (ascending, a cursor, records without the
    /// sort field, a record changed and one deleted after the pair was built) is what reading the log gives.
    @Test func pagesAreThoseOfTheLog() throws {
        let s = try Self.seeded(400)
        func pages(_ args: [String], env: [String: String] = [:]) throws -> String {
            try NameOrderedQueryTests.pages(s, args, env: env)
        }
        let shapes = [["priority == 42", "--sort", "-date"], ["priority == 7", "--sort", "date"],
                      ["priority == 42 AND tags CONTAINS 'work'", "--sort", "-date"], ["priority == 3", "--sort", "priority"]]
        func check(_ when: String) throws {
            for shape in shapes {
                let indexed = try pages(shape)
                #expect(indexed == (try pages(shape, env: ["CK_INDEX": "off"])), "\(shape) \(when)")
                #expect(indexed.split(separator: "\n").contains { $0.hasPrefix("note-") }, "\(shape) matches records")
            }
        }
        try check("first")
        // A match without the sort field comes after those with it; a changed priority and a deletion are followed.
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "undated", "priority=42").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "note-000001", "--policy", "changed-keys", "priority=42", "date=2030-01-01T00:00:00Z").status == 0)
        let first = try s.ck("-z", "Notes", "query", "Note", "priority == 42", "--sort", "-date", "--limit", "1", "-o", "name")
        #expect(first.stdout == "note-000001\n")
        let gone = try s.ck("-z", "Notes", "query", "Note", "priority == 7", "--sort", "date", "--limit", "1", "-o", "name")
        let name = gone.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try s.ck("-z", "Notes", "record", "delete", name).status == 0)
        try check("after changes")
        let last = try s.ck("-z", "Notes", "query", "Note", "priority == 42", "--sort", "-date", "--limit", "100", "-o", "name")
        #expect(last.stdout.hasSuffix("undated\n"), "\(last.stdout)")
    }

    /// The instructions of a page (callgrind: a count, not a time) at 1,000 and at 10,000 records, where the
    /// equality matches about 10 and about 100: at most 1.2 times apart (format 8 read and sorted every match: 1.4 times).
    @Test(RequiredTool.needed("valgrind"),
          .enabled(if: RequiredTool.inCI || ChangesFromLogBytesTests.releaseBinary != nil, "needs the static release build (.ci/run makes it)"))
    func aPageCostsTheSameAtTenTimesTheRecords() throws {
        let valgrind = try RequiredTool.require("valgrind")
        let ck = try #require(ChangesFromLogBytesTests.releaseBinary, "build it: swift build -c release -Xswiftc -static-executable --product ck")
        let query = ["-z", "Notes", "query", "Note", "priority == 42", "--sort", "-date", "--limit", "5", "-o", "name"]
        func instructions(_ s: Sandbox) throws -> Double {
            // The first query builds the field values; the count is of the next.
            let warm = try s.run(query, program: ck)
            #expect(warm.stdout.split(separator: "\n").count == 5, "a full page: \(warm.stdout) \(warm.stderr)")
            return try s.callgrind(query, ck: ck, valgrind: valgrind).instructions
        }
        let small = try instructions(try Self.seeded(1_000, program: ck))
        let large = try instructions(try Self.seeded(10_000, program: ck))
        #expect(large <= small * 1.2, "instructions of a page: \(Int(small)) at 1,000 records, \(Int(large)) at 10,000 (\(large / small)x)")
    }
}
