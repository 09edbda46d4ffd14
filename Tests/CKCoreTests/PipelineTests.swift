import Foundation
import Synchronization
import Testing
@testable import CKCore

/// Every public server operation passes the one pipeline: a fault hook sees each kind, and a fault stops it.
@Suite struct PipelineTests {
    /// Counts the operations a hook saw, by kind.
    final class Counter: Sendable {
        let seen = Mutex<[OperationKind: Int]>([:])
        func hook(_ c: OperationContext) throws(CKError) { seen.withLock { $0[c.kind, default: 0] += 1 } }
        var kinds: Set<OperationKind> { seen.withLock { Set($0.keys) } }
    }

    /// A fault that fails every record modify and remembers the zone it saw.
    final class FailModify: Sendable {
        let zone = Mutex<String?>(nil)
        func hook(_ c: OperationContext) throws(CKError) {
            guard c.kind == .recordModify else { return }
            zone.withLock { $0 = c.zone?.zoneName }
            throw CKError(.serviceUnavailable, "injected", retryAfter: 2)
        }
    }

    /// Records the order in which stages ran.
    final class Stages: Sendable {
        let order = Mutex<[String]>([])
        func fault(_ c: OperationContext) throws(CKError) { order.withLock { $0.append("faults") } }
        func quota(_ c: OperationContext) throws(CKError) { order.withLock { $0.append("quota") } }
    }

    /// Runs one call of every public server operation, directly and through sync.
    func everyOperation(_ t: TempStore) throws {
        let db = try t.db()
        _ = try db.createZone("Work")
        _ = try db.modify([.save(recordType: "Note", recordName: "n1", fields: ["t": .text("1", type: nil, action: nil)], ifTag: nil, policy: nil)], zone: "Work")
        _ = try db.fetch(["n1"], zone: "Work")
        _ = try db.records(zone: "Work")
        _ = try db.plan(QueryRequest(recordType: "Note", predicate: "t == 1"))
        _ = try db.query(QueryRequest(recordType: "Note", predicate: "t == 1"), zone: "Work")
        _ = try db.zones()
        _ = try db.zoneSummary("Work")
        _ = try db.saveSubscription(Subscription(subscriptionID: "s1", kind: .database(recordType: nil)))
        _ = try db.subscriptions()
        try db.deleteSubscription("s1")
        _ = try db.zoneChanges(zone: "Work")
        _ = try db.databaseChanges()
        _ = try db.notifications()
        _ = try db.markNotificationsRead(nil)
        _ = try db.quotaUsage()
        _ = try db.createZone("Gone")
        _ = try db.purgeZone("Gone")
        let doc = try t.store.container().exportFixtures(.development, as: try Caller.user("default"))
        _ = try db.deleteZone("Work")
        _ = try t.store.container().importFixtures(doc, into: .development, as: try Caller.user("default"), replace: true, label: "doc")
    }

    @Test func everyOperationKindPassesTheFaultHook() throws {
        let t = try TempStore()
        let counter = Counter()
        t.store.hooks.faults = [counter.hook]
        try everyOperation(t)
        let missing = Set(OperationKind.allCases).subtracting(counter.kinds)
        #expect(missing.isEmpty, "operations that bypassed the pipeline: \(missing.map(\.rawValue).sorted())")
        // Sync calls the server's operations only: the hook sees them too.
        let before = counter.seen.withLock { $0 }
        let device = try Device.open("iphone", database: try t.db(), create: true)
        _ = try SyncEngine(device: device).sync()
        let after = counter.seen.withLock { $0 }
        #expect((after[.databaseChanges] ?? 0) > (before[.databaseChanges] ?? 0))
        #expect((after[.zoneChanges] ?? 0) > (before[.zoneChanges] ?? 0))
    }

    @Test func aFaultStopsTheOperationBeforeItWritesAndAfterTheZoneIsResolved() throws {
        let t = try TempStore()
        let db = try t.db()
        _ = try db.createZone("Work")
        let fault = FailModify()
        t.store.hooks.faults = [fault.hook]
        let e = ckError { _ = try db.save("Note", "n1", ["t": "1"], zone: "Work") }
        #expect(e?.code == .serviceUnavailable && e?.retryAfter == 2)
        #expect(fault.zone.withLock { $0 } == "Work", "the zone is resolved before faults")
        t.store.hooks.faults = []
        #expect(ckError { _ = try db.fetchOne("n1", zone: "Work") }?.code == .unknownItem, "nothing was written")
        // A zone that does not exist fails at the resolve stage, before faults run.
        let seen = Counter()
        t.store.hooks.faults = [seen.hook]
        #expect(ckError { _ = try db.fetch(["x"], zone: "Missing") }?.code == .zoneNotFound)
        #expect(seen.kinds.isEmpty)
    }

    @Test func permissionsRunAfterFaultsAndQuotaAfterPermissions() throws {
        let t = try TempStore()
        let stages = Stages()
        t.store.hooks.faults = [stages.fault]
        t.store.hooks.quota = [stages.quota]
        let anonymous = try t.store.container().database(.private, environment: .development, caller: .anonymous())
        #expect(ckError { _ = try anonymous.zones() }?.code == .notAuthenticated)
        #expect(stages.order.withLock { $0 } == ["faults"], "the permission stage refused before quota")
        stages.order.withLock { $0 = [] }
        _ = try t.db().zones()
        #expect(stages.order.withLock { $0 } == ["faults", "quota"])
    }
}
