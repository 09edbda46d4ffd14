import Foundation
import Testing

/// `ck changes zone` writes each saved record from the bytes of its log line (docs/performance.md, "Change feeds
/// from the log's bytes"): the output must be what decoding the record and printing it gives, byte for byte.
/// The decoding path is reached through the same binary two ways: without the index (`CK_INDEX=off` folds the
/// log) and with `--keys` (a subset of fields is decoded and filtered).
@Suite struct ChangesFromLogBytesTests {
    /// Records with every field type, nested lists, unicode, escapes, encrypted values, a parent, field names the
    /// JSON writer orders first, and an asset; then deletions and records saved again after a deletion.
    static func seeded() throws -> Sandbox {
        let s = try Sandbox()
        try s.ck("zone", "create", "Z")
        let records = [
            #"{"recordName":"all","recordType":"Kinds","fields":{"s":{"value":"hello","type":"STRING"},"i":{"value":-42,"type":"INT64"},"d":{"value":3.25,"type":"DOUBLE"},"t":{"value":1700000000123,"type":"TIMESTAMP"},"sl":{"value":["a","b\tc",""],"type":"STRING_LIST"},"il":{"value":[1,-2,300],"type":"INT64_LIST"},"tl":{"value":[0,1700000000000],"type":"TIMESTAMP_LIST"},"dl":{"value":[1.5,2],"type":"DOUBLE_LIST"},"loc":{"value":{"latitude":37.33,"longitude":-122.03},"type":"LOCATION"},"r":{"value":{"recordName":"esc","action":"DELETE_SELF"},"type":"REFERENCE"},"rl":{"value":[{"recordName":"x"},{"recordName":"y"}],"type":"REFERENCE_LIST"},"b":{"value":"aGk=","type":"BYTES"},"el":{"value":[],"type":"STRING_LIST"}}}"#,
            #"{"recordName":"esc","recordType":"Kinds","fields":{"s":{"value":"tab\there \"quoted\" back\\slash new\nline cr\r ctl\u0001 é 日本 🎉 \u007f","type":"STRING"},"sl":{"value":["é\\","\"\n"],"type":"STRING_LIST"}}}"#,
            #"{"recordName":"secret","recordType":"Kinds","fields":{"es":{"value":"s \"q\" é","type":"STRING","isEncrypted":true},"eb":{"value":"3q2+7wABAgP/","type":"ENCRYPTED_BYTES"},"eloc":{"value":{"latitude":1.25,"longitude":2.5},"type":"LOCATION","isEncrypted":true},"et":{"value":1700000000123,"type":"TIMESTAMP","isEncrypted":true}}}"#,
            #"{"recordName":"ranked","recordType":"Kinds","fields":{"type":{"value":"first","type":"STRING"},"value":{"value":2,"type":"INT64"},"a":{"value":"b","type":"STRING"}}}"#,
            #"{"recordName":"gone","recordType":"Kinds","fields":{"s":{"value":"x","type":"STRING"}}}"#,
            #"{"recordName":"back","recordType":"Kinds","fields":{"s":{"value":"first","type":"STRING"}}}"#,
            #"{"recordName":"small","recordType":"Note","fields":{"title":{"value":"A \"b\"\tc","type":"STRING"}}}"#,
        ]
        try s.write(records.joined(separator: "\n") + "\n", to: "records.jsonl")
        let saved = try s.ck("-z", "Z", "record", "save", "--batch", "records.jsonl", "-q")
        #expect(saved.status == 0, "\(saved.stderr)")
        try s.write("cat bytes", to: "cat.png")
        #expect(try s.ck("-z", "Z", "record", "save", "Pet", "--name", "pet", "photo:asset=@cat.png", "name=Tom").status == 0)
        #expect(try s.ck("-z", "Z", "record", "save", "Kinds", "--name", "child", "--parent", "all", "s=kid").status == 0)
        #expect(try s.ck("-z", "Z", "record", "delete", "gone", "back").status == 0)
        #expect(try s.ck("-z", "Z", "record", "save", "Kinds", "--name", "back", "s=second").status == 0)
        return s
    }

    /// Times and user ids differ from run to run; everything else is compared byte for byte.
    static func normalized(_ text: String) -> String {
        text.replacingOccurrences(of: #""timestamp":\s*\d+"#, with: #""timestamp":<ms>"#, options: .regularExpression)
            .replacingOccurrences(of: #"_[0-9a-f]{32}"#, with: "<user>", options: .regularExpression)
    }

    @Test func everyFormatMatchesTheDecodingPath() throws {
        let s = try Self.seeded()
        for format in ["json", "jsonl", "plain", "name"] {
            for limit in [[], ["--limit", "3"]] {
                let args = ["-z", "Z", "changes", "zone", "-o", format] + limit
                let fast = try s.run(args)
                #expect(fast.status == 0, "\(fast.stderr)")
                let folded = try s.run(args, env: ["CK_INDEX": "off"])
                #expect(folded.status == 0, "\(folded.stderr)")
                #expect(fast.stdout == folded.stdout, "\(args): from the log's bytes\n\(fast.stdout)\ndecoded\n\(folded.stdout)")
            }
        }
        // Every field asked for by --keys: decoded through the index, the same records.
        let keys = "s,i,d,t,sl,il,tl,dl,loc,r,rl,b,el,es,eb,eloc,et,type,value,a,title,n,photo,name"
        for format in ["json", "jsonl", "plain"] {
            let fast = try s.ck("-z", "Z", "changes", "zone", "-o", format)
            let decoded = try s.ck("-z", "Z", "changes", "zone", "-o", format, "--keys", keys)
            #expect(fast.stdout == decoded.stdout, "-o \(format): from the log's bytes\n\(fast.stdout)\ndecoded\n\(decoded.stdout)")
        }
    }

    @Test func handWrittenLines() throws {
        let s = try Self.seeded()
        let jsonl = Self.normalized(try s.ck("-z", "Z", "changes", "zone", "-o", "jsonl").stdout).split(separator: "\n").map(String.init)
        let stamp = #"{"deviceID":"ck","timestamp":<ms>,"userRecordName":"<user>"}"#
        let zone = #""zoneID":{"zoneName":"Z","ownerRecordName":"<user>","zoneType":"REGULAR_CUSTOM_ZONE"}"#
        #expect(jsonl.contains(#"{"recordName":"esc","recordType":"Kinds","recordChangeTag":"3","deleted":false,"fields":{"s":{"value":"tab\there \"quoted\" back\\slash new\nline cr\r ctl\u0001 é 日本 🎉 "# + "\u{7f}" + #"","type":"STRING"},"sl":{"value":["é\\","\"\n"],"type":"STRING_LIST"}},"created":"# + stamp + #","modified":"# + stamp + "," + zone + "}"),
                "\(jsonl)")
        #expect(jsonl.contains(#"{"recordName":"child","recordType":"Kinds","recordChangeTag":"a","deleted":false,"fields":{"s":{"value":"kid","type":"STRING"}},"created":"# + stamp + #","modified":"# + stamp + "," + zone + #","parent":{"recordName":"all"}}"#),
                "\(jsonl)")
        #expect(jsonl.contains(#"{"recordName":"gone","recordType":"Kinds","deleted":true,"zoneID":{"zoneName":"Z","ownerRecordName":"<user>","zoneType":"REGULAR_CUSTOM_ZONE"}}"#), "\(jsonl)")
        #expect(jsonl.first?.hasPrefix(#"{"recordName":"all","#) == true && jsonl.last?.hasPrefix(#"{"moreComing":false,"syncToken":""#) == true)

        let plain = try s.ck("-z", "Z", "changes", "zone", "-o", "plain").stdout.split(separator: "\n").map(String.init)
        #expect(plain.contains("saved\tesc\tKinds\t3\tZ\ts=tab\\there \"quoted\" back\\\\slash new\\nline cr\\r ctl\u{1} é 日本 🎉 \u{7f}\tsl=[é\\\\, \"\\n]"), "\(plain)")
        #expect(plain.contains("saved\tall\tKinds\t2\tZ\tb=aGk=\td=3.25\tdl=[1.5, 2.0]\tel=[]\ti=-42\til=[1, -2, 300]\tloc=37.33,-122.03\tr=esc (DELETE_SELF)\trl=[x, y]\ts=hello\tsl=[a, b\\tc, ]\tt=2023-11-14T22:13:20.123Z\ttl=[1970-01-01T00:00:00.000Z, 2023-11-14T22:13:20.000Z]"), "\(plain)")
        #expect(plain.contains("deleted\tgone\tKinds"), "\(plain)")
        #expect(plain.contains("saved\tback\tKinds\td\tZ\ts=second"), "\(plain)")

        let json = Self.normalized(try s.ck("-z", "Z", "changes", "zone", "-o", "json").stdout)
        let child = """
                {
                  "recordName": "child",
                  "recordType": "Kinds",
                  "recordChangeTag": "a",
                  "deleted": false,
                  "fields": {
                    "s": {
                      "value": "kid",
                      "type": "STRING"
                    }
                  },
                  "created": {
                    "deviceID": "ck",
                    "timestamp":<ms>,
                    "userRecordName": "<user>"
                  },
            """
        #expect(json.contains(child), "\(json)")
        #expect(json.contains(#""fields": {},"#) == false && json.contains(#""value": [],"#), "an empty list stays on one line: \(json)")
    }

    /// Lines edited by hand into text that decodes to the same record but is not what ck writes (an escape ck does
    /// not write, a space, `-0`, `1.0` for an integer, a string in a list of integers, fields out of order) are
    /// caught: the index sees the log changed, and each such line is decoded and written again as ck writes it,
    /// in every format.
    @Test func handEditedLinesAreDecoded() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Z").status == 0)
        let records = [
            #"{"recordName":"e1","recordType":"T","fields":{"s":{"value":"café","type":"STRING"}}}"#,
            #"{"recordName":"e2","recordType":"T","fields":{"s":{"value":"a/b","type":"STRING"}}}"#,
            #"{"recordName":"e3","recordType":"T","fields":{"s":{"value":"x\u001fy","type":"STRING"}}}"#,
            #"{"recordName":"e4","recordType":"T","fields":{"i":{"value":5,"type":"INT64"}}}"#,
            #"{"recordName":"e5","recordType":"T","fields":{"tl":{"value":[1700000000000,0],"type":"TIMESTAMP_LIST"}}}"#,
            #"{"recordName":"e6","recordType":"T","fields":{"t":{"value":1600000000000,"type":"TIMESTAMP"}}}"#,
            #"{"recordName":"e7","recordType":"T","fields":{"a":{"value":"1","type":"STRING"},"b":{"value":"2","type":"STRING"}}}"#,
            #"{"recordName":"e8","recordType":"T","fields":{"il":{"value":[7,8],"type":"INT64_LIST"}}}"#,
            #"{"recordName":"ok","recordType":"T","fields":{"s":{"value":"日本 \"q\" \\ é","type":"STRING"},"sl":{"value":["ü","\t"],"type":"STRING_LIST"}}}"#,
        ]
        try s.write(records.joined(separator: "\n") + "\n", to: "records.jsonl")
        #expect(try s.ck("-z", "Z", "record", "save", "--batch", "records.jsonl", "-q").status == 0)
        // Read once through the index, so it holds the log as ck wrote it.
        let before = try s.ck("-z", "Z", "changes", "zone", "-o", "jsonl")
        #expect(before.status == 0 && before.stdout.contains(#""value":"café""#), "\(before.stdout)")

        let path = StorePaths.zoneLog(s, "Z")
        var log = try String(contentsOfFile: path, encoding: .utf8)
        let edits = [
            (#"{"value":"café","#, #"{"value":"caf\u00e9","#),
            (#"{"value":"a/b","#, #"{"value":"a\/b","#),
            (#"{"value":"x\u001fy","#, #"{"value":"x\u001Fy","#),
            (#"{"value":5,"#, #"{"value": 5,"#),
            (#"{"value":[1700000000000,0],"#, #"{"value":[1700000000000,-0],"#),
            (#"{"value":1600000000000,"#, #"{"value":1600000000000.0,"#),
            (#""a":{"value":"1","type":"STRING"},"b":{"value":"2","type":"STRING"}"#, #""b":{"value":"2","type":"STRING"},"a":{"value":"1","type":"STRING"}"#),
            (#"{"value":[7,8],"type":"INT64_LIST"}"#, #"{"value":[7,"8"],"type":"INT64_LIST"}"#),
        ]
        for (old, new) in edits {
            #expect(log.contains(old), "the log has no \(old): \(log)")
            log = log.replacingOccurrences(of: old, with: new)
        }
        try log.write(toFile: path, atomically: false, encoding: .utf8)

        for format in ["json", "jsonl", "plain", "name"] {
            let args = ["-z", "Z", "changes", "zone", "-o", format]
            let fast = try s.run(args)
            let folded = try s.run(args, env: ["CK_INDEX": "off"])
            #expect(fast.status == 0 && folded.status == 0 && fast.stdout == folded.stdout,
                    "\(args): through the index\n\(fast.stdout)\(fast.stderr)\nfolded\n\(folded.stdout)\(folded.stderr)")
        }
        // Written as ck writes them, not as they were edited.
        let jsonl = try s.ck("-z", "Z", "changes", "zone", "-o", "jsonl").stdout
        for text in [#""value":"café""#, #""value":"a/b""#, #""value":"x\u001fy""#, #""value":5,"#,
                     #""value":[1700000000000,0],"#, #""value":1600000000000,"#, #""value":[7,8],"#,
                     #""fields":{"a":{"value":"1","type":"STRING"},"b":{"value":"2","type":"STRING"}}"#,
                     #""value":"日本 \"q\" \\ é""#] {
            #expect(jsonl.contains(text), "no \(text) in\n\(jsonl)")
        }
        for text in [#"\u00e9"#, #"\/"#, #"\u001F"#, #": 5"#, "-0]", ".0,", #"[7,"8"]"#] { #expect(!jsonl.contains(text), "\(text) in\n\(jsonl)") }
        let plain = try s.ck("-z", "Z", "changes", "zone", "-o", "plain").stdout.split(separator: "\n").map(String.init)
        for (name, fields) in [("e1", "s=café"), ("e5", "tl=[2023-11-14T22:13:20.000Z, 1970-01-01T00:00:00.000Z]"),
                               ("e6", "t=2020-09-13T12:26:40.000Z"), ("e8", "il=[7, 8]"), ("e7", "a=1\tb=2"), ("ok", "s=日本 \"q\" \\\\ é\tsl=[ü, \\t]")] {
            #expect(plain.contains { $0.hasPrefix("saved\t\(name)\tT\t") && $0.hasSuffix("\tZ\t" + fields) }, "\(name): \(fields) in\n\(plain)")
        }
    }

    /// The static release build `.ci/run` makes before the tests (instructions of a debug build say nothing about
    /// the shipped one); nil when it was not built.
    static let releaseBinary: String? = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let p = root.appendingPathComponent(".build/release/ck").path
        return FileManager.default.isExecutableFile(atPath: p) ? p : nil
    }()

    /// What the change is for: a change written from its log line costs a fraction of one decoded into a record and
    /// rendered again. Instructions counted by callgrind (not time), per change: the difference between a feed of
    /// 400 and one of 100 changes, so start-up cancels out. `--keys` naming every field takes the decoding path.
    @Test(RequiredTool.needed("valgrind"),
          .enabled(if: RequiredTool.inCI || releaseBinary != nil, "needs the static release build (.ci/run makes it)"))
    func aChangeCostsAFractionOfDecodingIt() throws {
        let valgrind = try RequiredTool.require("valgrind")
        let ck = try #require(Self.releaseBinary, "build it: swift build -c release -Xswiftc -static-executable --product ck")
        let s = try Sandbox()
        var lines: [String] = []
        for i in 0..<400 {
            let body = String(repeating: "lorem ipsum dolor sit amet ", count: 8)
            lines.append(#"{"recordName":"note-\#(i)","recordType":"Note","fields":{"title":{"value":"Title \#(i)","type":"STRING"},"body":{"value":"\#(body)","type":"STRING"},"date":{"value":\#(1_600_000_000_000 + i),"type":"TIMESTAMP"},"priority":{"value":\#(i % 100),"type":"INT64"},"tags":{"value":["a","b"],"type":"STRING_LIST"}}}"#)
        }
        try s.write(lines.joined(separator: "\n") + "\n", to: "notes.jsonl")
        #expect(try s.run(["zone", "create", "Z"], program: ck).status == 0)
        #expect(try s.run(["-z", "Z", "record", "save", "--batch", "notes.jsonl", "-q"], program: ck).status == 0)
        let keys = ["--keys", "title,body,date,priority,tags"]
        #expect(try s.run(["-z", "Z", "changes", "zone"], program: ck).stdout == (try s.run(["-z", "Z", "changes", "zone"] + keys, program: ck)).stdout)
        func instructions(_ args: [String]) throws -> Double {
            try s.callgrind(["-z", "Z", "changes", "zone"] + args, ck: ck, valgrind: valgrind).instructions
        }
        // Decoded, a change of this size costs about 53 k instructions plain and 135 k as jsonl (both paths decode
        // the same: the ratio is about 1 without the bytes path). From its bytes, measured on the static build: plain
        // 28.8 k (0.54) and jsonl 24.0 k (0.18) with the scan that kept each field's place in arrays and a `String`
        // made of each page; 20.6 k (0.39) and 16.0 k (0.12) with the scan that keeps only where the fields are and
        // the page written as bytes (docs/performance.md, "2026-12-05: the change feed's scan and its output").
        for (format, bound) in [("plain", 0.45), ("jsonl", 0.15)] {
            let format = ["-o", format]
            let fromBytes = (try instructions(["--limit", "400"] + format) - (try instructions(["--limit", "100"] + format))) / 300
            let decoded = (try instructions(["--limit", "400"] + format + keys) - (try instructions(["--limit", "100"] + format + keys))) / 300
            #expect(fromBytes < decoded * bound,
                    "\(format): instructions a change: \(Int(fromBytes)) from the log's bytes, \(Int(decoded)) decoded (at most \(bound) of it)")
        }
    }
}
