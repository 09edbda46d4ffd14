import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKSchema
@testable import CKServer

@Suite struct RecordSaveTests {
    @Test func freshStoreHasDefaultContainer() throws {
        let t = try TempStore()
        #expect(try t.store.containerIDs() == [CKStore.defaultContainerID])
        #expect(try t.store.currentContainerID() == CKStore.defaultContainerID)
        let r = try t.db().save("Note", nil, ["title": "Hello CloudKit"])
        #expect(UUID(uuidString: r.recordName) != nil)
        #expect(r.fields["title"] == .string("Hello CloudKit"))
    }

    @Test func changeTagsAreUniqueAndMove() throws {
        let t = try TempStore()
        let db = try t.db()
        var tags = Set<String>()
        for i in 0..<20 { tags.insert(try db.save("Note", "n\(i % 5)", ["i": "\(i)"], policy: .changedKeys).changeTag) }
        #expect(tags.count == 20)
        let z = try db.createZone("Z")
        #expect(z.created)
        let other = try db.save("Note", "n0", ["i": "1"], zone: "Z")
        #expect(!tags.contains(other.changeTag))
    }

    @Test func createOfExistingNameIsAConflict() throws {
        let t = try TempStore()
        let db = try t.db()
        let first = try db.save("Note", "a", ["title": "one"])
        let e = ckError { try db.save("Note", "a", ["title": "two"]) }
        #expect(e?.code == .serverRecordChanged)
        #expect(e?.serverErrorCode == "EXISTS")
        #expect(e?.details["serverRecord"]?["recordChangeTag"] == .string(first.changeTag))
        #expect(try db.fetchOne("a").fields["title"] == .string("one"))
    }

    @Test func ifServerRecordUnchanged() throws {
        let t = try TempStore()
        let db = try t.db()
        let v1 = try db.save("Note", "a", ["title": "one", "body": "b"])
        let v2 = try db.save("Note", "a", ["title": "two"], ifTag: v1.changeTag)
        #expect(v2.fields["body"] == .string("b"), "an update keeps keys it does not send")
        #expect(v2.created == v1.created)
        #expect(v2.changeTag != v1.changeTag)
        let e = ckError { try db.save("Note", "a", ["title": "stale"], ifTag: v1.changeTag) }
        #expect(e?.code == .serverRecordChanged)
        #expect(e?.serverErrorCode == "CONFLICT")
        #expect(e?.details["serverRecord"]?["fields"]?["title"]?["value"] == .string("two"))
        #expect(e?.details["clientRecord"]?["fields"]?["title"]?["value"] == .string("stale"))
        #expect(e?.details["ancestorRecord"]?["fields"]?["title"]?["value"] == .string("one"))
        #expect(try db.fetchOne("a").fields["title"] == .string("two"))
        #expect(ckError { try db.save("Note", "missing", ["title": "x"], ifTag: "1") }?.code == .unknownItem)
    }

    @Test func policiesOverwriteWithoutTagCheck() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "a", ["title": "one", "body": "keep"])
        let v = try db.save("Note", "a", ["title": "two"], policy: .changedKeys)
        #expect(v.fields == ["title": .string("two"), "body": .string("keep")])
        let w = try db.save("Note", "a", ["title": "three"], policy: .allKeys)
        #expect(w.fields["body"] == .string("keep"))
        let created = try db.save("Note", "new", ["title": "x"], policy: .changedKeys)
        #expect(created.fields["title"] == .string("x"))
    }

    @Test func replaceAndUnset() throws {
        let t = try TempStore()
        let db = try t.db()
        let v1 = try db.save("Note", "a", ["title": "one", "body": "b"])
        var r = try db.modify([RecordOperation(type: .replace, recordName: "a", changeTag: v1.changeTag, fields: ["title": .text("r", type: nil, action: nil)])])
        guard case .saved(let rec) = r.results[0] else { Issue.record("replace failed"); return }
        #expect(rec.fields == ["title": .string("r")])
        r = try db.modify([RecordOperation(type: .forceUpdate, recordName: "a", fields: ["title": .unset])])
        guard case .saved(let rec2) = r.results[0] else { Issue.record("unset failed"); return }
        #expect(rec2.fields.isEmpty)
    }

    @Test func justInTimeSchemaAndTypeMismatch() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "a", ["count": "3", "title": "x", "when": "2026-01-01"])
        let schema = try t.store.container().schema(.development)
        #expect(schema.recordTypes["Note"]?.fields["count"]?.type == .int64)
        #expect(schema.recordTypes["Note"]?.fields["when"]?.type == .timestamp)
        #expect(schema.recordTypes["Note"]?.fields["title"]?.searchable == true)
        #expect(schema.recordTypes["Note"]?.grants == RecordTypeSchema.defaultGrants)
        // Schema typing: "5" into a STRING field stays a string; an explicit mismatch is refused.
        let r = try db.save("Note", "b", ["title": "5"])
        #expect(r.fields["title"] == .string("5"))
        let e = ckError {
            _ = try db.modify([.save(recordType: "Note", recordName: "c", fields: ["count": .text("x", type: .string, action: nil)], ifTag: nil, policy: nil)])
                .results[0].error.map { throw $0 }
        }
        #expect(e?.code == .invalidArguments)
        #expect(e?.reason == "invalid attempt to set value type STRING for field 'count' for type 'Note', defined to be: INT64")
    }

    @Test func productionNeverChangesItsSchema() throws {
        let t = try TempStore()
        let prod = try t.db(.private, .production)
        let e = ckError { try prod.save("Note", "a", ["title": "x"]) }
        #expect(e?.code == .invalidArguments)
        #expect(e?.reason == "Cannot create new type Note in production schema")
        #expect(try t.store.container().schema(.production).recordTypes.isEmpty)
    }

    @Test func limits() throws {
        let t = try TempStore()
        let db = try t.db()
        let big = String(repeating: "x", count: CKDatabase.maxRecordSize + 1)
        #expect(ckError { try db.save("Note", "big", ["body": big]) }?.code == .limitExceeded)
        let ops = (0...200).map { RecordOperation.save(recordType: "Note", recordName: "n\($0)", fields: [:], ifTag: nil, policy: nil) }
        #expect(ckError { _ = try db.modify(ops) }?.code == .limitExceeded)
        #expect(ckError { try db.save("Note", "a", ["recordID": "x"]) }?.code == .invalidArguments)
        #expect(ckError { try db.save("Note", "_a", ["t": "x"]) }?.code == .invalidArguments)
        #expect(ckError { try db.save("Bad Type", "b", ["t": "x"]) }?.code == .invalidArguments)
    }

    @Test func atomicBatchesInAtomicZones() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Z")
        let good = RecordOperation.save(recordType: "Note", recordName: "ok", fields: ["n": .text("1", type: nil, action: nil)], ifTag: nil, policy: nil)
        let bad = RecordOperation.save(recordType: "Note", recordName: "_bad", fields: [:], ifTag: nil, policy: nil)
        let r = try db.modify([good, bad], zone: "Z", atomic: true)
        #expect(r.atomic)
        #expect(r.results[0].error?.code == .batchRequestFailed)
        #expect(r.results[1].error?.code == .invalidArguments)
        #expect(try db.records(zone: "Z").isEmpty)
        #expect(try t.store.container().schema(.development).recordTypes.isEmpty, "nothing written, schema included")
        // Without the capability, atomic has no effect: the good one is saved.
        try db.createZone("Loose", capabilities: [.fetchChanges])
        let r2 = try db.modify([good, bad], zone: "Loose", atomic: true)
        #expect(!r2.atomic)
        #expect(r2.results[0].error == nil)
        #expect(try db.records(zone: "Loose").map(\.recordName) == ["ok"])
    }

    @Test func oneOperationPerRecord() throws {
        let t = try TempStore()
        let op = RecordOperation.save(recordType: "Note", recordName: "a", fields: [:], ifTag: nil, policy: .changedKeys)
        let r = try t.db().modify([op, op])
        #expect(r.results[0].error == nil)
        #expect(r.results[1].error?.code == .invalidArguments)
    }

    @Test func deleteCascadesDeleteSelfReferences() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "parent", ["t": "p"])
        _ = try db.modify([.save(recordType: "Note", recordName: "child", fields: ["owner": .text("parent", type: .reference, action: .deleteSelf)], ifTag: nil, policy: nil)])
        _ = try db.modify([.save(recordType: "Note", recordName: "grandchild", fields: ["owner": .text("child", type: .reference, action: .deleteSelf)], ifTag: nil, policy: nil)])
        _ = try db.modify([.save(recordType: "Note", recordName: "bystander", fields: ["owner": .text("parent", type: .reference, action: Reference.Action.none)], ifTag: nil, policy: nil)])
        let r = try db.modify([RecordOperation(type: .forceDelete, recordName: "parent")])
        // The default zone's cascade runs after the request: its answer names only the parent.
        #expect(r.results.map(\.recordName) == ["parent"])
        #expect(Set(r.removedAfter.map(\.recordName)) == ["child", "grandchild"])
        #expect(try db.records().map(\.recordName) == ["bystander"])
        #expect(ckError { _ = try db.modify([RecordOperation(type: .forceDelete, recordName: "parent")]).results[0].error.map { throw $0 } }?.code == .unknownItem)
    }

    @Test func validateReferencesProtectTheirTarget() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "target", ["t": "x"])
        _ = try db.modify([.save(recordType: "Note", recordName: "source", fields: ["r": .text("target", type: .reference, action: .validate)], ifTag: nil, policy: nil)])
        let r = try db.modify([RecordOperation(type: .forceDelete, recordName: "target")])
        #expect(r.results[0].error?.code == .referenceViolation)
        _ = try db.modify([RecordOperation(type: .forceDelete, recordName: "source")])
        #expect(try db.modify([RecordOperation(type: .forceDelete, recordName: "target")]).results[0].error == nil)
        // A cascade stops at a VALIDATE target too, and then nothing of the delete happens.
        try db.save("Note", "parent", ["t": "p"])
        _ = try db.modify([.save(recordType: "Note", recordName: "child", fields: ["owner": .text("parent", type: .reference, action: .deleteSelf)], ifTag: nil, policy: nil)])
        _ = try db.modify([.save(recordType: "Note", recordName: "watcher", fields: ["r": .text("child", type: .reference, action: .validate)], ifTag: nil, policy: nil)])
        #expect(try db.modify([RecordOperation(type: .forceDelete, recordName: "parent")]).results[0].error?.code == .referenceViolation)
        #expect(try db.records().map(\.recordName) == ["child", "parent", "watcher"])
    }

    @Test func deleteWithStaleTagConflicts() throws {
        let t = try TempStore()
        let db = try t.db()
        let v1 = try db.save("Note", "a", ["t": "1"])
        try db.save("Note", "a", ["t": "2"], ifTag: v1.changeTag)
        let r = try db.modify([RecordOperation(type: .delete, recordName: "a", changeTag: v1.changeTag)])
        #expect(r.results[0].error?.code == .serverRecordChanged)
        #expect(r.results[0].error?.reason == "client oplock error deleting record")
        #expect((try? db.fetchOne("a")) != nil)
    }

    @Test func referencesStayInTheirZoneAndValidate() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Z")
        let cross = RecordOperation.save(recordType: "Note", recordName: "a", fields: ["r": .text("x@Other", type: .reference, action: nil)], ifTag: nil, policy: nil)
        #expect(try db.modify([cross], zone: "Z").results[0].error?.code == .invalidArguments)
        let validating = RecordOperation.save(recordType: "Note", recordName: "b", fields: ["r": .text("nobody", type: .reference, action: .validate)], ifTag: nil, policy: nil)
        #expect(try db.modify([validating], zone: "Z").results[0].error?.code == .referenceViolation)
    }

    @Test func assetsAreContentAddressed() throws {
        let t = try TempStore()
        let file = t.dir + "/photo.bin"
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: file))
        let db = try t.db()
        db.files = .directory(t.dir)
        let r = try db.modify([.save(recordType: "Photo", recordName: "p", fields: ["img": .text("@" + file, type: .asset, action: nil)], ifTag: nil, policy: nil)])
        guard case .saved(let rec) = r.results[0], case .asset(let a)? = rec.fields["img"] else { Issue.record("no asset"); return }
        #expect(a.size == 3)
        #expect(FileManager.default.contents(atPath: db.assetPath(a)) == Data([1, 2, 3]))
        #expect(a.sha256 == SHA256.hex([1, 2, 3]))
    }

    @Test func usersSeeOnlyTheirPrivateDatabase() throws {
        let t = try TempStore()
        try t.db(user: "alice").save("Note", "secret", ["t": "a"])
        #expect(ckError { _ = try t.db(user: "bob").fetchOne("secret") }?.code == .unknownItem)
        #expect(try t.db(user: "alice").fetchOne("secret").created.userRecordName == CKContainer.userRecordName(for: "alice"))
        try t.db(.public, user: "alice").save("Post", "hello", ["t": "hi"])
        #expect(try t.db(.public, user: "bob").fetchOne("hello").fields["t"] == .string("hi"))
        #expect(try t.store.container().users().map(\.name) == ["alice"])
    }
}
