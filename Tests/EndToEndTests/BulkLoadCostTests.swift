import Foundation
import Testing

/// What a record of a bulk load costs (issue 29, "A real bulk path"; docs/performance.md, "The bulk path"):
/// instructions counted by callgrind on the static release build, not time, so the figure holds on a loaded machine.
@Suite struct BulkLoadCostTests {
    /// `n` records of the bar's shape (bench/bulkbar.py): five fields, STRING, INT64, DOUBLE, TIMESTAMP, STRING.
    static func lines(_ n: Int) -> String {
        let words = ["alpha", "bravo", "cedar", "delta", "ember", "fjord", "grove", "harbor", "iris", "juniper"]
        return (0..<n).map { i in
            let title = (0..<3).map { words[(i + $0 * 3) % words.count] }.joined(separator: " ")
            let note = (0..<8).map { words[(i * 7 + $0) % words.count] }.joined(separator: " ")
            return #"{"recordName":"item-\#(i)","recordType":"Item","fields":{"title":{"value":"\#(title)","type":"STRING"},"count":{"value":\#(i % 1000),"type":"INT64"},"price":{"value":\#(i % 500).25,"type":"DOUBLE"},"date":{"value":\#(1_577_836_800_000 + i * 1000),"type":"TIMESTAMP"},"note":{"value":"\#(note)","type":"STRING"}}}"#
        }.joined(separator: "\n") + "\n"
    }

    /// A record of the bar's shape costs less than 138 k instructions: the difference between loading 400 and 100
    /// records into a fresh zone, over 300, so start-up cancels out (output goes to a pipe here, so each saved record
    /// is also printed). Before the save stopped copying its session per field, and the check and the reader did less
    /// per line, it cost 213.6 k (1be911b); after, 163.0 k (160.4 k at 48e1598); after the third round (the string,
    /// literal and decimal fast paths of the log line and the reader, no copy of the session in `apply`), 148.8 k
    /// (148.0 k at 7e1914e); after numbers read from their bytes, unboxed field values, the save mapping a plain
    /// record's table and newlines found by memchr, 131.9 k. SQLite's rows are about 44 k of it.
    @Test(RequiredTool.needed("valgrind"),
          .enabled(if: RequiredTool.inCI || ChangesFromLogBytesTests.releaseBinary != nil, "needs the static release build (.ci/run makes it)"))
    func aBulkRecordCostsLessThan138kInstructions() throws {
        let valgrind = try RequiredTool.require("valgrind")
        let ck = try #require(ChangesFromLogBytesTests.releaseBinary, "build it: swift build -c release -Xswiftc -static-executable --product ck")
        let s = try Sandbox()
        try s.write(Self.lines(100), to: "small.jsonl")
        try s.write(Self.lines(400), to: "large.jsonl")
        func instructions(_ file: String, zone: String) throws -> Double {
            #expect(try s.run(["zone", "create", zone], program: ck).status == 0)
            let (r, instructions) = try s.callgrind(["-q", "-z", zone, "record", "save", "--batch", file], ck: ck, valgrind: valgrind)
            #expect(r.status == 0, "\(r.stderr)")
            return instructions
        }
        let perRecord = (try instructions("large.jsonl", zone: "L") - (try instructions("small.jsonl", zone: "S"))) / 300
        #expect(perRecord < 138_000, "instructions a record: \(Int(perRecord))")
        // The load saved what it was given (the count is of a load that worked).
        let listed = try s.run(["-z", "L", "record", "list", "-o", "name"], program: ck)
        #expect(listed.stdout.split(separator: "\n").count == 400, "\(listed.stdout.prefix(200))")
    }
}
