import Foundation
import Testing

/// The record index stores each string once where it can (docs/store.md, "The index"): records are named by an
/// integer id in the value and token rows, fields and tokens by an id per log, and the string indexes hold a
/// prefix of each value. Sizes are real bytes on disk, never times.
@Suite struct IndexSizeTests {
    static let words = ["alpha", "amber", "anchor", "apple", "arrow", "autumn", "basket", "beacon", "birch", "blossom",
                        "breeze", "bridge", "canyon", "carbon", "cedar", "chalk", "cherry", "cinder", "cloud", "cobalt",
                        "comet", "copper", "coral", "cotton", "crystal", "dawn", "delta", "desert", "drift", "echo"]
    static let tags = ["work", "home", "travel", "music", "family", "urgent", "later", "ideas"]

    /// Bench-shaped records (docs/performance.md): a short title, a body of about 200 characters, a date, a
    /// priority from 0 to 99 and two tags, from a fixed seed.
    static func notes(_ n: Int) -> String {
        var state: UInt64 = 29
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var lines: [String] = []
        for i in 1...n {
            let title = (0..<(2 + next(4))).map { _ in words[next(words.count)] }.joined(separator: " ").capitalized
            var body = words[next(words.count)].capitalized
            while body.utf8.count < 195 { body += " " + words[next(words.count)] }
            let date = 1_577_836_800_000 + next(157_680_000) * 1000
            let tag1 = tags[next(tags.count)], tag2 = tags[next(tags.count)]
            lines.append(#"{"recordName":"note-\#(String(format: "%06d", i))","recordType":"Note","fields":{"title":{"value":"\#(title)","type":"STRING"},"body":{"value":"\#(body).","type":"STRING"},"date":{"value":\#(date),"type":"TIMESTAMP"},"priority":{"value":\#(next(100)),"type":"INT64"},"tags":{"value":["\#(tag1)","\#(tag2)"],"type":"STRING_LIST"}}}"#)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Bytes of the files under `dir` whose names satisfy `keep`.
    static func bytes(under dir: String, _ keep: (String) -> Bool) -> Int {
        var total = 0
        for case let path as String in FileManager.default.enumerator(atPath: dir) ?? FileManager.DirectoryEnumerator() where keep(path) {
            total += ((try? FileManager.default.attributesOfItem(atPath: dir + "/" + path))?[.size] as? Int) ?? 0
        }
        return total
    }

    /// After a bulk load and the queries that build the field values and search tokens, the index (with its
    /// WAL) is at most 1.5 times the zone log: issue 29's goal. Format 8 was 2.9 times.
    @Test func indexIsAtMostOneAndAHalfTimesTheLog() throws {
        let s = try Sandbox()
        try s.write(Self.notes(3000), to: "notes.jsonl")
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        let saved = try s.ck("-z", "Notes", "record", "save", "--batch", "notes.jsonl", "-q")
        #expect(saved.status == 0, "\(saved.stderr)")
        // Values and tokens are indexed on the first query that needs them.
        let equal = try s.ck("-z", "Notes", "query", "Note", "priority == 42", "--sort", "-date", "--limit", "5", "-o", "name")
        #expect(equal.status == 0, "\(equal.stderr)")
        #expect(try s.ck("-z", "Notes", "query", "Note", "self CONTAINS 'maple'", "--limit", "5").status == 0)
        let store = s.dir + "/store"
        let logs = Self.bytes(under: store) { $0.hasSuffix("/Notes.jsonl") }
        let index = Self.bytes(under: store) { $0.hasSuffix("/.index.sqlite") || $0.hasSuffix("/.index.sqlite-wal") }
        #expect(logs > 2_000_000, "the zone log: \(logs) bytes")
        #expect(Double(index) <= 1.5 * Double(logs), "index \(index) bytes, zone log \(logs) bytes: \(Double(index) / Double(logs))x")
    }
}
