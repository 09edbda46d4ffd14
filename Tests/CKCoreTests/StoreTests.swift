import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKFiles
@testable import CKSQLite
@testable import CKStorage
@testable import CKServer
@testable import CKDataModel

@Suite struct StoreTests {
    func logPath(_ t: TempStore, zone: String = "_defaultZone") -> String {
        t.envDir + "/private/" + CKContainer.userRecordName(for: "default") + "/" + zone + ".jsonl"
    }

    @Test func logLinesAreWholeRecordDictionaries() throws {
        let t = try TempStore()
        try t.db().save("Note", "a", ["title": "x"])
        let lines = t.read(logPath(t)).split(separator: "\n")
        #expect(lines.count == 1)
        let json = try JSON.parse(String(lines[0]))
        #expect(json["seq"] == .int(1))
        #expect(json["op"] == .string("save"))
        #expect(json["record"]?["fields"]?["title"] == .object(["value": .string("x"), "type": .string("STRING")]))
        #expect(json["record"]?["zoneID"]?["zoneName"] == .string("_defaultZone"))
        // Independent reader: Foundation's JSONSerialization accepts every file ck writes.
        for file in FileManager.default.enumerator(atPath: t.dir)?.compactMap({ $0 as? String }) ?? [] where file.hasSuffix(".json") || file.hasSuffix(".jsonl") {
            let text = t.read(t.dir + "/" + file)
            for line in (file.hasSuffix(".jsonl") ? text.split(separator: "\n").map(String.init) : [text]) {
                #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "\(file)")
            }
        }
    }

    @Test func tornLastLineIsDroppedWithAWarning() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "a", ["title": "x"])
        let path = logPath(t)
        let handle = try #require(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"seq":2,"op":"save","record":{"recordNa"#.utf8))
        handle.closeFile()
        let reader = try t.db()
        #expect(try reader.fetchOne("a").fields["title"] == .string("x"))
        #expect(reader.warnings.contains { $0.message.contains("torn last line") && $0.place?.hasSuffix(":2") == true })
        // The next writer cuts the torn tail and appends whole lines.
        try t.db().save("Note", "b", ["title": "y"])
        let lines = t.read(path).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty)
        for l in lines.dropLast() { #expect((try? JSON.parse(String(l))) != nil) }
        #expect(try t.db().fetchOne("b").fields["title"] == .string("y"))
    }

    @Test func interruptedRequestOfSeveralLinesIsDroppedWhole() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "before", ["t": "x"])
        let ops = ["a", "b", "c"].map { RecordOperation.save(recordType: "Note", recordName: $0, fields: ["t": .text($0, type: nil, action: nil)], ifTag: nil, policy: nil) }
        _ = try db.modify(ops)
        let path = logPath(t)
        let full = t.read(path)
        let lines = full.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(try JSON.parse(lines[1])["batch"] == .int(3))
        // Cut the file just before the request's second newline, as a crash mid-write would (a log that ends
        // with a whole line was shortened after the fact, and its lines are data).
        let cut = lines[0...2].joined(separator: "\n")
        try cut.write(toFile: path, atomically: true, encoding: .utf8)
        let reader = try t.db()
        #expect(try reader.records().map(\.recordName) == ["before"])
        #expect(reader.warnings.contains { $0.place?.hasSuffix(":2") == true && $0.message.hasPrefix("ignoring an incomplete request") })
        try t.db().save("Note", "after", ["t": "y"])
        #expect(try t.db().records().map(\.recordName) == ["after", "before"])
        #expect(t.read(path).split(separator: "\n").count == 2)
    }

    @Test func handEditedLastLineWithoutNewlineIsKept() throws {
        let t = try TempStore()
        try t.db().save("Note", "a", ["title": "x"])
        let path = logPath(t)
        var text = t.read(path)
        text.removeLast()  // the newline
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try t.db().save("Note", "b", ["title": "y"])
        #expect(try t.db().fetchOne("a").fields["title"] == .string("x"))
        #expect(t.read(path).split(separator: "\n").count == 2)
    }

    @Test func brokenLineInTheMiddleIsReportedAndNothingIsWritten() throws {
        let t = try TempStore()
        try t.db().save("Note", "a", ["title": "x"])
        try t.db().save("Note", "b", ["title": "y"])
        let path = logPath(t)
        var lines = t.read(path).split(separator: "\n").map(String.init)
        lines[0] = "{not json"
        let broken = lines.joined(separator: "\n") + "\n"
        try broken.write(toFile: path, atomically: true, encoding: .utf8)
        let e = ckError { _ = try t.db().fetchOne("b") }
        #expect(e?.reason.hasPrefix(path + ":1:2:") == true)
        #expect(ckError { try t.db().save("Note", "c", ["title": "z"]) } != nil)
        #expect(t.read(path) == broken, "the broken file is left as it was")
        // Other zones keep working.
        try t.db().createZone("Other")
        try t.db().save("Note", "c", ["title": "z"], zone: "Other")
    }

    @Test func brokenSchemaIsReportedWithLineAndColumn() throws {
        let t = try TempStore()
        try "{\n  \"recordTypes\": {,\n}".write(toFile: t.envDir + "/schema.json", atomically: true, encoding: .utf8)
        let e = ckError { try t.db().save("Note", "a", ["title": "x"]) }
        #expect(e?.reason.contains("schema.json:2:") == true)
        #expect(t.read(t.envDir + "/schema.json") == "{\n  \"recordTypes\": {,\n}")
    }

    @Test func zones() throws {
        let t = try TempStore()
        let db = try t.db()
        #expect(try db.zones().map(\.zoneID.zoneName) == ["_defaultZone"])
        let (z, created) = try db.createZone("Notes")
        #expect(created && z.capabilities == ZoneCapability.defaults)
        #expect(try db.createZone("Notes").created == false)
        try db.save("Note", "a", ["t": "x"], zone: "Notes")
        #expect(try db.zoneSummary("Notes").recordCount == 1)
        #expect(try db.deleteZone("Notes") == 1)
        #expect(!FileManager.default.fileExists(atPath: logPath(t, zone: "Notes")))
        #expect(ckError { try db.save("Note", "a", ["t": "x"], zone: "Notes") }?.code == .zoneNotFound)
        #expect(ckError { try db.deleteZone("Notes") }?.code == .zoneNotFound)
        #expect(ckError { try db.deleteZone("_defaultZone") }?.code == .invalidArguments)
        #expect(ckError { try t.db(.public).createZone("X") }?.code == .badDatabase)
        #expect(ckError { try t.db(.shared).createZone("X") }?.code == .badDatabase)
        #expect(ckError { try t.db(.public).save("Note", "a", ["t": "x"], zone: "X") }?.code == .zoneNotFound)
        // A recreated zone starts empty and its sequence numbers keep growing.
        try db.createZone("Notes")
        #expect(try db.records(zone: "Notes").isEmpty)
        let r = try db.save("Note", "a", ["t": "x"], zone: "Notes")
        #expect(Int64(r.changeTag, radix: 36) ?? 0 > 3)
    }

    @Test func containers() throws {
        let t = try TempStore()
        #expect(try t.store.createContainer("iCloud.com.example.Notes", use: true))
        #expect(try t.store.currentContainerID() == "iCloud.com.example.Notes")
        #expect(try !t.store.createContainer("iCloud.com.example.Notes"), "an existing container is left as it is")
        #expect(ckError { try t.store.createContainer("com.example") }?.code == .invalidArguments)
        #expect(ckError { _ = try t.store.container("iCloud.nope") }?.code == .badContainer)
        try t.store.deleteContainer("iCloud.com.example.Notes")
        #expect(try t.store.containerIDs() == [CKStore.defaultContainerID])
        #expect(try t.store.currentContainerID() == CKStore.defaultContainerID)
    }

    @Test func storeLocation() throws {
        let base = NSTemporaryDirectory() + "ck-loc-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base + "/proj/.ck", withIntermediateDirectories: true)
        try "{}".write(toFile: base + "/proj/.ck/ck.json", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: base + "/proj/a/b", withIntermediateDirectories: true)
        let env = ["HOME": base + "/home"]
        #expect(StoreLocation.resolve(dataDir: "x", environment: ["CK_DATA_DIR": "/y"], workingDirectory: "/w") == StoreLocation(path: "/w/x", source: .flag))
        #expect(StoreLocation.resolve(dataDir: nil, environment: ["CK_DATA_DIR": "/y"], workingDirectory: "/w").path == "/y")
        #expect(StoreLocation.resolve(dataDir: nil, environment: env, workingDirectory: base + "/proj/a/b") == StoreLocation(path: base + "/proj/.ck", source: .project))
        #expect(StoreLocation.resolve(dataDir: nil, environment: env, workingDirectory: base) == StoreLocation(path: base + "/home/.local/share/ck", source: .user))
        #expect(StoreLocation.resolve(dataDir: nil, environment: ["XDG_DATA_HOME": "/xdg"], workingDirectory: base).path == "/xdg/ck")
    }

    @Test func newerStoreFormatIsRefused() throws {
        let t = try TempStore()
        try #"{"format": 99, "currentContainer": "iCloud.ck.default"}"#.write(toFile: t.dir + "/store/ck.json", atomically: true, encoding: .utf8)
        #expect(ckError { _ = try t.store.container() }?.code == .incompatibleVersion)
    }
}

@Suite struct LogLineTests {
    @Test func directSerializationMatchesTheJSONTree() throws {
        let r = Record(recordName: "a\"b", recordType: "Note", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "_o"), changeTag: "3",
                       fields: ["t": .string("x\ny"), "n": .int64(-3), "d": .double(2.5), "when": .timestamp(7),
                                "tags": .list(.string, [.string("a")]), "loc": .location(Location(latitude: 1, longitude: 2)),
                                "ref": .reference(Reference(recordName: "r", action: .deleteSelf)), "b": .bytes([1, 2])],
                       created: RecordStamp(timestamp: 1, userRecordName: "_u"), modified: RecordStamp(timestamp: 2, userRecordName: "_v"))
        for entry in [LogEntry.save(seq: 9, record: r), .delete(seq: 10, recordName: "a", recordType: "Note", at: 5, userRecordName: "_u")] {
            var direct: [UInt8] = []
            entry.write(into: &direct, batch: nil)
            #expect(String(decoding: direct, as: UTF8.self) == entry.json.serialized())
            var batched: [UInt8] = []
            entry.write(into: &batched, batch: 4)
            #expect(try JSON.parse(utf8: batched)["batch"] == .int(4))
        }
    }
}

/// Reading a log a piece at a time (index rebuilds) gives what reading it whole gives, wherever the pieces end:
/// inside a line, inside a request of several lines, or inside the unfinished request a crash left at the end.
@Suite struct ZoneLogScanTests {
    func record(_ name: String) -> Record {
        Record(recordName: name, recordType: "Note", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "_o"), changeTag: "1",
               fields: ["t": .string(String(repeating: "x", count: name.count * 7))],
               created: RecordStamp(timestamp: 1, userRecordName: "_u"), modified: RecordStamp(timestamp: 2, userRecordName: "_u"))
    }

    func request(_ seqs: ClosedRange<Int64>, writing: Int? = nil) -> [UInt8] {
        var out: [UInt8] = []
        for (i, seq) in seqs.enumerated() where i < (writing ?? seqs.count) {
            let e: LogEntry = seq == 5 ? .delete(seq: 5, recordName: "r1", recordType: "Note", at: 3, userRecordName: nil)
                                       : .save(seq: seq, record: record("r\(seq)"))
            e.write(into: &out, batch: i == 0 && seqs.count > 1 ? seqs.count : nil)
            out.append(0x0A)
        }
        return out
    }

    @Test func piecesAgreeWithReadingWhole() throws {
        let dir = NSTemporaryDirectory() + "ck-scan-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/log.jsonl"
        // A single line, a request of 3, a blank line, a deletion, a request of 4, a single line, and a request
        // of 3 whose last line a crash cut short (20 bytes of it, no newline).
        var bytes = request(1...1) + request(2...4) + [0x0A] + request(5...5) + request(6...9) + request(10...10)
        bytes += Array(request(11...13).prefix(request(11...13, writing: 2).count + 20))
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let whole = try ZoneLog.read(path)
        #expect(whole.entries.map(\.seq) == Array(1...10))
        // The torn line, and the request it cut short.
        #expect(whole.warnings.count == 2 && whole.tornBytes > 0)
        for piece in [40, 64, 100, 257, 1000, 1 << 20] {
            var seqs: [Int64] = []
            var spans: [Int] = []
            let c = try ZoneLog.scan(path, from: 0, firstLine: 1, piece: piece) { (entries, s) throws(CKError) in
                seqs += entries.map(\.seq)
                spans += s.map(\.offset)
            }
            #expect(seqs == Array(1...10), "piece \(piece)")
            #expect(spans == whole.spans.map(\.offset), "piece \(piece)")
            #expect(c.validLength == whole.validLength && c.lines == whole.lines && c.tornBytes == whole.tornBytes, "piece \(piece)")
            #expect(c.warnings == whole.warnings, "piece \(piece)")
        }
    }

    /// A request whose last line was removed after the fact (the log ends with a newline): its lines are data, in
    /// whatever pieces the log is read, and the lost line's number is known.
    @Test func aShortenedRequestIsDataInEveryPiece() throws {
        let dir = NSTemporaryDirectory() + "ck-scan-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/log.jsonl"
        try Data(request(1...1) + request(2...4, writing: 2)).write(to: URL(fileURLWithPath: path))
        let whole = try ZoneLog.read(path)
        #expect(whole.entries.map(\.seq) == [1, 2, 3])
        #expect(whole.warnings.isEmpty && whole.tornBytes == 0)
        #expect(whole.shortRequest?.line == 2 && whole.shortRequest?.expected == 3 && whole.shortRequest?.present == 2)
        #expect(whole.shortRequest?.lastSeq == 4)
        for piece in [40, 100, 1 << 20] {
            var seqs: [Int64] = []
            let c = try ZoneLog.scan(path, from: 0, firstLine: 1, piece: piece) { (entries, _) throws(CKError) in seqs += entries.map(\.seq) }
            #expect(seqs == [1, 2, 3], "piece \(piece)")
            #expect(c.shortRequest?.lastSeq == 4, "piece \(piece)")
        }
    }
}
