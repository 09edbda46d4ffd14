import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKQuery
@testable import CKStorage
@testable import CKServer
@testable import CKDataModel

/// The index is a cache: every answer must equal the one from folding the logs, however the index got
/// out of step with them.
@Suite struct IndexTests {
    /// 160 Notes with numbers, strings (some missing), dates and tags, plus deletions and updates.
    func seeded() throws -> TempStore {
        let t = try TempStore()
        let db = try t.db()
        var ops: [RecordOperation] = []
        for i in 0..<160 {
            var f: [String: FieldInput] = ["n": .value(.int64(Int64(i % 37))), "when": .value(.timestamp(Int64(1_000 * (i % 11)))),
                                           "tags": .value(.list(.string, [.string(i % 2 == 0 ? "even" : "odd")]))]
            if i % 5 != 0 { f["title"] = .value(.string(["Apple", "banana", "Cherry", "apple pie", "Zoë"][i % 5])) }
            ops.append(.save(recordType: "Note", recordName: String(format: "r%03d", i), fields: f, ifTag: nil, policy: nil))
        }
        try db.modify(requests: stride(from: 0, to: ops.count, by: 200).map { Array(ops[$0..<min($0 + 200, ops.count)]) }) { _ in }
        _ = try db.modify((0..<20).map { RecordOperation(type: .forceDelete, recordName: String(format: "r%03d", $0 * 7)) })
        _ = try db.modify([.save(recordType: "Note", recordName: "r001", fields: ["n": .value(.int64(99))], ifTag: nil, policy: .changedKeys)])
        try t.store.container().setIndexes(recordType: "Note", field: "___recordID", queryable: true, sortable: true, searchable: false, remove: false)
        return t
    }

    static let queries: [(String, [QuerySort])] = [
        ("TRUEPREDICATE", []),
        ("n > 20", [QuerySort("n")]),
        ("n >= 5 AND n < 30", [QuerySort("n", ascending: false)]),
        ("title == 'apple'", [QuerySort("when")]),
        ("title BEGINSWITH 'Ch'", []),
        ("title IN {'banana', 'Zoë'}", [QuerySort("title")]),
        ("tags CONTAINS 'even'", [QuerySort("title", ascending: false)]),
        ("NOT (n IN {1, 2, 3})", [QuerySort("when", ascending: false)]),
        ("recordName == 'r010'", []),
        ("n != 4", [QuerySort("recordName", ascending: false)]),
    ]

    /// Every page of every query, following cursors with a small page size.
    func answers(_ t: TempStore, indexed: Bool) throws -> [[String]] {
        t.store.indexEnabled = indexed
        let db = try t.db()
        var out: [[String]] = []
        for (p, sort) in IndexTests.queries {
            var names: [String] = []
            var cursor: String? = nil
            repeat {
                let r = try db.query(QueryRequest(recordType: "Note", predicate: p, sort: sort, limit: 30, cursor: cursor))
                names += r.records.map(\.recordName)
                cursor = r.cursor
            } while cursor != nil
            out.append(names)
        }
        return out
    }

    @Test func queriesAnswerTheSameWithAndWithoutTheIndex() throws {
        let t = try seeded()
        let folded = try answers(t, indexed: false)
        #expect(try answers(t, indexed: true) == folded)
        #expect(folded[1].count == (0..<160).filter { $0 % 37 > 20 && !($0 % 7 == 0 && $0 / 7 < 20) && $0 != 1 }.count + 1)
        // The index is rebuilt after it is deleted.
        try FileManager.default.removeItem(atPath: t.envDir + "/.index.sqlite")
        #expect(try answers(t, indexed: true) == folded)
        #expect(FileManager.default.fileExists(atPath: t.envDir + "/.index.sqlite"))
    }

    @Test func fetchAndSaveFollowAHandEditedLog() throws {
        let t = try seeded()
        _ = try answers(t, indexed: true)
        let path = t.envDir + "/private/" + CKContainer.userRecordName(for: "default") + "/_defaultZone.jsonl"
        // Change a title in the middle of the log, keeping its length: only the content differs.
        var text = try String(contentsOfFile: path, encoding: .utf8)
        let target = #""recordName":"r151","#
        let range = try #require(text.range(of: target))
        let lineStart = text[..<range.lowerBound].lastIndex(of: "\n").map { text.index(after: $0) } ?? text.startIndex
        let lineEnd = text[range.upperBound...].firstIndex(of: "\n") ?? text.endIndex
        let edited = text[lineStart..<lineEnd].replacingOccurrences(of: #"{"value":"banana","type":"STRING"}"#, with: #"{"value":"BANANA","type":"STRING"}"#)
        text.replaceSubrange(lineStart..<lineEnd, with: edited)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let db = try t.db()
        #expect(try db.fetchOne("r151").fields["title"] == .string("BANANA"))
        #expect(try answers(t, indexed: true) == (try answers(t, indexed: false)))
    }

    /// An edit in place that keeps the log's size and puts its modification time back (as `cp -p` or a careful
    /// tool does) is still noticed: a query finds what fetch shows.
    @Test func anEditKeepingSizeAndMtimeIsNoticed() throws {
        let t = try seeded()
        _ = try answers(t, indexed: true)
        let path = t.envDir + "/private/" + CKContainer.userRecordName(for: "default") + "/_defaultZone.jsonl"
        var before = stat()
        #expect(lstat(path, &before) == 0)
        var bytes = try #require(FileManager.default.contents(atPath: path).map { [UInt8]($0) })
        // r011's title is "banana" (11 % 5 == 1); far from the end of the log, so the indexed tail is unchanged.
        let text = String(decoding: bytes, as: UTF8.self)
        let name = try #require(text.range(of: #""recordName":"r011","#))
        let lineStart = text[..<name.lowerBound].utf8.lastIndex(of: 0x0A).map { text.utf8.distance(from: text.startIndex, to: $0) } ?? 0
        let lineEnd = text.utf8.distance(from: text.startIndex, to: text[name.upperBound...].firstIndex(of: "\n") ?? text.endIndex)
        let old = Array(#"{"value":"banana","type":"STRING"}"#.utf8), new = Array(#"{"value":"kiwi!!","type":"STRING"}"#.utf8)
        let at = try #require((lineStart..<lineEnd - old.count).first { Array(bytes[$0..<$0 + old.count]) == old })
        #expect(bytes.count - at > 4096)
        bytes.replaceSubrange(at..<at + old.count, with: new)
        let fd = open(path, O_WRONLY)
        #expect(fd >= 0)
        #expect(bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == bytes.count)
        var times = [before.st_atim, before.st_mtim]
        #expect(futimens(fd, &times) == 0)
        close(fd)
        var after = stat()
        #expect(lstat(path, &after) == 0)
        #expect(after.st_size == before.st_size && after.st_ino == before.st_ino)
        #expect(after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
        let db = try t.db()
        #expect(try db.fetchOne("r011").fields["title"] == .string("kiwi!!"))
        let found = try db.query(QueryRequest(recordType: "Note", predicate: "title == 'kiwi!!'", sort: [], limit: 10, cursor: nil))
        #expect(found.records.map(\.recordName) == ["r011"])
        #expect(try answers(t, indexed: true) == (try answers(t, indexed: false)))
    }

    @Test func aCrashBetweenAppendAndIndexIsCaughtUp() throws {
        let t = try seeded()
        _ = try answers(t, indexed: true)
        // Lines appended by a writer that died before updating the index.
        let path = t.envDir + "/private/" + CKContainer.userRecordName(for: "default") + "/_defaultZone.jsonl"
        let other = try TempStore()
        let record = try other.db().save("Note", "late", ["n": "5", "title": "Late"])
        var line: [UInt8] = []
        LogEntry.save(seq: 100_000, record: Record(recordName: "late", recordType: "Note", zoneID: record.zoneID, changeTag: "zz",
                                                    fields: record.fields, created: record.created, modified: record.modified)).write(into: &line, batch: nil)
        let h = try #require(FileHandle(forWritingAtPath: path))
        h.seekToEndOfFile()
        h.write(Data(line + [0x0A]))
        h.closeFile()
        let db = try t.db()
        #expect(try db.fetchOne("late").changeTag == "zz")
        #expect(try answers(t, indexed: true) == (try answers(t, indexed: false)))
        // The next save continues after the late line's sequence number.
        let next = try t.db().save("Note", "next", ["n": "1"])
        #expect(Int64(next.changeTag, radix: 36) ?? 0 > 100_000)
    }

    @Test func aDamagedIndexIsRebuilt() throws {
        let t = try seeded()
        let before = try answers(t, indexed: true)
        try Data("this is not a database".utf8).write(to: URL(fileURLWithPath: t.envDir + "/.index.sqlite"))
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: t.envDir + "/.index.sqlite" + suffix) }
        #expect(try answers(t, indexed: true) == before)
    }
}
