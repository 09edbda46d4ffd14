import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKServer
@testable import CKSync

/// Devices and the sync engine, driven through CKCore as a program embedding the emulator would.
@Suite struct SyncTests {
    /// A store with zone Notes and a note the server has.
    func seeded() throws -> (TempStore, CKDatabase) {
        let t = try TempStore()
        let server = try t.db()
        _ = try server.createZone("Notes")
        try server.save("Note", "n1", ["title": "Hello", "body": "first"], zone: "Notes")
        return (t, server)
    }

    func device(_ t: TempStore, _ name: String) throws -> Device {
        try Device.open(name, database: try t.db())
    }

    func sync(_ d: Device, _ policy: ConflictPolicy = .local) throws -> SyncReport {
        try SyncEngine(device: d, conflicts: policy).sync()
    }

    @Test func twoDevicesOfOneUserConverge() throws {
        let (t, server) = try seeded()
        let phone = try device(t, "phone"), tablet = try device(t, "tablet")
        let first = try sync(phone)
        #expect(first.pulledSaves == 1)
        _ = try sync(tablet)
        try tablet.save(recordType: "Note", recordName: "n2", zone: "Notes", fields: ["title": .string("From tablet")])
        try phone.save(recordType: "Note", recordName: "n1", zone: "Notes", fields: ["body": .string("edited on phone")])
        let pushed = try sync(tablet)
        #expect(pushed.pushedSaves.map(\.recordName) == ["n2"])
        #expect(try server.fetchOne("n2", zone: "Notes").modified.deviceID == "tablet")
        _ = try sync(phone)
        _ = try sync(tablet)
        let a = try phone.records(zone: "Notes"), b = try tablet.records(zone: "Notes")
        #expect(a.map(\.recordName) == ["n1", "n2"])
        #expect(a.map(\.fields) == b.map(\.fields))
        #expect(a.allSatisfy { $0.pending == .none } && b.allSatisfy { $0.pending == .none })
        #expect(try server.fetchOne("n1", zone: "Notes").fields["body"] == .string("edited on phone"))
        #expect(try server.fetchOne("n1", zone: "Notes").modified.deviceID == "phone")
        let info = try phone.info()
        #expect(info.pendingSaves == 0 && info.serverRecordCount == 2 && info.lastSync != nil && info.zoneTokens["Notes"] != nil)
        #expect(Device.names(for: try t.db()) == ["phone", "tablet"])
    }

    @Test func offlineEditsOfDifferentKeysMerge() throws {
        let (t, server) = try seeded()
        let tablet = try device(t, "tablet")
        _ = try sync(tablet)
        try tablet.save(recordType: "Note", recordName: "n1", zone: "Notes", fields: ["body": .string("tablet body")])
        try server.save("Note", "n1", ["title": "Server title"], policy: .changedKeys, zone: "Notes")
        let r = try sync(tablet)
        #expect(r.merges.count == 1)
        #expect(r.merges.first?.mergedKeys == ["body"] && r.merges.first?.conflicts.isEmpty == true)
        let n1 = try server.fetchOne("n1", zone: "Notes")
        #expect(n1.fields["title"] == .string("Server title") && n1.fields["body"] == .string("tablet body"))
        #expect(try tablet.record("n1", zone: "Notes")?.fields == n1.fields)
    }

    @Test(arguments: [ConflictPolicy.local, .server])
    func aConflictingKeyFollowsThePolicy(_ policy: ConflictPolicy) throws {
        let (t, server) = try seeded()
        let tablet = try device(t, "tablet")
        _ = try sync(tablet)
        try tablet.save(recordType: "Note", recordName: "n1", zone: "Notes",
                        fields: ["title": .string("tablet title"), "body": .string("tablet body")])
        try server.save("Note", "n1", ["title": "server title"], policy: .changedKeys, zone: "Notes")
        let r = try sync(tablet, policy)
        #expect(r.merges.first?.conflicts == [.init(key: "title", winner: policy)])
        #expect(r.merges.first?.mergedKeys == ["body"])
        let n1 = try server.fetchOne("n1", zone: "Notes")
        #expect(n1.fields["title"] == .string(policy == .local ? "tablet title" : "server title"))
        #expect(n1.fields["body"] == .string("tablet body"))
        #expect(try tablet.record("n1", zone: "Notes")?.pending == LocalRecord.Pending.none)
    }

    @Test func deletesGoBothWays() throws {
        let (t, server) = try seeded()
        try server.save("Note", "n2", ["title": "two"], zone: "Notes")
        let phone = try device(t, "phone")
        _ = try sync(phone)
        // Device → server.
        #expect(try phone.delete(recordName: "n1", zone: "Notes") == .delete)
        #expect(try phone.record("n1", zone: "Notes")?.pending == .delete)
        let r = try sync(phone)
        #expect(r.pushedDeletes.map(\.recordName) == ["n1"])
        #expect(ckError { _ = try server.fetchOne("n1", zone: "Notes") }?.code == .unknownItem)
        // Server → device, while the device edits it: the deletion wins and is reported.
        try phone.save(recordType: "Note", recordName: "n2", zone: "Notes", fields: ["title": .string("edited")])
        _ = try server.modify([RecordOperation(type: .forceDelete, recordName: "n2")], zone: "Notes")
        let r2 = try sync(phone)
        #expect(r2.dropped.map(\.recordName) == ["n2"])
        #expect(try phone.records(zone: "Notes").isEmpty)
        #expect(try phone.info().pendingSaves == 0)
        // A record that never reached the server is simply dropped locally.
        try phone.save(recordType: "Note", recordName: "n3", zone: "Notes", fields: ["title": .string("x")])
        #expect(try phone.delete(recordName: "n3", zone: "Notes") == .none)
        #expect(ckError { try phone.delete(recordName: "n3", zone: "Notes") }?.code == .unknownItem)
    }

    @Test func aZoneDeletedOnTheServerIsWipedAndNewEditsStayPending() throws {
        let (t, server) = try seeded()
        let phone = try device(t, "phone")
        _ = try sync(phone)
        try phone.save(recordType: "Note", recordName: "fresh", zone: "Notes", fields: ["title": .string("new")])
        _ = try server.deleteZone("Notes")
        let r = try sync(phone)
        #expect(r.kept.map(\.error.code) == [.zoneNotFound])
        #expect(r.pulled.contains { $0.zoneName == "Notes" && $0.zoneDeleted })
        let left = try phone.records(zone: "Notes")
        #expect(left.map(\.recordName) == ["fresh"] && left.first?.pending == .save(keys: ["title"]))
        // The zone comes back: the kept edit goes through.
        _ = try server.createZone("Notes")
        let r2 = try sync(phone)
        #expect(r2.pushedSaves.map(\.recordName) == ["fresh"])
        #expect(try server.fetchOne("fresh", zone: "Notes").fields["title"] == .string("new"))
    }

    @Test func anExpiredZoneTokenRefetchesTheZoneAndKeepsPendingEdits() throws {
        let (t, server) = try seeded()
        let phone = try device(t, "phone")
        _ = try sync(phone)
        // The zone is deleted and created again; the device hears of it only through its zone token
        // (its database token is moved past the deletion, as after a database feed it missed).
        _ = try server.deleteZone("Notes")
        _ = try server.createZone("Notes")
        try server.save("Note", "n9", ["title": "after"], zone: "Notes")
        try phone.save(recordType: "Note", recordName: "local", zone: "Notes", fields: ["title": .string("mine")])
        let skipped = try server.databaseChanges(since: try phone.meta("databaseToken"))
        try phone.transaction { () throws(CKError) in try phone.setMeta("databaseToken", skipped.syncToken) }
        try server.save("Note", "n10", ["title": "later"], zone: "Notes")
        let r = try sync(phone)
        #expect(r.refetched == ["Notes"])
        #expect(try phone.records(zone: "Notes").map(\.recordName) == ["local", "n10", "n9"])
        #expect(try server.fetchOne("local", zone: "Notes").fields["title"] == .string("mine"))
    }

    @Test func compactionOnTheServerMakesTheDeviceRefetchAndLoseNoDeletion() throws {
        let (t, server) = try seeded()
        try server.save("Note", "n2", ["title": "doomed"], zone: "Notes")
        let phone = try device(t, "phone")
        _ = try sync(phone)
        #expect(try phone.records(zone: "Notes").map(\.recordName) == ["n1", "n2"])
        // The deletion of n2 is compacted away before the phone hears of it.
        let r = try server.modify([RecordOperation(type: .forceDelete, recordName: "n2")], zone: "Notes")
        #expect(r.results.first?.error == nil)
        try server.save("Note", "n3", ["title": "new"], zone: "Notes")
        try t.store.container().collectGarbage(.development)
        try phone.save(recordType: "Note", recordName: "mine", zone: "Notes", fields: ["title": .string("offline")])
        let report = try sync(phone)
        #expect(report.refetched == ["Notes"])
        #expect(try phone.records(zone: "Notes").map(\.recordName) == ["mine", "n1", "n3"])
        #expect(try server.fetchOne("mine", zone: "Notes").fields["title"] == .string("offline"))
        #expect(try sync(phone).refetched.isEmpty, "the refetched token is current")
    }

    @Test func aFailedPushKeepsEditsPending() throws {
        let (t, server) = try seeded()
        let phone = try device(t, "phone")
        _ = try sync(phone)
        // A value the server refuses: a field retyped from string to int64.
        try phone.save(recordType: "Note", recordName: "n1", zone: "Notes", fields: ["title": .int64(5), "body": .string("b")])
        let r = try sync(phone)
        #expect(r.kept.count == 1 && r.kept.first?.recordName == "n1")
        #expect(try phone.info().pendingSaves == 1)
        #expect(try phone.record("n1", zone: "Notes")?.fields["title"] == .int64(5))
        #expect(try server.fetchOne("n1", zone: "Notes").fields["body"] == .string("first"))
        // Reopening the file finds the same pending edit: it is on disk, not in memory.
        let again = try device(t, "phone")
        #expect(try again.info().pendingSaves == 1)
    }

    @Test func badNamesAndTheDefaultZoneAreRefused() throws {
        let t = try TempStore()
        #expect(ckError { _ = try Device.open("my phone", database: try t.db()) }?.code == .invalidArguments)
        #expect(ckError { _ = try Device.open(".hidden", database: try t.db()) }?.code == .invalidArguments)
        #expect(ckError { _ = try Device.open("phone", database: try t.db(), create: false) }?.code == .unknownItem)
        let d = try device(t, "phone")
        let e = ckError { try d.save(recordType: "Note", zone: Names.defaultZoneName, fields: [:]) }
        #expect(e?.code == .invalidArguments && e?.reason.contains("change feed") == true)
        #expect(ckError { _ = try Device.open("phone", database: try t.db(.public)) }?.code == .invalidArguments)
        try Device.remove("phone", database: try t.db())
        #expect(Device.names(for: try t.db()).isEmpty)
    }
}
