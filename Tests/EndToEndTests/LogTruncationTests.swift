import Foundation
import Testing

/// A zone log that lost lines after they were acknowledged (issue 28, "data and wrong results"): a shortened log
/// (a partial restore, a hand edit) and a compacted one whose zones.json is rebuilt. What its lines hold stays
/// readable, doctor says what happened, and no sequence number or change tag is handed out twice.
@Suite struct LogTruncationTests {
    let user = StorePaths.defaultUser

    func log(_ s: Sandbox) -> String { StorePaths.zoneLog(s, "_defaultZone") }

    /// Line `i` of `lines`, or "" when there are fewer (so a wrong count fails an expectation, not the run).
    func at(_ lines: [String], _ i: Int) -> String { i < lines.count ? lines[i] : "" }

    func lines(_ path: String) throws -> [String] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
    }

    /// `ck record save` of one record; returns its change tag (the third column).
    func save(_ s: Sandbox, _ name: String) throws -> String {
        let r = try s.ck("record", "save", "Note", "--name", name, "t=1")
        #expect(r.status == 0, "\(r.stderr)")
        let cols = r.stdout.split(separator: "\t").map(String.init)
        return cols.count > 2 ? cols[2] : ""
    }

    /// A batch of 200 (one request: its first line says "batch":200) whose last line is then removed by hand. The
    /// log still ends with a newline, so nothing was cut short by a crash: the 199 lines are acknowledged data.
    @Test func aShortenedLogKeepsEveryWholeLineAndNeverReusesTheLostNumbers() throws {
        let s = try Sandbox()
        #expect(try save(s, "before") == "1")
        let batch = (0..<200).map { #"{"recordName":"b\#($0)","recordType":"Note","fields":{"t":{"value":\#($0),"type":"INT64"}}}"# }
        #expect(try s.ck("record", "save", "--batch", "-", stdin: batch.joined(separator: "\n") + "\n").status == 0)
        let path = log(s)
        let all = try lines(path)
        #expect(all.count == 201)
        #expect(at(all, 1).hasPrefix(#"{"seq":2,"op":"save","batch":200,"#))
        try (all.dropLast().joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)

        // Every read sees the 199 records still in the log; only b199, whose line is gone, is missing.
        let kept = (0..<199).map { "b\($0)" }
        let fetch = try s.run(["record", "fetch"] + kept)
        #expect(fetch.status == 0, "\(fetch.stderr)")
        #expect(fetch.stdout.split(separator: "\n").count == 199)
        #expect(fetch.stderr.isEmpty, "\(fetch.stderr)")
        #expect(try s.ck("record", "fetch", "b199").status == 3)
        let list = try s.ck("record", "list", "Note")
        #expect(list.status == 0 && list.stdout.split(separator: "\n").count == 200, "\(list.stdout.suffix(200))\(list.stderr)")

        // Doctor says what happened (a problem: a line is lost) and changes nothing.
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let check = try s.ck("doctor")
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem\t\(path):2\tlines 2–200: a request of 200 lines of which the last 1 is missing, though the log ends with a whole line"), "\(check.stdout)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before)

        // The next write keeps every line and counts on above the request's numbers, the lost line's (201, "5l") too.
        #expect(try save(s, "after") == "5m")
        let now = try lines(path)
        #expect(now.count == 201 && now.dropLast() == all.dropLast(), "the 199 lines stay as they were")
        #expect(s.files(under: s.dir + "/store/lost+found").isEmpty, "nothing was moved aside")
        let again = try s.run(["record", "fetch"] + kept + ["after"])
        #expect(again.status == 0 && again.stdout.split(separator: "\n").count == 200, "\(again.stderr)")
    }

    /// Doctor's repair of a shortened log keeps its lines, records the request as the lines it has, and keeps the
    /// lost line's number out of use (index on or off).
    @Test(arguments: ["on", "off"]) func doctorRepairsAShortenedLogKeepingItsLines(index: String) throws {
        let s = try Sandbox()
        s.environment["CK_INDEX"] = index
        let batch = (0..<3).map { #"{"recordName":"b\#($0)","recordType":"Note","fields":{"t":{"value":\#($0),"type":"INT64"}}}"# }
        #expect(try s.ck("record", "save", "--batch", "-", stdin: batch.joined(separator: "\n") + "\n").status == 0)
        let path = log(s)
        let all = try lines(path)
        #expect(all.count == 3)
        try (all.prefix(2).joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)

        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        #expect(repair.stdout.contains("problem\t\(path):1\tlines 1–2: a request of 3 lines of which the last 1 is missing"), "\(repair.stdout)")
        let fixed = try lines(path)
        #expect(fixed.count == 3)
        #expect(at(fixed, 0).hasPrefix(#"{"seq":1,"op":"save","batch":2,"record":{"recordName":"b0""#), "\(at(fixed, 0).prefix(80))")
        #expect(at(fixed, 1) == at(all, 1))
        #expect(at(fixed, 2) == #"{"seq":3,"op":"gap"}"#)
        #expect(try s.ck("doctor").status == 0)
        let fetch = try s.ck("record", "fetch", "b0", "b1")
        #expect(fetch.status == 0 && fetch.stderr.isEmpty, "\(fetch.stderr)")
        // b2 had seq 3; the next save takes 4.
        #expect(try save(s, "after") == "4")
    }

    /// `ck gc` drops the deletions (seq 4 and 5) from the log; zones.json is then broken and rebuilt by doctor.
    /// The rebuilt lastSeq, and the next save, stay above 5: the compacted log keeps its highest dropped number.
    @Test func aRebuiltZonesFileAfterGCNeverLowersTheSequence() throws {
        let s = try Sandbox()
        for name in ["a", "b", "c"] { _ = try save(s, name) }
        #expect(try s.ck("record", "delete", "a", "b", "-y").status == 0)
        #expect(try s.ck("gc").status == 0)
        let path = log(s)
        let compacted = try lines(path)
        #expect(compacted.count == 2)
        #expect(at(compacted, 0).hasPrefix(#"{"seq":3,"op":"save","record":{"recordName":"c""#))
        #expect(at(compacted, 1) == #"{"seq":5,"op":"gap"}"#)
        #expect(try s.ck("doctor").status == 0, "a gap line is a valid line")
        #expect(try s.ck("record", "fetch", "c").status == 0)

        let zones = StorePaths.env(s) + "/zones.json"
        try "{ broken".write(toFile: zones, atomically: true, encoding: .utf8)
        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        let rebuilt = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: zones))) as? [String: Any]
        #expect((rebuilt?["lastSeq"] as? NSNumber)?.intValue == 5)
        // Seq 6 (tag "6"), not 4: a device whose token saw the deletions would miss a change numbered at or below 5.
        #expect(try save(s, "d") == "6")
        // A second gc keeps the gap's number though nothing new is dropped above the live lines.
        #expect(try s.ck("record", "delete", "d", "-y").status == 0)
        #expect(try s.ck("gc").status == 0)
        #expect(try lines(path).last == #"{"seq":7,"op":"gap"}"#)
        #expect(try save(s, "e") == "8")
    }
}
