import CKSQLite
import Foundation
import Testing

/// A device's pull stores each saved record from the bytes of its log line (docs/sync.md, "Pulling from the log's
/// bytes"): what the device holds must be what decoding the record and rendering it gives, byte for byte. The
/// decoding path is reached through the same binary two ways: without the index (`CK_INDEX=off` folds the log) and
/// with `--events` (the events carry whole records).
@Suite struct SyncFromLogBytesTests {
    /// The device file of `device` in the sandbox's store.
    static func deviceFile(_ s: Sandbox, _ device: String) throws -> String {
        let root = s.dir + "/store/devices"
        let found = s.files(under: root).first { $0.hasSuffix("/" + device + ".sqlite") }
        return root + "/" + (try #require(found, "no file for device \(device) under \(root)"))
    }

    /// A device's `server_records`, one "zone\tname\ttype\ttag\trecord" a row, in key order.
    static func serverRecords(_ s: Sandbox, _ device: String) throws -> [String] {
        let sql = try SQLiteConnection(path: try deviceFile(s, device))
        let st = try sql.prepare("SELECT zone, name, type, tag, record FROM server_records ORDER BY zone, name")
        var rows: [String] = []
        while try st.step() { rows.append((0..<5).map { st.text(Int32($0)) }.joined(separator: "\t")) }
        return rows
    }

    /// The record bytes of the newest save of each record in zone Z's log (the text after `"record":` to the line's
    /// last brace), by name; names deleted since their last save are left out.
    static func logRecords(_ s: Sandbox) throws -> [String: String] {
        let root = s.dir + "/store/containers"
        let log = try #require(s.files(under: root).first { $0.hasSuffix("/Z.jsonl") })
        var out: [String: String] = [:]
        for line in try String(contentsOfFile: root + "/" + log, encoding: .utf8).split(separator: "\n") {
            let name = try #require(line.firstMatch(of: /"recordName":"([^"]*)"/)?.1, "\(line)")
            if line.contains(#""op":"save""#), let r = line.range(of: #","record":"#) {
                out[String(name)] = String(line[r.upperBound..<line.index(before: line.endIndex)])
            } else {
                out[String(name)] = nil
            }
        }
        return out
    }

    @Test func theDeviceStoresTheLogsRecordBytes() throws {
        let s = try ChangesFromLogBytesTests.seeded()
        #expect(try s.ck("sync", "fast").status == 0)
        let folded = try s.run(["sync", "folded"], env: ["CK_INDEX": "off"])
        #expect(folded.status == 0, "\(folded.stderr)")
        let events = try s.ck("sync", "evented", "--events")
        #expect(events.status == 0, "\(events.stderr)")

        let fast = try Self.serverRecords(s, "fast")
        #expect(fast == (try Self.serverRecords(s, "folded")), "from the log's bytes, then decoded without the index")
        #expect(fast == (try Self.serverRecords(s, "evented")), "from the log's bytes, then decoded for --events")
        // Every record the zone holds, the deleted one gone and the one saved again after its deletion at its new tag.
        #expect(fast.map { $0.split(separator: "\t").prefix(4).joined(separator: "\t") } == [
            "Z\tall\tKinds\t2", "Z\tback\tKinds\td", "Z\tchild\tKinds\ta", "Z\tesc\tKinds\t3", "Z\tpet\tPet\t9",
            "Z\tranked\tKinds\t5", "Z\tsecret\tKinds\t4", "Z\tsmall\tNote\t8",
        ])
        // Each record is the bytes its log line holds, but for the one whose field names the JSON writer puts first
        // ("type", "value"): its line keeps the names in byte order, so it is decoded and written in the writer's.
        let log = try Self.logRecords(s)
        #expect(log.keys.sorted() == ["all", "back", "child", "esc", "pet", "ranked", "secret", "small"])
        for row in fast {
            let cols = row.split(separator: "\t", maxSplits: 4, omittingEmptySubsequences: false).map(String.init)
            guard cols[1] != "ranked" else {
                #expect(cols[4].contains(#""fields":{"value":{"value":2,"type":"INT64"},"type":{"value":"first","type":"STRING"},"a":{"value":"b","type":"STRING"}},"#), "\(cols[4])")
                #expect(log["ranked"]?.contains(#""fields":{"a":{"value":"b","type":"STRING"},"type":{"#) == true, "\(log["ranked"] ?? "")")
                continue
            }
            #expect(cols[4] == log[cols[1]], "\(cols[1]): the device holds\n\(cols[4])\nthe log\n\(log[cols[1]] ?? "nothing")")
        }
        // Written out by hand, times and the user aside.
        let stamp = #"{"deviceID":"ck","timestamp":<ms>,"userRecordName":"<user>"}"#
        let child = fast.first { $0.hasPrefix("Z\tchild\t") }.map(ChangesFromLogBytesTests.normalized)
        #expect(child == "Z\tchild\tKinds\ta\t" + #"{"recordName":"child","recordType":"Kinds","recordChangeTag":"a","deleted":false,"fields":{"s":{"value":"kid","type":"STRING"}},"created":"#
                + stamp + #","modified":"# + stamp
                + #","zoneID":{"zoneName":"Z","ownerRecordName":"<user>","zoneType":"REGULAR_CUSTOM_ZONE"},"parent":{"recordName":"all"}}"#)

        // What a user sees of them is the same too, and reads back as the records the server holds.
        for format in ["json", "plain"] {
            let shown = try s.ck("device", "records", "fast", "-o", format)
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(shown.stdout == (try s.ck("device", "records", "folded", "-o", format)).stdout, "-o \(format)")
        }
        let plain = try s.ck("device", "records", "fast", "-o", "plain").stdout
        #expect(plain.contains("Z\tesc\tKinds\t3\t-\ts=tab\\there \"quoted\" back\\\\slash new\\nline cr\\r ctl\u{1} é 日本 🎉 \u{7f}\tsl=[é\\\\, \"\\n]\n"), "\(plain)")
        #expect(plain.contains("Z\tback\tKinds\td\t-\ts=second\n"), "\(plain)")
    }

    /// A device that pulled from the bytes merges, edits and pushes on them as on a decoded record.
    @Test func editsAndConflictsWorkOnStoredBytes() throws {
        let s = try ChangesFromLogBytesTests.seeded()
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("device", "save", "phone", "Kinds", "--name", "esc", "-z", "Z", "n=1").status == 0)
        #expect(try s.ck("-z", "Z", "record", "save", "Kinds", "--name", "esc", "--policy", "changed-keys", "s=server").status == 0)
        let merged = try s.ck("sync", "phone")
        #expect(merged.status == 0, "\(merged.stderr)")
        #expect(merged.stdout.contains("pushed\tsave\tZ\tesc\n"), "\(merged.stdout)")
        let fetched = try s.ck("-z", "Z", "record", "fetch", "esc", "-o", "plain").stdout
        #expect(fetched.contains("\tn=1\ts=server\tsl=[é\\\\, \"\\n]\n"), "\(fetched)")
        // The pull after the push stored the server's answer: the device and the server agree.
        let device = try s.ck("device", "records", "phone", "-z", "Z", "-o", "plain").stdout
        #expect(device.contains("\tn=1\ts=server\tsl=[é\\\\, \"\\n]\n"), "\(device)")
    }

    /// What the bytes are for: a record stored from its log line costs a fraction of one decoded and rendered again.
    /// Instructions counted by callgrind (not time), per record: the difference between a fresh device's sync of
    /// 400 records and one of 100, so start-up cancels out. `CK_INDEX=off` takes the decoding path.
    @Test(RequiredTool.needed("valgrind"),
          .enabled(if: RequiredTool.inCI || ChangesFromLogBytesTests.releaseBinary != nil, "needs the static release build (.ci/run makes it)"))
    func aPulledRecordCostsAFractionOfDecodingIt() throws {
        let valgrind = try RequiredTool.require("valgrind")
        let ck = try #require(ChangesFromLogBytesTests.releaseBinary, "build it: swift build -c release -Xswiftc -static-executable --product ck")
        func notes(_ count: Int) -> String {
            (0..<count).map { i in
                let body = String(repeating: "lorem ipsum dolor sit amet ", count: 8)
                return #"{"recordName":"note-\#(i)","recordType":"Note","fields":{"title":{"value":"Title \#(i)","type":"STRING"},"body":{"value":"\#(body)","type":"STRING"},"date":{"value":\#(1_600_000_000_000 + i),"type":"TIMESTAMP"},"priority":{"value":\#(i % 100),"type":"INT64"},"tags":{"value":["a","b"],"type":"STRING_LIST"}}}"#
            }.joined(separator: "\n") + "\n"
        }
        // A store of 100 records and one of 400, in one zone each.
        var stores: [Int: Sandbox] = [:]
        for count in [100, 400] {
            let s = try Sandbox()
            try s.write(notes(count), to: "notes.jsonl")
            #expect(try s.run(["zone", "create", "Z"], program: ck).status == 0)
            #expect(try s.run(["-z", "Z", "record", "save", "--batch", "notes.jsonl", "-q"], program: ck).status == 0)
            stores[count] = s
        }
        // Each count is a fresh device's first sync (a device of its own each time).
        var devices = 0
        func instructions(_ count: Int, env: [String: String] = [:]) throws -> Double {
            let s = try #require(stores[count])
            devices += 1
            let (r, instructions) = try s.callgrind(["sync", "d\(devices)"], ck: ck, valgrind: valgrind, env: env)
            #expect(r.status == 0 && r.stdout == "pulled\tZ\t\(count)\t0\n", "\(r.stdout)\(r.stderr)")
            return instructions
        }
        let fromBytes = (try instructions(400) - (try instructions(100))) / 300
        let decoded = (try instructions(400, env: ["CK_INDEX": "off"]) - (try instructions(100, env: ["CK_INDEX": "off"]))) / 300
        // Decoded and rendered, a record of this size costs about 167 k instructions; from its bytes about 45 k (before
        // the bytes path, 150 k and 167 k: the ratio is about 0.9).
        #expect(fromBytes < decoded * 0.5, "instructions a record: \(Int(fromBytes)) from the log's bytes, \(Int(decoded)) decoded")
    }
}
