import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKServer

@Suite struct SubscriptionTests {
    func query(_ type: String, _ predicate: String = "TRUEPREDICATE", on: Set<Subscription.Event> = [.create, .update, .delete],
               once: Bool = false, zone: String? = nil, id: String = "", keys: [String] = []) -> Subscription {
        Subscription(subscriptionID: id, kind: .query(recordType: type, predicate: predicate, arguments: [], firesOn: on, firesOnce: once, zoneName: zone),
                     notificationInfo: NotificationInfo(alertBody: "changed", desiredKeys: keys))
    }

    /// TRUEPREDICATE subscriptions need what a query without filters needs: ___recordID QUERYABLE.
    func indexRecordID(_ t: TempStore, _ type: String = "Note") throws {
        _ = try t.store.container().setIndexes(recordType: type, field: "___recordID", queryable: true, sortable: false, searchable: false, remove: false)
    }

    @Test func querySubscriptionFiresOnMatchingCreateUpdateDelete() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "seed", ["title": "x", "priority": "1"])
        let sub = try db.saveSubscription(query("Note", "priority >= 5", id: "hot", keys: ["title"]))
        #expect(sub.ownerRecordName == db.userRecordName && sub.database == .private && sub.created > 0)
        try db.save("Note", "low", ["title": "low", "priority": "1"])
        #expect(try db.notifications().isEmpty, "a record the predicate rejects fires nothing")
        let hot = try db.save("Note", "hot", ["title": "hot", "priority": "9"])
        try db.save("Note", "hot", ["priority": "7"], ifTag: hot.changeTag)
        try db.save("Note", "low", ["priority": "6"], policy: .changedKeys)
        _ = try db.modify([RecordOperation(type: .forceDelete, recordName: "hot")])
        let n = try db.notifications()
        #expect(n.map(\.reason) == [.recordCreated, .recordUpdated, .recordUpdated, .recordDeleted])
        #expect(n.map(\.recordName) == ["hot", "hot", "low", "hot"])
        #expect(n[0].kind == .query && n[0].subscriptionID == "hot" && n[0].databaseScope == .private)
        #expect(n[0].recordFields == ["title": .string("hot")], "only desired keys")
        #expect(n[0].alertBody == "changed" && n[0].deviceID == "ck")
        #expect(n[3].recordFields == ["title": .string("hot")], "a deletion carries the record as it was")
        let json = n[0].json()
        #expect(json["databaseScope"] == .string("PRIVATE") && json["queryNotificationReason"] == .string("recordCreated"))
    }

    @Test func firesOnLimitsEventsAndFiresOnceRemovesTheSubscription() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "seed", ["title": "x"])
        try indexRecordID(t)
        try db.saveSubscription(query("Note", "title == 'a'", on: [.delete], id: "del"))
        try db.saveSubscription(query("Note", on: [.create], once: true, id: "once"))
        try db.save("Note", "a", ["title": "a"])
        try db.save("Note", "b", ["title": "b"])
        _ = try db.modify([RecordOperation(type: .forceDelete, recordName: "a")])
        let n = try db.notifications()
        #expect(n.map(\.subscriptionID) == ["once", "del"])
        #expect(try db.subscriptions().map(\.subscriptionID) == ["del"], "firesOnce deletes the subscription after it fires")
        let e = ckError { try db.saveSubscription(query("Note", on: [])) }
        #expect(e?.code == .invalidArguments)
    }

    @Test func zoneSubscriptionNeedsFetchChangesAndWatchesOneZone() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Work")
        try db.createZone("Plain", capabilities: [.atomic])
        try db.createZone("Other")
        #expect(ckError { try db.saveSubscription(Subscription(kind: .recordZone(zoneName: "_defaultZone", recordType: nil))) }?.code == .invalidArguments)
        #expect(ckError { try db.saveSubscription(Subscription(kind: .recordZone(zoneName: "Plain", recordType: nil))) }?.code == .invalidArguments)
        #expect(ckError { try db.saveSubscription(Subscription(kind: .recordZone(zoneName: "Nope", recordType: nil))) }?.code == .zoneNotFound)
        try db.saveSubscription(Subscription(subscriptionID: "work", kind: .recordZone(zoneName: "Work", recordType: "Task")))
        try db.save("Task", "t1", ["x": "1"], zone: "Other")
        try db.save("Note", "n1", ["x": "1"], zone: "Work")
        #expect(try db.notifications().isEmpty, "other zones and other record types fire nothing")
        _ = try db.modify([.save(recordType: "Task", recordName: "t2", fields: [:], ifTag: nil, policy: nil),
                           .save(recordType: "Task", recordName: "t3", fields: [:], ifTag: nil, policy: nil)], zone: "Work")
        let n = try db.notifications()
        #expect(n.count == 1, "one notification per request")
        #expect(n.first?.kind == .recordZone && n.first?.zoneID?.zoneName == "Work")
        let pub = try t.db(.public)
        #expect(ckError { try pub.saveSubscription(Subscription(kind: .recordZone(zoneName: "_defaultZone", recordType: nil))) }?.code == .badDatabase)
    }

    @Test func databaseSubscriptionWatchesCustomZonesAndZoneDeletion() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Work")
        try db.saveSubscription(Subscription(subscriptionID: "db", kind: .database(recordType: nil)))
        try db.save("Note", "n0", ["x": "1"])
        #expect(try db.notifications().isEmpty, "the private default zone does not take part")
        try db.save("Note", "n1", ["x": "1"], zone: "Work")
        try db.deleteZone("Work")
        let n = try db.notifications()
        #expect(n.map(\.kind) == [.database, .database])
        #expect(n.allSatisfy { $0.subscriptionID == "db" })
        #expect(ckError { try t.db(.public).saveSubscription(Subscription(kind: .database(recordType: nil))) }?.code == .badDatabase)
        #expect(try t.db(.shared).saveSubscription(Subscription(kind: .database(recordType: nil))).database == .shared)
    }

    @Test func subscriptionsBelongToTheirUser() throws {
        let t = try TempStore()
        let alice = try t.db(user: "alice")
        let bob = try t.db(user: "bob")
        try alice.save("Note", "a0", ["x": "1"])
        try bob.save("Note", "b0", ["x": "1"])
        try indexRecordID(t)
        try alice.saveSubscription(query("Note", id: "mine"))
        try bob.save("Note", "b1", ["x": "2"])
        #expect(try alice.notifications().isEmpty, "bob's private database is not alice's")
        #expect(try bob.subscriptions().isEmpty)
        #expect(ckError { _ = try bob.subscription("mine") }?.code == .unknownItem)
        #expect(ckError { try bob.deleteSubscription("mine") }?.code == .unknownItem)
        try alice.save("Note", "a1", ["x": "2"])
        #expect(try alice.notifications().map(\.recordName) == ["a1"])
        #expect(try bob.notifications().isEmpty)
        // Public database: a subscription sees every user's writes, and only its owner is notified.
        let pubA = try t.db(.public, user: "alice")
        let pubB = try t.db(.public, user: "bob")
        try pubB.save("Post", "p0", ["body": "x"])
        try pubA.saveSubscription(query("Post", "body == 'hi'", id: "posts"))
        try pubB.save("Post", "p1", ["body": "hi"])
        let n = try alice.notifications()
        #expect(n.last?.recordName == "p1" && n.last?.databaseScope == .public)
        #expect(try bob.notifications().isEmpty)
    }

    @Test func savingAnExistingIDReplacesIt() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "seed", ["title": "x"])
        try indexRecordID(t)
        try db.saveSubscription(query("Note", "title == 'a'", id: "s1"))
        try db.saveSubscription(query("Note", "title == 'b'", id: "s1"))
        let subs = try db.subscriptions()
        #expect(subs.count == 1)
        if case .query(_, let p, _, _, _, _)? = subs.first?.kind { #expect(p == "title == 'b'") } else { Issue.record("not a query subscription") }
        let generated = try db.saveSubscription(query("Note"))
        #expect(UUID(uuidString: generated.subscriptionID) != nil)
        try db.deleteSubscription("s1")
        #expect(try db.subscriptions().map(\.subscriptionID) == [generated.subscriptionID])
    }

    @Test func queryRulesMatchQueries() throws {
        let t = try TempStore()
        let db = try t.db()
        #expect(ckError { try db.saveSubscription(query("Nope")) }?.reason.contains("Did not find record type") == true)
        _ = try db.modify([.save(recordType: "Note", recordName: "seed", fields: ["title": .text("x", type: nil, action: nil),
                                "tags": .text("a,b", type: FieldType(.string, list: true), action: nil)], ifTag: nil, policy: nil)])
        #expect(ckError { try db.saveSubscription(query("Note", "title ENDSWITH 'x'")) }?.code == .invalidArguments)
        #expect(ckError { try db.saveSubscription(query("Note", "nope == 1")) }?.code == .invalidArguments)
        #expect(ckError { try db.saveSubscription(query("Note", "title == 'x'", keys: ["tags"])) }?.reason.contains("desired key") == true)
        #expect(ckError { try t.db(.shared).saveSubscription(query("Note")) }?.code == .badDatabase)
        #expect(ckError { try db.saveSubscription(query("Note", zone: "Missing")) }?.code == .zoneNotFound)
    }

    @Test func productionNeedsTheTypeAndIndexesDeployed() throws {
        let t = try TempStore()
        let prod = try t.db(.private, .production)
        let e = ckError { try prod.saveSubscription(query("Note", "title == 'a'")) }
        #expect(e?.code == .unknownItem && e?.hint?.contains("ck schema deploy") == true)
        let dev = try t.db()
        try dev.save("Note", "seed", ["title": "x"])
        _ = try t.store.container().deploySchema()
        #expect(try prod.saveSubscription(query("Note", "title == 'a'")).database == .private, "deployed type and index")
        try dev.save("Note", "later", ["extra": "1"])
        #expect(ckError { try prod.saveSubscription(query("Note", "extra == 1")) }?.reason.contains("Did not find field") == true,
                "a field not yet deployed is refused as a production query is")
        // Zone and database subscriptions name no fields, so production takes them.
        #expect(try prod.saveSubscription(Subscription(kind: .database(recordType: nil))).database == .private)
    }

    @Test func markingReadAppendsAndFilters() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "seed", ["title": "x"])
        try indexRecordID(t)
        try db.saveSubscription(query("Note", on: [.create]))
        for i in 0..<3 { try db.save("Note", "n\(i)", ["title": "t"]) }
        let all = try db.notifications()
        #expect(all.count == 3)
        #expect(try db.markNotificationsRead([all[0].notificationID]) == [all[0].notificationID])
        #expect(try db.notifications(unreadOnly: true).count == 2)
        #expect(try db.notifications(since: all[0].notificationID).map(\.recordName) == ["n1", "n2"])
        #expect(ckError { try db.markNotificationsRead(["nope"]) }?.code == .unknownItem)
        #expect(try db.markNotificationsRead(nil).count == 2)
        #expect(try db.notifications().allSatisfy(\.read))
        let lines = t.read(t.envDir + "/notifications/" + db.userRecordName + ".jsonl").split(separator: "\n")
        #expect(lines.count == 5, "three notifications and two read lines, nothing rewritten")
    }
}
