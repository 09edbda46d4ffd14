import Foundation
import Testing
import CKCore
import CKTestSupport

/// The emulator driven as a Swift program drives it: `import CKCore` and its public API only, no `@testable`. If a
/// step here needs something that is not public, the public API is missing it.
@Suite struct PublicAPITests {
    /// Saves a record of type Note with text and number fields; throws the operation's error.
    @discardableResult
    func saveNote(_ db: CKDatabase, _ name: String, title: String, priority: Int64, zone: String = "Notes") throws -> Record {
        let save = RecordOperation.save(recordType: "Note", recordName: name,
                                        fields: ["title": .value(.string(title)), "priority": .value(.int64(priority))],
                                        ifTag: nil, policy: nil)
        let result = try db.modify([save], zone: zone)
        guard case .saved(let record)? = result.results.first else {
            throw result.failures.first?.error ?? CKError(.internalError, "no result for \(name)")
        }
        return record
    }

    @Test func saveQuerySubscribeSyncAndReadNotifications() throws {
        let temporary = try TempStore()
        let db = try temporary.db(user: "alice")
        let (zone, created) = try db.createZone("Notes")
        #expect(created)
        #expect(zone.zoneID == ZoneID(zoneName: "Notes", ownerRecordName: db.userRecordName))

        // Save, then read back what the server keeps.
        let first = try saveNote(db, "n1", title: "Groceries", priority: 1)
        try saveNote(db, "n2", title: "Taxes", priority: 3)
        try saveNote(db, "n3", title: "Bike", priority: 2)
        #expect(first.recordType == "Note" && first.zoneID.zoneName == "Notes")
        #expect(first.fields["title"] == .string("Groceries"))
        guard case .saved(let fetched)? = try db.fetch(["n1"], zone: "Notes").first else {
            Issue.record("n1 was not fetched")
            return
        }
        #expect(fetched.changeTag == first.changeTag && fetched.fields == first.fields)

        // Query with a predicate and a sort.
        let urgent = try db.query(QueryRequest(recordType: "Note", predicate: "priority >= %@", arguments: ["2"],
                                               sort: [QuerySort("priority", ascending: false)]), zone: "Notes")
        #expect(urgent.records.map(\.recordName) == ["n2", "n3"])
        #expect(urgent.cursor == nil)

        // Subscribe to urgent notes; a change that matches fires it, one that doesn't stays quiet.
        let subscription = try db.saveSubscription(Subscription(subscriptionID: "urgent",
            kind: .query(recordType: "Note", predicate: "priority >= 5", arguments: [], firesOn: [.create, .update],
                         firesOnce: false, zoneName: "Notes")))
        #expect(subscription.ownerRecordName == db.userRecordName && subscription.database == .private)
        #expect(try db.subscriptions().map(\.subscriptionID) == ["urgent"])
        try saveNote(db, "n4", title: "Dentist", priority: 1)
        #expect(try db.notifications().isEmpty)

        // Two devices of alice: the phone edits offline and syncs; the laptop syncs and sees the edits.
        let phone = try Device.open("phone", database: try temporary.db(user: "alice"))
        let laptop = try Device.open("laptop", database: try temporary.db(user: "alice"))
        let phoneFirst = try SyncEngine(device: phone).sync()
        #expect(phoneFirst.pulledSaves == 4)
        _ = try SyncEngine(device: laptop).sync()
        try phone.save(recordType: "Note", recordName: "n1", zone: "Notes", fields: ["priority": .int64(9)])
        try phone.save(recordType: "Note", recordName: "n5", zone: "Notes",
                       fields: ["title": .string("Passport"), "priority": .int64(7)])
        #expect(try phone.record("n1", zone: "Notes")?.pending == .save(keys: ["priority"]))
        let pushed = try SyncEngine(device: phone).sync()
        #expect(pushed.pushedSaves.map(\.recordName).sorted() == ["n1", "n5"])
        #expect(try phone.records(zone: "Notes").allSatisfy { $0.pending == .none })

        let pulled = try SyncEngine(device: laptop).sync()
        #expect(pulled.pulledSaves == 2)
        let onLaptop = try laptop.records(zone: "Notes")
        #expect(onLaptop.map(\.recordName) == ["n1", "n2", "n3", "n4", "n5"])
        #expect(onLaptop.first { $0.recordName == "n1" }?.fields == ["title": .string("Groceries"), "priority": .int64(9)])
        #expect(onLaptop.first { $0.recordName == "n5" }?.fields["title"] == .string("Passport"))

        // The server has the phone's edits, stamped with the phone as the device that made them.
        guard case .saved(let edited)? = try db.fetch(["n1"], zone: "Notes").first else {
            Issue.record("n1 was not fetched after the sync")
            return
        }
        #expect(edited.fields["priority"] == .int64(9) && edited.modified.deviceID == "phone")
        #expect(edited.changeTag != first.changeTag)

        // The phone's update of n1 and its new n5 fired the subscription, in that order or the other.
        let notes = try db.notifications()
        #expect(notes.count == 2)
        #expect(Set(notes.compactMap(\.recordName)) == ["n1", "n5"])
        #expect(notes.allSatisfy { $0.kind == .query && $0.subscriptionID == "urgent" && $0.deviceID == "phone" && !$0.read })
        #expect(notes.first { $0.recordName == "n1" }?.reason == .recordUpdated)
        #expect(notes.first { $0.recordName == "n5" }?.reason == .recordCreated)

        // Reading them: marked once, then nothing is unread.
        let marked = try db.markNotificationsRead(nil)
        #expect(Set(marked) == Set(notes.map(\.notificationID)))
        #expect(try db.notifications(unreadOnly: true).isEmpty)
        #expect(try db.notifications().allSatisfy(\.read))
    }

    @Test func queryPagesFollowTheirCursor() throws {
        let temporary = try TempStore()
        let db = try temporary.db(user: "bob")
        _ = try db.createZone("Notes")
        for i in 1...5 { try saveNote(db, "n\(i)", title: "note \(i)", priority: Int64(i)) }
        var request = QueryRequest(recordType: "Note", predicate: "priority > 1", sort: [QuerySort("priority")], limit: 2)
        var pages: [[String]] = []
        while true {
            let page = try db.query(request, zone: "Notes")
            pages.append(page.records.map(\.recordName))
            guard let cursor = page.cursor else { break }
            request.cursor = cursor
        }
        #expect(pages == [["n2", "n3"], ["n4", "n5"]])
    }

    @Test func refusalsArriveAsCKErrors() throws {
        let temporary = try TempStore()
        let db = try temporary.db(user: "carol")
        do {
            _ = try db.query(QueryRequest(recordType: "Note", predicate: "priority > 1"), zone: "NoSuchZone")
            Issue.record("a query of a zone that does not exist succeeded")
        } catch {
            #expect(error.code == .zoneNotFound)
        }
        try saveNote(db, "n1", title: "first", priority: 1, zone: "_defaultZone")
        do {
            _ = try db.query(QueryRequest(recordType: "Note", predicate: "priority == 1 OR priority == 2"))
            Issue.record("an OR predicate was accepted")
        } catch {
            #expect(error.code == .invalidArguments)
        }
    }
}
