import Foundation
import Synchronization
import Testing
import CKCore
@testable import CKModel
@testable import CKFiles
@testable import CKSQLite
@testable import CKSchema
@testable import CKQuery
@testable import CKStorage
@testable import CKServer
@testable import CKSync
@testable import CKDataModel

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
        let kv = KeyValueStore(database: db)
        try kv.set("theme", .string("dark"))
        _ = try kv.entries()
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

/// Files named by values are the caller's: the server reads only what the caller's source hands it.
@Suite struct CallerFilesTests {
    @Test func theServerReadsNoFilesOfItsOwn() throws {
        let t = try TempStore()
        let db = try t.db()
        // The caller has a file the server could open, but a database has no file source until the caller gives one.
        let path = t.dir + "/photo.bin"
        try Data("bytes".utf8).write(to: URL(fileURLWithPath: path))
        let op = RecordOperation.save(recordType: "Photo", recordName: "p1", fields: ["f": .text("@" + path, type: FieldType(.asset), action: nil)],
                                      ifTag: nil, policy: nil)
        let refused = try db.modify([op]).results[0].error
        #expect(refused?.code == .invalidArguments && refused?.reason.contains("this caller reads no files") == true, "\(String(describing: refused))")
        // A caller's own source: here one that serves from memory, whatever the path says.
        db.files = FileSource { (file: String, _: String) throws(CKError) -> [UInt8] in Array("from the caller: \(file)".utf8) }
        let saved = try db.modify([op]).results[0]
        guard case .saved(let r) = saved, case .asset(let a)? = r.fields["f"] else { Issue.record("not saved: \(saved)"); return }
        #expect(try FileIO.read(db.assetPath(a)) == Array("from the caller: \(path)".utf8))
    }
}

/// The fault rule engine on its own: matching, counters, seeded draws, spent rules.
@Suite struct FaultRuleTests {
    func point(_ ops: Set<FaultRule.Op>, zone: String? = "Notes", record: (String, String?)? = nil) -> FaultPoint {
        FaultPoint(ops: ops, zone: zone, database: .private, user: "alice", record: record.map { (name: $0.0, type: $0.1) })
    }

    @Test func aTimesRuleFiresThatOftenAfterItsAfterAndThenGoes() {
        var rule = FaultRule(id: "f1", error: .zoneBusy)
        rule.op = .save
        rule.times = 2
        rule.after = 1
        var book = FaultBook(rules: [rule])
        #expect(book.consume(point([.fetch])) == nil, "another op")
        #expect(book.consume(point([.save])) == nil, "the first is let through (--after 1)")
        #expect(book.consume(point([.save]))?.id == "f1")
        #expect(book.consume(point([.save]))?.id == "f1")
        #expect(book.rules.isEmpty)
        #expect(book.consume(point([.save])) == nil)
    }

    @Test func recordTargetsMatchOnlyRecordsAndFiltersNarrow() {
        var rule = FaultRule(id: "p", error: .serverRejectedRequest)
        rule.recordType = "Photo"
        rule.zone = "Notes"
        rule.user = "alice"
        var book = FaultBook(rules: [rule])
        #expect(book.consume(point([.save])) == nil, "a whole request is not a record")
        #expect(book.consume(point([.save], record: ("n", "Note"))) == nil)
        #expect(book.consume(point([.save], zone: "Other", record: ("p", "Photo"))) == nil)
        #expect(book.consume(point([.delete], record: ("p", "Photo")))?.id == "p")
    }

    @Test func seededDrawsRepeatAndFollowTheProbability() {
        var rule = FaultRule(id: "r", error: .zoneBusy)
        rule.probability = 0.25
        rule.seed = 7
        var a = FaultBook(rules: [rule]), b = FaultBook(rules: [rule])
        let one = (0..<400).map { _ in a.consume(point([.query])) != nil }
        let two = (0..<400).map { _ in b.consume(point([.query])) != nil }
        #expect(one == two)
        let fired = one.filter { $0 }.count
        #expect(fired > 60 && fired < 140, "about a quarter of 400: \(fired)")
        #expect(a.rules.first?.draws == 400)
    }

    @Test func optionsThatDoNotFitAreRefused() {
        var r = FaultRule(id: "x", error: .quotaExceeded)
        r.retryAfter = 1
        #expect(ckError { try r.validate() }?.code == .invalidArguments)
        r = FaultRule(id: "x", error: .zoneBusy)
        r.times = 0
        #expect(ckError { try r.validate() }?.code == .invalidArguments)
        r = FaultRule(id: "x", error: .partialFailure)
        #expect(ckError { try r.validate() }?.code == .invalidArguments)
        r = FaultRule(id: "x", error: .zoneBusy)
        r.afterCommit = true
        #expect(ckError { try r.validate() }?.code == .invalidArguments)
    }
}
