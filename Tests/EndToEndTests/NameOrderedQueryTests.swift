import Foundation
import Testing

/// A filter sorted by record name (the default order: bench's "list CONTAINS" and "self CONTAINS") reads its page
/// from the filter's index rows in record id order, which is name order while records came in name order
/// (docs/performance.md, "A smaller index, and equality sorted by another field"), so a page costs the same however
/// many records match.
@Suite struct NameOrderedQueryTests {
    /// Every page of `args` (three records a page, following the cursor) as names.
    static func pages(_ s: Sandbox, _ args: [String], env: [String: String] = [:]) throws -> String {
        var out: [String] = []
        var cursor: [String] = []
        for _ in 0..<40 {
            let r = try s.run(["-z", "Notes", "query", "Note"] + args + ["--limit", "3", "-o", "name"] + cursor, env: env)
            #expect(r.status == 0, "\(r.stderr)")
            out.append(r.stdout)
            guard let c = r.stderr.firstMatch(of: /--cursor (\S+)/) else { break }
            cursor = ["--cursor", String(c.1)]
        }
        return out.joined(separator: "--\n")
    }

    /// Through the index, every page of list CONTAINS, token search and an equality is what reading the log gives:
    /// while names came in order, after a record saved again, one deleted, and a new one whose name falls between
    /// others (ids no longer run in name order).
    @Test func pagesAreThoseOfTheLog() throws {
        let s = try EqualitySortedQueryTests.seeded(60)
        let shapes = [["tags CONTAINS 'travel'"], ["self CONTAINS 'maple'"], ["priority == 42"],
                      ["tags CONTAINS 'work' AND self CONTAINS 'amber'"], ["tags CONTAINS 'home' AND priority < 50"]]
        func check(_ when: String) throws {
            for shape in shapes {
                let indexed = try Self.pages(s, shape)
                #expect(indexed == (try Self.pages(s, shape, env: ["CK_INDEX": "off"])), "\(shape) \(when)")
            }
            let travel = try Self.pages(s, ["tags CONTAINS 'travel'"])
            #expect(travel.split(separator: "\n").contains { $0.hasPrefix("note-") }, "list CONTAINS matches records \(when)")
        }
        try check("in order")
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "note-000002", "--policy", "changed-keys",
                         "tags:string[]=travel").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "delete", "note-000003").status == 0)
        try check("after a save and a delete")
        // Saved last, its id is the highest, but its name comes second.
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "note-000001a", "tags:string[]=travel",
                         "title=maple").status == 0)
        try check("after a name out of order")
        let first = try s.ck("-z", "Notes", "query", "Note", "tags CONTAINS 'travel'", "--limit", "60", "-o", "name")
        let names = first.stdout.split(separator: "\n").map(String.init)
        #expect(names.contains("note-000001a") && names.contains("note-000002"), "\(first.stdout)")
        #expect(names == names.sorted(), "in name order: \(names)")
    }

    /// Records saved in one batch into a new zone, names in reverse order: their ids run against their names, and
    /// a query still gives them by name.
    @Test func aFirstBatchOutOfOrderIsReadByName() throws {
        let s = try Sandbox()
        let lines = ["c", "a", "d", "b"].map { #"{"recordName":"\#($0)","recordType":"Note","fields":{"tags":{"value":["travel"],"type":"STRING_LIST"},"title":{"value":"maple \#($0)","type":"STRING"}}}"# }
        try s.write(lines.joined(separator: "\n") + "\n", to: "notes.jsonl")
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        let saved = try s.ck("-z", "Notes", "record", "save", "--batch", "notes.jsonl", "-q")
        #expect(saved.status == 0, "\(saved.stderr)")
        for filter in ["tags CONTAINS 'travel'", "self CONTAINS 'maple'"] {
            #expect(try s.ck("-z", "Notes", "query", "Note", filter, "-o", "name").stdout == "a\nb\nc\nd\n", "\(filter)")
            #expect(try Self.pages(s, [filter]) == "a\nb\nc\n--\nd\n", "\(filter)")
        }
    }

    /// Names saved out of order keep ids in name order where they can: a name before every other (bench's
    /// `bench-new`), a batch in reverse order (numbered again when the values are first built), then a name between
    /// two of those; every page is still what reading the log gives.
    @Test func namesOutOfOrderArePagedByName() throws {
        let s = try Sandbox()
        let lines = (1...30).reversed().map { i in
            #"{"recordName":"r\#(String(format: "%03d", i * 10))","recordType":"Note","fields":{"tags":{"value":["\#(i % 3 == 0 ? "travel" : "home")"],"type":"STRING_LIST"},"title":{"value":"maple \#(i)","type":"STRING"}}}"#
        }
        try s.write(lines.joined(separator: "\n") + "\n", to: "notes.jsonl")
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "--batch", "notes.jsonl", "-q").status == 0)
        let shapes = [["tags CONTAINS 'travel'"], ["self CONTAINS 'maple'"], ["tags CONTAINS 'home' AND self CONTAINS 'maple'"]]
        func check(_ when: String) throws {
            for shape in shapes {
                #expect(try Self.pages(s, shape) == (try Self.pages(s, shape, env: ["CK_INDEX": "off"])), "\(shape) \(when)")
            }
        }
        try check("after a batch in reverse order")
        #expect(try s.ck("-z", "Notes", "query", "Note", "tags CONTAINS 'travel'", "--limit", "4", "-o", "name").stdout
                == "r030\nr060\nr090\nr120\n")
        for name in ["a-first", "r045", "r046", "r044", "zz-last", "0-before-all"] {
            #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", name, "tags:string[]=travel", "title=maple").status == 0)
        }
        try check("after names saved between and around the others")
        #expect(try s.ck("-z", "Notes", "query", "Note", "tags CONTAINS 'travel'", "--limit", "8", "-o", "name").stdout
                == "0-before-all\na-first\nr030\nr044\nr045\nr046\nr060\nr090\n")
    }

    /// Four first queries at once on a zone loaded in reverse name order: one builds the values (numbering the
    /// records again), the others wait for it or find them built; every one answers in name order.
    @Test func firstQueriesAtOnceAllAnswerByName() throws {
        let s = try Sandbox()
        let lines = (1...200).reversed().map { i in
            #"{"recordName":"n\#(String(format: "%03d", i))","recordType":"Note","fields":{"tags":{"value":["\#(i % 2 == 0 ? "travel" : "home")"],"type":"STRING_LIST"}}}"#
        }
        try s.write(lines.joined(separator: "\n") + "\n", to: "notes.jsonl")
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "--batch", "notes.jsonl", "-q").status == 0)
        let launch = CKLaunch(s)
        let children = try (0..<4).map { i in
            try CKChild(launch, CKJob("query \(i)", ["-z", "Notes", "query", "Note", "tags CONTAINS 'travel'", "--limit", "5", "-o", "name"]))
        }
        for child in children {
            let o = child.wait()
            #expect(o.status == 0 && o.stdout == "n002\nn004\nn006\nn008\nn010\n", "\(o.label): \(o.stdout) \(o.stderr)")
        }
        #expect(try s.ck("-z", "Notes", "query", "Note", "tags CONTAINS 'home'", "--limit", "3", "-o", "name").stdout == "n001\nn003\nn005\n")
    }

    /// The static release build, and what counts the instructions of a second page of `tags CONTAINS 'travel'` (100
    /// records) in a sandbox: the first query builds the field values, the count is of the next.
    static func pageInstructions() throws -> (ck: String, count: (Sandbox) throws -> Double) {
        let valgrind = try RequiredTool.require("valgrind")
        let ck = try #require(ChangesFromLogBytesTests.releaseBinary, "build it: swift build -c release -Xswiftc -static-executable --product ck")
        let query = ["-z", "Notes", "query", "Note", "tags CONTAINS 'travel'", "--limit", "100", "-o", "name"]
        return (ck, { s in
            let warm = try s.run(query, program: ck)
            #expect(warm.stdout.split(separator: "\n").count == 100, "a full page: \(warm.stderr)")
            return try s.callgrind(query, ck: ck, valgrind: valgrind).instructions
        })
    }

    /// A page of list CONTAINS costs about the same (callgrind instructions, at most 1.1 times) after a record named
    /// before all others is saved (bench's `save one` does it) and in a store loaded in reverse name order, as in a
    /// store whose names all came in order. Format 10 walked the records in name order once one name came out of
    /// order (about 1.5 times, 10,000 instructions a record walked).
    @Test(RequiredTool.needed("valgrind"),
          .enabled(if: RequiredTool.inCI || ChangesFromLogBytesTests.releaseBinary != nil, "needs the static release build (.ci/run makes it)"))
    func aPageCostsTheSameWhenNamesCameOutOfOrder() throws {
        let (ck, instructions) = try Self.pageInstructions()
        let ordered = try EqualitySortedQueryTests.seeded(3_000, program: ck)
        let inOrder = try instructions(ordered)
        #expect(try ordered.run(["-z", "Notes", "record", "save", "Note", "--name", "bench-new", "title=x", "priority=5"],
                                program: ck).status == 0)
        let afterFirst = try instructions(ordered)
        #expect(afterFirst <= inOrder * 1.1, "after a name before all: \(Int(afterFirst)) against \(Int(inOrder))")

        let reversed = try Sandbox()
        let lines = IndexSizeTests.notes(3_000).split(separator: "\n").reversed()
        try reversed.write(lines.joined(separator: "\n") + "\n", to: "notes.jsonl")
        #expect(try reversed.run(["zone", "create", "Notes"], program: ck).status == 0)
        #expect(try reversed.run(["-z", "Notes", "record", "save", "--batch", "notes.jsonl", "-q"], program: ck).status == 0)
        let loadedReversed = try instructions(reversed)
        #expect(loadedReversed <= inOrder * 1.1, "loaded in reverse: \(Int(loadedReversed)) against \(Int(inOrder))")
    }

    /// The instructions of a page of list CONTAINS (callgrind: a count, not a time) at 1,000 and at 10,000 records,
    /// where about a quarter match: at most 1.2 times apart (format 9 walked every record in name order to the
    /// page's end, or read and sorted every match: 1.5 times).
    @Test(RequiredTool.needed("valgrind"),
          .enabled(if: RequiredTool.inCI || ChangesFromLogBytesTests.releaseBinary != nil, "needs the static release build (.ci/run makes it)"))
    func aListContainsPageCostsTheSameAtTenTimesTheRecords() throws {
        let (ck, instructions) = try Self.pageInstructions()
        let small = try instructions(try EqualitySortedQueryTests.seeded(1_000, program: ck))
        let large = try instructions(try EqualitySortedQueryTests.seeded(10_000, program: ck))
        #expect(large <= small * 1.2, "instructions of a page: \(Int(small)) at 1,000 records, \(Int(large)) at 10,000 (\(large / small)x)")
    }
}
