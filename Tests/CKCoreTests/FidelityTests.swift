import Foundation
import Synchronization
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKSchema
@testable import CKQuery
@testable import CKStorage
@testable import CKServer
@testable import CKSync
@testable import CKDataModel

/// Encrypted values, names, parents, assets and limits as CloudKit has them (issue 14). Expected values
/// are written by hand from reference cloudkit.md §2, §5, §6, §9, §10, §17 and ckdb.md.
@Suite struct FidelityTests {
    static let assetBytes: [UInt8] = Array("asset bytes\n".utf8)
    static var assetHash: String { SHA256.hex(assetBytes) }

    /// Every field type, plain and encrypted, in the Web Services forms: the expected answer for each field.
    static var fields: [(key: String, sent: String, answered: String)] {
        let checksum = Data(FieldValue.hexBytes(assetHash)).base64EncodedString()
        let asset = #"{"fileChecksum":"\#(checksum)","size":12,"sha256":"\#(assetHash)"}"#
        let plain: [(String, String)] = [
            ("s", #"{"value":"hello world","type":"STRING"}"#),
            ("i", #"{"value":9007199254740993,"type":"INT64"}"#),
            ("d", #"{"value":2.5,"type":"DOUBLE"}"#),
            ("t", #"{"value":1700000000123,"type":"TIMESTAMP"}"#),
            ("b", #"{"value":"AAEC/w==","type":"BYTES"}"#),
            ("r", #"{"value":{"recordName":"target","action":"NONE"},"type":"REFERENCE"}"#),
            ("a", #"{"value":\#(asset),"type":"ASSETID"}"#),
            ("l", #"{"value":{"latitude":1.5,"longitude":-2.25},"type":"LOCATION"}"#),
            ("sl", #"{"value":["a","b"],"type":"STRING_LIST"}"#),
            ("il", #"{"value":[1,-2],"type":"INT64_LIST"}"#),
            ("dl", #"{"value":[0.5],"type":"DOUBLE_LIST"}"#),
            ("tl", #"{"value":[0,86400000],"type":"TIMESTAMP_LIST"}"#),
            ("bl", #"{"value":["AA==","//8="],"type":"BYTES_LIST"}"#),
            ("rl", #"{"value":[{"recordName":"target","action":"NONE"}],"type":"REFERENCE_LIST"}"#),
            ("al", #"{"value":[\#(asset)],"type":"ASSETID_LIST"}"#),
            ("ll", #"{"value":[{"latitude":-89.5,"longitude":179.5}],"type":"LOCATION_LIST"}"#),
        ]
        var out = plain.map { (key: $0.0, sent: $0.1, answered: $0.1) }
        // Apple's documented form: "isEncrypted": true beside the normal type.
        let encrypted: [(String, String)] = [
            ("es", #"{"value":"secret words","type":"STRING","isEncrypted":true}"#),
            ("ei", #"{"value":-42,"type":"INT64","isEncrypted":true}"#),
            ("ed", #"{"value":0.125,"type":"DOUBLE","isEncrypted":true}"#),
            ("et", #"{"value":1600000000000,"type":"TIMESTAMP","isEncrypted":true}"#),
            ("el", #"{"value":{"latitude":10.25,"longitude":20.5},"type":"LOCATION","isEncrypted":true}"#),
            ("esl", #"{"value":["x","y"],"type":"STRING_LIST","isEncrypted":true}"#),
            // Apple's apps on the wire: ENCRYPTED_BYTES, base64.
            ("eb", #"{"value":"3q2+7wABAgP/","type":"ENCRYPTED_BYTES"}"#),
        ]
        out += encrypted.map { (key: $0.0, sent: $0.1, answered: $0.1) }
        // Encrypted bytes in the documented form are answered in the wire form, same bytes.
        out.append((key: "eb2", sent: #"{"value":"AQID","type":"BYTES","isEncrypted":true}"#,
                    answered: #"{"value":"AQID","type":"ENCRYPTED_BYTES"}"#))
        return out
    }

    static func saveAll(_ db: CKDatabase, zone: String = Names.defaultZoneName) throws -> Record {
        let fieldsJSON = "{" + fields.map { "\"\($0.key)\":\($0.sent)" }.joined(separator: ",") + "}"
        let line = #"{"recordName":"all","recordType":"Every","fields":\#(fieldsJSON)}"#
        let target = RecordOperation.save(recordType: "Every", recordName: "target", fields: [:], ifTag: nil, policy: nil)
        let op = try RecordOperation(json: try JSON.parse(line), path: "line 1", policy: nil)
        let result = try db.modify([target, op], zone: zone, stagedAssets: [assetHash: assetBytes])
        for r in result.results { if let e = r.error { throw e } }
        return try db.fetchOne("all", zone: zone)
    }

    @Test func everyTypePlainAndEncryptedRoundTrips() throws {
        let t = try TempStore()
        let db = try t.db()
        let fetched = try Self.saveAll(db)
        let answer = fetched.json()
        for f in Self.fields {
            #expect(answer["fields"]?[f.key] == (try JSON.parse(f.answered)), "\(f.key): \(answer["fields"]?[f.key]?.serialized() ?? "missing")")
        }
        #expect(fetched.fields["eb"] == .encrypted(.bytes([0xDE, 0xAD, 0xBE, 0xEF, 0, 1, 2, 3, 0xFF])))
        #expect(fetched.fields["es"]?.isEncrypted == true && fetched.fields["s"]?.isEncrypted == false)
        // On disk, byte for byte in the zone log.
        let log = t.read(db.env.logPath(database: .private, zone: fetched.zoneID))
        for f in Self.fields where f.key.hasPrefix("e") {
            #expect(log.contains("\"\(f.key)\":\(f.answered)"), "\(f.key) not in the log as \(f.answered)")
        }

        // Queries go around encrypted fields: plain ones work, encrypted ones are refused by name.
        #expect(try db.query(QueryRequest(recordType: "Every", predicate: "s == 'hello world'")).records.map(\.recordName) == ["all"])
        #expect(try db.query(QueryRequest(recordType: "Every", predicate: "i == 9007199254740993")).records.map(\.recordName) == ["all"])
        for predicate in ["es == 'secret words'", "ei > 0", "ed > 0", "esl CONTAINS 'x'"] {
            let e = ckError { _ = try db.query(QueryRequest(recordType: "Every", predicate: predicate)) }
            #expect(e?.code == .invalidArguments && e?.reason.contains("is encrypted") == true && e?.hint != nil, "\(predicate): \(e?.reason ?? "no error")")
        }
        let sort = ckError { _ = try db.query(QueryRequest(recordType: "Every", sort: [QuerySort("ei")])) }
        #expect(sort?.reason.contains("Field 'ei' is encrypted") == true)
        let filter = ckError { _ = try db.query(QueryRequest(recordType: "Every", filters: [QueryFilter(field: "es", comparator: .EQUALS, value: .string("x"))])) }
        #expect(filter?.reason.contains("Field 'es' is encrypted") == true)
        // Token search reads plain strings only: "secret" is only in an encrypted field.
        #expect(try db.query(QueryRequest(recordType: "Every", predicate: "self CONTAINS 'secret'")).records.isEmpty)
        #expect(try db.query(QueryRequest(recordType: "Every", predicate: "self CONTAINS 'hello'")).records.map(\.recordName) == ["all"])

        // Export: encrypted fields as ENCRYPTED <type> without options, LOCATION indexed as real exports show,
        // ASSET and LIST<ASSET> without options; the text parses back to the same schema and validates.
        let schema = try t.store.container().schema(.development)
        let text = CKDB.print(schema)
        // Names are padded to the longest name, "___modifiedBy" with its quotes (15), plus one.
        for (name, type) in [("es", "ENCRYPTED STRING"), ("ei", "ENCRYPTED INT64"), ("eb", "ENCRYPTED BYTES"),
                             ("eb2", "ENCRYPTED BYTES"), ("el", "ENCRYPTED LOCATION"), ("esl", "LIST<ENCRYPTED STRING>"),
                             ("ed", "ENCRYPTED DOUBLE"), ("et", "ENCRYPTED TIMESTAMP"), ("l", "LOCATION QUERYABLE SORTABLE"),
                             ("a", "ASSET"), ("al", "LIST<ASSET>")] {
            let line = "        " + name.padding(toLength: 16, withPad: " ", startingAt: 0) + type + ",\n"
            #expect(text.contains(line), "missing '\(line)' in\n\(text)")
        }
        let back = try CKDB.parse(text, file: "export.ckdb")
        #expect(back.recordTypes["Every"] == schema.recordTypes["Every"])
        try back.validateIndexes(file: "export.ckdb")

        // Fixtures carry them unchanged into another store.
        let doc = try t.store.container().exportFixtures(.development, as: try Caller.user("default"))
        let other = try TempStore()
        _ = try other.store.container().importFixtures(doc, into: .development, as: try Caller.user("default"), replace: true, label: "fixture.json")
        #expect(try other.db().fetchOne("all").json()["fields"] == answer["fields"])
    }

    @Test func encryptedFromTheCommandLineSpellings() throws {
        let t = try TempStore()
        let db = try t.db()
        var inputs: [String: FieldInput] = [:]
        inputs["secret"] = .text("pin 1234", type: .string, action: nil, encrypted: true)
        inputs["count"] = .text("7", type: .int64, action: nil, encrypted: true)
        inputs["blob"] = .text("AQI=", type: .bytes, action: nil, encrypted: true)
        inputs["tags"] = .text("a,b", type: FieldType(.string, list: true), action: nil, encrypted: true)
        let op = RecordOperation.save(recordType: "Vault", recordName: "v1", fields: inputs, ifTag: nil, policy: nil)
        #expect(try db.modify([op]).failures.isEmpty)
        let r = try db.fetchOne("v1")
        #expect(r.fields["secret"] == .encrypted(.string("pin 1234")))
        #expect(r.fields["count"] == .encrypted(.int64(7)))
        #expect(r.fields["blob"] == .encrypted(.bytes([1, 2])))
        #expect(r.fields["tags"] == .encrypted(.list(.string, [.string("a"), .string("b")])))
        let vault = try #require(try t.store.container().schema(.development).recordTypes["Vault"])
        #expect(vault.fields["secret"] == FieldSchema(type: .string, encrypted: true))
        // A later untyped value for an encrypted field is encrypted, as encryptedValues[key] = value.
        try db.save("Vault", "v2", ["secret": "other"])
        #expect(try db.fetchOne("v2").fields["secret"] == .encrypted(.string("other")))
    }

    @Test func encryptionRefusals() throws {
        let t = try TempStore()
        let db = try t.db()
        func saveJSON(_ fields: String, name: String = "x") -> CKError? {
            ckError {
                let op = try RecordOperation(json: try JSON.parse(#"{"recordName":"\#(name)","recordType":"Doc","fields":\#(fields)}"#), path: "line", policy: nil)
                if let e = try db.modify([op]).failures.first?.error { throw e }
            }
        }
        // References and assets can't be encrypted: the field, the rule and a hint.
        let ref = saveJSON(#"{"owner":{"value":{"recordName":"a"},"type":"REFERENCE","isEncrypted":true}}"#)
        #expect(ref?.code == .invalidArguments && ref?.reason.contains("fields.owner") == true
                && ref?.reason.contains("REFERENCE field can't be encrypted") == true && ref?.hint != nil)
        let cli = ckError {
            let op = RecordOperation.save(recordType: "Doc", recordName: "y", fields: ["owner": .text("a", type: .reference, action: nil, encrypted: true)], ifTag: nil, policy: nil)
            if let e = try db.modify([op]).failures.first?.error { throw e }
        }
        #expect(cli?.reason.contains("REFERENCE field can't be encrypted") == true)
        #expect(saveJSON(#"{"f":{"value":"x","isEncrypted":"yes"}}"#)?.reason.contains("isEncrypted: expected true or false") == true)
        // A field's encryption is the schema's: plain into encrypted and encrypted into plain are refused.
        #expect(saveJSON(#"{"body":{"value":"plain","type":"STRING"},"secret":{"value":"s","type":"STRING","isEncrypted":true}}"#) == nil)
        let intoPlain = saveJSON(#"{"body":{"value":"s","type":"STRING","isEncrypted":true}}"#, name: "z")
        #expect(intoPlain?.reason.contains("field 'body' of type 'Doc' is STRING, not encrypted") == true)
        let intoEncrypted = saveJSON(#"{"secret":{"value":"s","type":"STRING"}}"#, name: "z")
        #expect(intoEncrypted?.reason.contains("is ENCRYPTED STRING") == true && intoEncrypted?.hint?.contains("encrypted_string") == true)
        // Apple's apps send every encrypted field as ENCRYPTED_BYTES: an ENCRYPTED STRING field takes the ciphertext.
        #expect(saveJSON(#"{"secret":{"value":"q83v","type":"ENCRYPTED_BYTES"}}"#, name: "c") == nil)
        #expect(try db.fetchOne("c").fieldJSONText("secret") == #"{"value":"q83v","type":"ENCRYPTED_BYTES"}"#)
        #expect(saveJSON(#"{"body":{"value":"q83v","type":"ENCRYPTED_BYTES"}}"#, name: "c2")?.reason.contains("STRING, not encrypted") == true)
        // A .ckdb can't index an encrypted field, and can't encrypt a REFERENCE.
        let indexed = try CKDB.parse("DEFINE SCHEMA\nRECORD TYPE A (\n  s ENCRYPTED STRING QUERYABLE\n);\n", file: "a.ckdb")
        #expect(ckError { try indexed.validateIndexes(file: "a.ckdb") }?.items.first?.error.reason.contains("ENCRYPTED fields can't be indexed") == true)
        #expect(ckError { _ = try CKDB.parse("DEFINE SCHEMA\nRECORD TYPE A (\n  r ENCRYPTED REFERENCE\n);\n", file: "a.ckdb") } != nil)
        // ck schema index refuses an index on an encrypted field.
        #expect(ckError { _ = try t.store.container().setIndexes(recordType: "Doc", field: "secret", queryable: true, sortable: false, searchable: false, remove: false) } != nil)
        // A subscription can't read an encrypted field either.
        let sub = Subscription(subscriptionID: "s", kind: .query(recordType: "Doc", predicate: "secret == 's'", arguments: [], firesOn: [.create], firesOnce: false, zoneName: nil),
                               notificationInfo: NotificationInfo(alertBody: "x"))
        #expect(ckError { _ = try db.saveSubscription(sub) }?.reason.contains("Field 'secret' is encrypted") == true)
        // Nor can a push carry it: desired keys give the plain fields only.
        let watch = Subscription(subscriptionID: "w", kind: .query(recordType: "Doc", predicate: "body == 'hi'", arguments: [], firesOn: [.create], firesOnce: false, zoneName: nil),
                                 notificationInfo: NotificationInfo(alertBody: "x", desiredKeys: ["body", "secret"]))
        _ = try db.saveSubscription(watch)
        #expect(saveJSON(#"{"body":{"value":"hi"},"secret":{"value":"s","type":"STRING","isEncrypted":true}}"#, name: "w1") == nil)
        #expect(try db.notifications().map(\.recordFields) == [["body": .string("hi")]])
    }

    // MARK: Names

    @Test func webServicesKeysAreOrdinaryFieldNames() throws {
        let t = try TempStore()
        let db = try t.db()
        let line = #"{"recordName":"n","recordType":"Log","created":{"timestamp":1,"userRecordName":"_u"},"fields":{"created":{"value":"yesterday"},"modified":{"value":2},"deleted":{"value":0},"fields":{"value":"f"},"zoneID":{"value":"z"},"recordName":{"value":"inner"}}}"#
        let op = try RecordOperation(json: try JSON.parse(line), path: "line 1", policy: nil)
        #expect(try db.modify([op]).failures.isEmpty)
        let r = try db.fetchOne("n")
        #expect(r.recordName == "n")
        #expect(r.fields["created"] == .string("yesterday") && r.fields["modified"] == .int64(2) && r.fields["deleted"] == .int64(0))
        #expect(r.fields["fields"] == .string("f") && r.fields["zoneID"] == .string("z") && r.fields["recordName"] == .string("inner"))
        // In the record dictionary they sit inside `fields`; the system keys beside it are the record's own.
        let json = r.json()
        #expect(json["fields"]?["created"]?["value"] == .string("yesterday") && json["created"]?["timestamp"] != nil)
        #expect(json["recordName"] == .string("n"))
        // The log reads back the same record.
        #expect(try t.db().fetchOne("n") == r)
        let schema = try CKDB.parse("DEFINE SCHEMA\nRECORD TYPE A (\n  created TIMESTAMP,\n  fields STRING,\n  zoneID STRING\n);\n", file: "a.ckdb")
        #expect(schema.recordTypes["A"]?.fields.keys.sorted() == ["created", "fields", "zoneID"])
        for reserved in ["recordID", "creationDate", "parent", "share", "encryptedValues", "allKeys", "_x"] {
            #expect(ckError { try db.save("Log", "m", [reserved: "v"]) }?.code == .invalidArguments, "\(reserved)")
        }
    }

    // MARK: Parents

    @Test func parentReferences() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Work")
        try db.save("Folder", "root", ["title": "Root"], zone: "Work")
        var child = RecordOperation.save(recordType: "Doc", recordName: "c1", fields: [:], ifTag: nil, policy: nil)
        child.parent = .set("root", zone: nil)
        #expect(try db.modify([child], zone: "Work").failures.isEmpty)
        let saved = try db.fetchOne("c1", zone: "Work")
        #expect(saved.parent == "root")
        #expect(saved.json()["parent"] == .object(["recordName": .string("root")]))
        // An update that does not name the parent keeps it; a replace clears it.
        try db.save("Doc", "c1", ["n": "1"], policy: .changedKeys, zone: "Work")
        #expect(try db.fetchOne("c1", zone: "Work").parent == "root")

        // The parent may be saved later in the same request.
        let line1 = #"{"recordName":"kid","recordType":"Doc","parent":{"recordName":"later"}}"#
        let line2 = #"{"recordName":"later","recordType":"Folder"}"#
        let ops = try [line1, line2].map { try RecordOperation(json: try JSON.parse($0), path: "l", policy: nil) }
        #expect(try db.modify(ops, zone: "Work").failures.isEmpty)
        #expect(try db.fetchOne("kid", zone: "Work").parent == "later")

        func refusal(_ parent: String, zone: String = "Work") -> CKError? {
            ckError {
                let op = try RecordOperation(json: try JSON.parse(#"{"recordName":"bad","recordType":"Doc","parent":\#(parent)}"#), path: "line 3", policy: nil)
                if let e = try db.modify([op], zone: zone).failures.first?.error { throw e }
            }
        }
        let missing = refusal(#"{"recordName":"ghost"}"#)
        #expect(missing?.code == .referenceViolation && missing?.reason.contains("'ghost' does not exist") == true && missing?.hint != nil)
        let otherZone = refusal(#"{"recordName":"root","zoneID":{"zoneName":"_defaultZone"}}"#)
        #expect(otherZone?.code == .invalidArguments && otherZone?.reason.contains("own zone (Work)") == true && otherZone?.hint != nil)
        let action = refusal(#"{"recordName":"root","action":"DELETE_SELF"}"#)
        #expect(action?.reason.contains("must use action NONE") == true && action?.hint != nil)
        #expect(refusal(#"{"recordName":"bad"}"#)?.reason.contains("its own parent") == true)
        // A parent in the default zone is not found from Work.
        try db.save("Folder", "home", [:])
        #expect(refusal(#"{"recordName":"home"}"#)?.code == .referenceViolation)

        // Deleting the parent leaves the child (action NONE), still naming it.
        _ = try db.modify([RecordOperation(type: .forceDelete, recordName: "root")], zone: "Work")
        #expect(try db.fetchOne("c1", zone: "Work").parent == "root")
        // `"parent": null` removes it.
        let clear = try RecordOperation(json: try JSON.parse(#"{"recordName":"kid","recordType":"Doc","parent":null}"#), path: "l", policy: .changedKeys)
        #expect(try db.modify([clear], zone: "Work").failures.isEmpty)
        #expect(try db.fetchOne("kid", zone: "Work").parent == nil)
    }

    // MARK: Assets

    @Test func assetReferencesCarryTheirRealSize() throws {
        let t = try TempStore()
        let db = try t.db()
        _ = try Self.saveAll(db)
        func ref(size: Int, name: String = "p") -> CKError? {
            ckError {
                let line = #"{"recordName":"\#(name)","recordType":"Every","fields":{"a":{"value":{"sha256":"\#(Self.assetHash)","size":\#(size)},"type":"ASSETID"}}}"#
                let op = try RecordOperation(json: try JSON.parse(line), path: "line 1", policy: nil)
                if let e = try db.modify([op]).failures.first?.error { throw e }
            }
        }
        #expect(ref(size: 12) == nil)
        let wrong = ref(size: 13, name: "q")
        #expect(wrong?.code == .invalidArguments && wrong?.reason.contains("field 'a'") == true
                && wrong?.reason.contains("size is 13 but its bytes are 12 bytes long") == true && wrong?.hint?.contains("\"size\": 12") == true)
        // No file name is kept: the asset dictionary has checksum and size only.
        let a = try #require(try db.fetchOne("p").json()["fields"]?["a"]?["value"])
        #expect(a == .object(["fileChecksum": .string(Data(FieldValue.hexBytes(Self.assetHash)).base64EncodedString()),
                              "size": .int(12), "sha256": .string(Self.assetHash)]))
        // An old log line with a fileName still reads; the name is dropped.
        let old = try FieldValue.from(fieldJSON: try JSON.parse(#"{"value":{"sha256":"\#(Self.assetHash)","size":12,"fileName":"../../etc/passwd"},"type":"ASSETID"}"#), declared: nil, path: "f")
        #expect(old == .asset(Asset(sha256: Self.assetHash, size: 12)))
        // Fetch answers a downloadURL: a file URL of the bytes in the store.
        let url = try #require(db.responseJSON(try db.fetchOne("p"))["fields"]?["a"]?["value"]?["downloadURL"]?.stringValue)
        #expect(url.hasPrefix("file:///") && url.hasSuffix("/assets/" + Self.assetHash))
        let bytes = try Data(contentsOf: try #require(URL(string: url)))
        #expect([UInt8](bytes) == Self.assetBytes)
        #expect(try db.asset(recordName: "p", field: "a").bytes == Self.assetBytes)
        #expect(try db.asset(recordName: "all", field: "al", index: 0).bytes == Self.assetBytes)
        #expect(ckError { _ = try db.asset(recordName: "all", field: "al") }?.hint?.contains("--index") == true)
        #expect(ckError { _ = try db.asset(recordName: "all", field: "s") }?.reason.contains("not an asset") == true)
    }

    @Test func assetOver50MBIsRefusedWithoutReadingIt() throws {
        let t = try TempStore()
        // A sparse 2 GiB file: reading it would take seconds and 2 GiB of memory.
        let path = t.dir + "/huge.bin"
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 2 << 30)
        try handle.close()
        // The directory's own size check, with a reader that records whether it was ever asked for the bytes.
        let directory = FileSource.directory(t.dir)
        let reads = Mutex<[String]>([])
        var parser = ValueParser(files: FileSource(read: { (file: String, path: String) throws(CKError) -> [UInt8] in
            reads.withLock { $0.append(file) }
            return try directory.read(file, path)
        }, size: directory.size))
        let e = ckError { _ = try parser.parse("@huge.bin", as: .asset, path: "fields.video") }
        #expect(e?.code == .limitExceeded && e?.reason.contains("fields.video") == true && e?.reason.contains("52428800") == true)
        #expect(reads.withLock { $0 }.isEmpty, "the 2 GiB file was read")
        // One byte over 50 MB is refused too; a small file is taken.
        let edge = t.dir + "/edge.bin"
        #expect(FileManager.default.createFile(atPath: edge, contents: nil))
        let h2 = try FileHandle(forWritingTo: URL(fileURLWithPath: edge))
        try h2.truncate(atOffset: UInt64(CKDatabase.maxAssetSize) + 1)
        try h2.close()
        #expect(ckError { _ = try parser.parse("@edge.bin", as: .asset, path: "f") }?.code == .limitExceeded)
        try Data(Self.assetBytes).write(to: URL(fileURLWithPath: t.dir + "/small.bin"))
        #expect(try parser.parse("@small.bin", as: .asset, path: "f") == .asset(Asset(sha256: Self.assetHash, size: 12)))
        #expect(reads.withLock { $0 } == ["small.bin"])
    }

    // MARK: Limits

    @Test func deleteSelfReferencesToOneTargetStopAt750() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Owner", "boss", [:])
        func ops(_ range: Range<Int>) -> [RecordOperation] {
            range.map { RecordOperation.save(recordType: "Item", recordName: "i\($0)", fields: ["owner": .text("boss", type: .reference, action: .deleteSelf)], ifTag: nil, policy: nil) }
        }
        for start in stride(from: 0, to: 750, by: 150) {
            #expect(try db.modify(ops(start..<start + 150)).failures.isEmpty)
        }
        let e = try db.modify(ops(750..<751)).failures.first?.error
        #expect(e?.code == .limitExceeded && e?.reason.contains("'boss' already has 750 DELETE_SELF references") == true && e?.hint != nil)
        // Saving one of the 750 again is not a new reference; action NONE is not counted.
        #expect(try db.modify(ops(3..<4).map { var o = $0; o.type = .forceUpdate; return o }).failures.isEmpty)
        #expect(try db.modify([RecordOperation.save(recordType: "Item", recordName: "free", fields: ["owner": .text("boss", type: .reference, action: Reference.Action.none)], ifTag: nil, policy: nil)]).failures.isEmpty)
    }

    @Test func requestsOver2MBOfRecordDataAreRefused() throws {
        let t = try TempStore()
        let db = try t.db()
        let body = String(repeating: "x", count: 800_000)
        func ops(_ n: Int, prefix: String) -> [RecordOperation] {
            (0..<n).map { RecordOperation.save(recordType: "Blob", recordName: "\(prefix)\($0)", fields: ["body": .text(body, type: nil, action: nil)], ifTag: nil, policy: nil) }
        }
        #expect(try db.modify(ops(2, prefix: "ok")).failures.isEmpty)
        let e = ckError { _ = try db.modify(ops(3, prefix: "big")) }
        #expect(e?.code == .limitExceeded && e?.reason.contains("2097152 bytes (2 MB) per request") == true && e?.hint?.contains("split") == true)
        #expect(ckError { _ = try db.fetchOne("big0") }?.code == .unknownItem)
    }

    @Test func justInTimeIndexes() throws {
        let t = try TempStore()
        let db = try t.db()
        db.files = .directory(t.dir)
        try Data(Self.assetBytes).write(to: URL(fileURLWithPath: t.dir + "/a.txt"))
        let op = RecordOperation.save(recordType: "Place", recordName: "p", fields: ["where": .text("1,2", type: .location, action: nil),
                                                                                      "scans": .text("@a.txt", type: FieldType(.asset, list: true), action: nil)],
                                      ifTag: nil, policy: nil)
        #expect(try db.modify([op]).failures.isEmpty)
        let place = try #require(try t.store.container().schema(.development).recordTypes["Place"])
        #expect(place.fields["where"] == FieldSchema(type: .location, queryable: true, sortable: true))
        #expect(place.fields["scans"] == FieldSchema(type: FieldType(.asset, list: true)))
        try t.store.container().schema(.development).validateIndexes(file: "export")
    }
}

extension Record {
    /// One field's Web Services dictionary as compact text.
    func fieldJSONText(_ key: String) -> String? { json()["fields"]?[key]?.serialized() }
}
