import Foundation
import Testing
import CKModel

/// Issue 14 through the binary: encrypted values, names, parents, assets and limits as CloudKit has them.
@Suite struct FidelityEndToEndTests {
    /// A failed item in `-o json`'s `errors` carries the CKError's name and number, as the stderr error does.
    @Test func perItemErrorsCarryTheNumericCode() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "a", "t=1").status == 0)
        let conflict = try s.ck("record", "save", "Note", "--name", "a", "t=2", "--if-tag", "9", "-o", "json")
        #expect(conflict.status != 0)
        let doc = try JSON.parse(utf8: Array(conflict.stdout.utf8))
        let item = try #require(doc["errors"]?.arrayValue?.first, "\(conflict.stdout)")
        #expect(item["ckErrorCode"] == .string("serverRecordChanged"))
        #expect(item["code"] == .int(14))
        #expect(item["serverErrorCode"] == .string("CONFLICT"))
        #expect(conflict.stderr.contains(#""code":14"#), "\(conflict.stderr)")
    }

    @Test func encryptedValuesFromTheCommandLine() throws {
        let s = try Sandbox()
        let saved = try s.ck("record", "save", "Vault", "--name", "v1", "secret:encrypted_string=pin 1234", "pin:encrypted_int64=42",
                             "title=Hi", "-o", "table")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("  pin         42  (ENCRYPTED INT64)\n"), "\(saved.stdout)")
        #expect(saved.stdout.contains("  secret      pin 1234  (ENCRYPTED STRING)\n"), "\(saved.stdout)")
        #expect(saved.stdout.contains("  title       Hi  (STRING)\n"), "\(saved.stdout)")
        let json = try s.ck("record", "fetch", "v1", "-o", "jsonl")
        #expect(json.stdout.contains(#""secret":{"value":"pin 1234","type":"STRING","isEncrypted":true}"#), "\(json.stdout)")
        #expect(json.stdout.contains(#""pin":{"value":42,"type":"INT64","isEncrypted":true}"#), "\(json.stdout)")

        let query = try s.ck("query", "Vault", "secret == 'pin 1234'")
        #expect(query.status == 8)
        #expect(query.stderr.contains("Field 'secret' is encrypted (ENCRYPTED STRING): CloudKit can't query, sort or search encrypted fields"), "\(query.stderr)")
        #expect(query.stderr.contains("hint: "), "\(query.stderr)")
        let sort = try s.ck("query", "Vault", "--sort", "pin")
        #expect(sort.status == 8 && sort.stderr.contains("Field 'pin' is encrypted"), "\(sort.stderr)")

        let export = try s.ck("schema", "export")
        #expect(export.stdout.contains("        pin             ENCRYPTED INT64,\n"), "\(export.stdout)")
        #expect(export.stdout.contains("        secret          ENCRYPTED STRING,\n"), "\(export.stdout)")

        let ref = try s.ck("record", "save", "Vault", "--name", "v2", "owner:encrypted_reference=v1")
        #expect(ref.status == 8)
        #expect(ref.stderr.contains("fields.owner: a REFERENCE field can't be encrypted"), "\(ref.stderr)")
        let bad = try s.ck("record", "save", "Vault", "--name", "v3", "x:encrypted_nope=1")
        #expect(bad.status != 0 && bad.stderr.contains("encrypted_<type>"), "\(bad.stderr)")
    }

    @Test func devicesKeepEncryptionAndParentsThroughSync() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Folder", "--name", "f1").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Vault", "--name", "v1", "--parent", "f1", "secret:encrypted_string=one").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        let edit = try s.ck("device", "save", "phone", "Vault", "--name", "v1", "-z", "Notes", "secret=two")
        #expect(edit.status == 0, "\(edit.stderr)")
        let pushed = try s.ck("sync", "phone")
        #expect(pushed.status == 0, "\(pushed.stderr)")
        let fetched = try s.ck("-z", "Notes", "record", "fetch", "v1", "-o", "jsonl")
        #expect(fetched.stdout.contains(#""secret":{"value":"two","type":"STRING","isEncrypted":true}"#), "\(fetched.stdout)")
        #expect(fetched.stdout.contains(#""parent":{"recordName":"f1"}"#), "\(fetched.stdout)")
    }

    @Test func webServicesEncryptedFormsRoundTripByteForByte() throws {
        let s = try Sandbox()
        let fields = [
            #""eb":{"value":"3q2+7wABAgP/","type":"ENCRYPTED_BYTES"}"#,
            #""es":{"value":"s \"q\" é","type":"STRING","isEncrypted":true}"#,
            #""el":{"value":{"latitude":1.25,"longitude":2.5},"type":"LOCATION","isEncrypted":true}"#,
            #""et":{"value":1700000000123,"type":"TIMESTAMP","isEncrypted":true}"#,
            #""plain":{"value":"AQID","type":"BYTES"}"#,
        ]
        try s.write(#"{"recordName":"w1","recordType":"Wire","fields":{"# + fields.joined(separator: ",") + "}}\n", to: "wire.jsonl")
        let saved = try s.ck("record", "save", "--batch", "wire.jsonl", "-o", "jsonl")
        #expect(saved.status == 0, "\(saved.stderr)")
        let fetched = try s.ck("record", "fetch", "w1", "-o", "jsonl")
        for f in fields { #expect(fetched.stdout.contains(f), "\(f) not in \(fetched.stdout)") }
        // Exported and imported again as fixtures, the record is the same bytes.
        #expect(try s.ck("export", "--file", "f.json").status == 0)
        let other = try Sandbox()
        #expect(try other.run(["import", s.dir + "/f.json"]).status == 0)
        #expect(try other.ck("record", "fetch", "w1", "-o", "jsonl").stdout == fetched.stdout)
    }

    @Test func webServicesKeysAreFieldNames() throws {
        let s = try Sandbox()
        let r = try s.ck("record", "save", "Log", "--name", "l1", "created=yesterday", "fields=f", "zoneID=z", "deleted=0", "-o", "plain")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("\tcreated=yesterday\tdeleted=0\tfields=f\tzoneID=z\n"), "\(r.stdout)")
        let reserved = try s.ck("record", "save", "Log", "--name", "l2", "creationDate=x")
        #expect(reserved.status == 8 && reserved.stderr.contains("field name 'creationDate' is reserved"), "\(reserved.stderr)")
    }

    @Test func parentReferences() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Work").status == 0)
        #expect(try s.ck("-z", "Work", "record", "save", "Folder", "--name", "root").status == 0)
        let child = try s.ck("-z", "Work", "record", "save", "Doc", "--name", "c1", "--parent", "root", "-o", "table")
        #expect(child.status == 0, "\(child.stderr)")
        #expect(child.stdout.contains("\nparent      root\n"), "\(child.stdout)")
        #expect(try s.ck("-z", "Work", "record", "fetch", "c1", "-o", "jsonl").stdout.contains(#""parent":{"recordName":"root"}"#))
        let missing = try s.ck("-z", "Work", "record", "save", "Doc", "--name", "c2", "--parent", "ghost")
        #expect(missing.status == 8)
        #expect(missing.stderr.contains("referenceViolation") && missing.stderr.contains("the parent record 'ghost' does not exist in zone Work"), "\(missing.stderr)")
        #expect(missing.stderr.contains("hint: save 'ghost' first, or in the same request"), "\(missing.stderr)")
        try s.write(#"{"recordName":"c3","recordType":"Doc","parent":{"recordName":"root","action":"DELETE_SELF"}}"# + "\n", to: "p.jsonl")
        let action = try s.ck("-z", "Work", "record", "save", "--batch", "p.jsonl")
        #expect(action.status == 8 && action.stderr.contains("a parent reference must use action NONE"), "\(action.stderr)")
    }

    @Test func assetsGetTheirBytesBackAndKeepNoFileName() throws {
        let s = try Sandbox()
        let bytes = Data((0...255).map { UInt8($0) })
        try bytes.write(to: URL(fileURLWithPath: s.dir + "/holiday-photo.bin"))
        let saved = try s.ck("record", "save", "Doc", "--name", "a1", "photo:asset=@holiday-photo.bin", "-o", "table")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(saved.stdout.contains("(256 bytes)  (ASSETID)"), "\(saved.stdout)")
        let json = try s.ck("record", "fetch", "a1", "-o", "json")
        #expect(!json.stdout.contains("holiday-photo"), "\(json.stdout)")
        #expect(json.stdout.contains(#""downloadURL": "file:///"#), "\(json.stdout)")
        #expect(!s.files(under: s.dir + "/store").contains { $0.contains("holiday") })

        let got = try s.ck("asset", "get", "a1", "photo", "--file", "out.bin")
        #expect(got.status == 0, "\(got.stderr)")
        #expect(got.stdout == "out.bin\n")
        #expect(try Data(contentsOf: URL(fileURLWithPath: s.dir + "/out.bin")) == bytes)
        // To stdout when piped.
        try "text asset\n".write(toFile: s.dir + "/t.txt", atomically: true, encoding: .utf8)
        #expect(try s.ck("record", "save", "Doc", "--name", "a2", "note:asset=@t.txt").status == 0)
        #expect(try s.ck("asset", "get", "a2", "note").stdout == "text asset\n")
        let info = try s.ck("asset", "get", "a2", "note", "-o", "jsonl")
        #expect(info.stdout.contains(#""size":11"#) && info.stdout.contains(#""downloadURL":"file:///"#), "\(info.stdout)")
        let notAsset = try s.ck("asset", "get", "a2", "nothing")
        #expect(notAsset.status == 3 && notAsset.stderr.contains("has no field 'nothing'"), "\(notAsset.stderr)")

        // Over 50 MB: refused from its size, without reading it (a sparse 2 GiB file).
        let big = s.dir + "/big.bin"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let h = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        try h.truncate(atOffset: 2 << 30)
        try h.close()
        let tooBig = try s.ck("record", "save", "Doc", "--name", "a3", "video:asset=@big.bin")
        #expect(tooBig.status == 8)
        #expect(tooBig.stderr.contains("limitExceeded") && tooBig.stderr.contains("fields.video: the asset is 2147483648 bytes"), "\(tooBig.stderr)")

        // A reference whose size disagrees with the bytes is refused with the rule and a hint (a1's own field:
        // naming an asset by hash needs the field to hold it already, or an upload receipt).
        let sha = try #require(json.stdout.components(separatedBy: #""sha256": ""#).dropFirst().first?.prefix(64))
        try s.write(#"{"recordName":"a1","recordType":"Doc","fields":{"photo":{"value":{"sha256":"\#(sha)","size":999},"type":"ASSETID"}}}"# + "\n", to: "a.jsonl")
        let wrong = try s.ck("record", "save", "--batch", "a.jsonl", "--policy", "changed-keys")
        #expect(wrong.status == 8 && wrong.stderr.contains("an asset's size is always its real size") && wrong.stderr.contains("\"size\": 256"), "\(wrong.stderr)")
    }

    @Test func limitsAndServerAnswers() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "title=x").status == 0)
        let unknown = try s.ck("query", "Nope")
        #expect(unknown.status == 3 && unknown.stderr.contains("unknownItem") && unknown.stderr.contains("Did not find record type: Nope"), "\(unknown.stderr)")

        let zone = try s.ck("zone", "create", "Shared", "--zone-wide-sharing", "-o", "table")
        #expect(zone.stdout == "Created zone Shared (capabilities: fetchChanges,atomic,sharing,zoneWideSharing)\n", "\(zone.stdout)")
        #expect(try s.ck("zone", "create", "Plain", "-o", "table").stdout == "Created zone Plain (capabilities: fetchChanges,atomic,sharing)\n")

        // 2 MB of records per request: a batch is split by size, an atomic one is refused.
        let body = String(repeating: "x", count: 700_000)
        let lines = (0..<4).map { #"{"recordName":"b\#($0)","recordType":"Blob","fields":{"body":{"value":"\#(body)"}}}"# }
        try s.write(lines.joined(separator: "\n") + "\n", to: "big.jsonl")
        let split = try s.ck("-z", "Plain", "record", "save", "--batch", "big.jsonl", "-o", "plain")
        #expect(split.status == 0, "\(split.stderr)")
        #expect(split.stderr == "ck: 4 operations: sending 2 requests of at most 200 operations and 2 MB of records (CloudKit's limits per request)\n")
        let atomic = try s.ck("-z", "Plain", "record", "save", "--batch", "big.jsonl", "--atomic", "--policy", "changed-keys")
        #expect(atomic.status == 8 && atomic.stderr.contains("limitExceeded") && atomic.stderr.contains("2 MB"), "\(atomic.stderr)")
    }
}
