import Foundation
import Glibc
import Synchronization
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKFiles
@testable import CKSQLite
@testable import CKSchema
@testable import CKQuery
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

    /// A fault that fails the operations of some kinds.
    final class FailKinds: Sendable {
        let kinds: Set<OperationKind>
        init(_ kinds: Set<OperationKind>) { self.kinds = kinds }
        func hook(_ c: OperationContext) throws(CKError) {
            if kinds.contains(c.kind) { throw CKError(.serviceUnavailable, "injected") }
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
        let uploaded = try db.uploadAsset(Array("asset bytes".utf8))
        #expect(try db.assetBytes(sha256: uploaded.sha256) == Array("asset bytes".utf8))
        _ = try db.createZone("Gone")
        _ = try db.purgeZone("Gone")
        // A share of n1, resolved and accepted by another user.
        guard case .saved(let root)? = try db.fetch(["n1"], zone: "Work").first else { Issue.record("no n1"); return }
        var share = RecordOperation(type: .create, recordName: "share-n1", recordType: Share.recordType)
        share.share = ShareInput(forRecord: "n1", publicPermission: .readOnly)
        let shared = try db.modify([RecordOperation(type: .update, recordName: "n1", recordType: "Note", changeTag: root.changeTag), share],
                                   zone: "Work", atomic: true)
        guard case .saved(let saved)? = shared.results.last, let guid = saved.shortGUID else { Issue.record("no share: \(shared.results)"); return }
        let bob = try t.db(user: "bob")
        _ = try bob.resolveShare(guid)
        _ = try bob.acceptShare(guid)
        _ = try bob.shareList()
        let doc = try t.store.container().exportFixtures(.development, as: try Caller.user("default"))
        let kv = KeyValueStore(database: db)
        try kv.set("theme", .string("dark"))
        _ = try kv.entries()
        _ = try db.deleteZone("Work")
        _ = try t.store.container().importFixtures(doc, into: .development, as: try Caller.user("default"), replace: true, label: "doc")
        try everyDeveloperOperation(t, doc: doc)
    }

    /// Runs one call of every piece of developer and administrator work.
    func everyDeveloperOperation(_ t: TempStore, doc: JSON) throws {
        let store = t.store
        #expect(try CKStore.initialize(at: t.dir + "/second", hooks: store.hooks))
        #expect(try store.createContainer("iCloud.com.example.Other"))
        #expect(try !store.ensureContainer("iCloud.com.example.Other"))
        try store.useContainer("iCloud.com.example.Other")
        #expect(try store.containerIDs().contains("iCloud.com.example.Other"))
        try store.useContainer(CKStore.defaultContainerID)
        try store.deleteContainer("iCloud.com.example.Other")
        _ = try store.importFixtures(intoNewContainer: "iCloud.com.example.Imported", doc, into: .development, as: try Caller.user("default"),
                                     allUsers: false, replace: false, label: "doc")
        let c = try store.container()
        let schema = try CKDB.parse("""
            DEFINE SCHEMA
                CREATE ROLE Editor;
                RECORD TYPE Note (
                    "___recordID" REFERENCE QUERYABLE,
                    t STRING QUERYABLE,
                    GRANT WRITE TO "_creator",
                    GRANT CREATE TO "_icloud",
                    GRANT READ TO "_world"
                );
            """, file: "schema.ckdb")
        _ = try c.validateImport(schema, file: "schema.ckdb")
        _ = try c.importSchema(schema, file: "schema.ckdb")
        _ = try c.setIndexes(recordType: "Note", field: "t", queryable: true, sortable: true, searchable: false, remove: false)
        _ = try c.schemaDiff()
        _ = try c.deploySchema()
        _ = try c.users()
        #expect(try c.createUser("carol"))
        try c.setAccountStatus(.available, of: "default")
        #expect(try c.setRole("Editor", of: "default", held: true, environment: .development))
        try c.setQuota(1_000_000, user: "default")
        let rule = try c.addFault(FaultRule(id: "f1", error: .serviceUnavailable), environment: .development)
        #expect(try c.faults(environment: .development).map(\.id) == [rule.id])
        #expect(try c.clearFaults(nil, environment: .development) == [rule.id])
        _ = try c.collectGarbage(.development)
        let token = try c.createWebAuthToken(user: "default")
        #expect(try c.revokeWebAuthTokens(token: token.token).count == 1)
        _ = try c.addServerKey(name: "k", publicKey: "-----BEGIN PUBLIC KEY-----", user: "default")
        _ = try c.removeServerKey("k")
        #expect(try c.serveAuth().keys.isEmpty)
        _ = try StoreDoctor.examine(store, repair: false)
        _ = try StoreDoctor.examine(store, repair: true)
        _ = try c.resetDevelopment()
        _ = try store.clock()
        _ = try store.advanceClock(by: 1)
    }

    @Test func everyOperationKindPassesTheFaultHook() throws {
        let t = try TempStore()
        let counter = Counter()
        t.store.hooks.faults = [counter.hook]
        try everyOperation(t)
        let missing = Set(OperationKind.allCases).subtracting(counter.kinds)
        #expect(missing.isEmpty, "operations that bypassed the pipeline: \(missing.map(\.rawValue).sorted())")
        // Sync calls the server's operations only: the hook sees them too.
        // A live zone for the device to fetch (a purged one is wiped, not fetched).
        _ = try t.db().createZone("Synced")
        let before = counter.seen.withLock { $0 }
        let device = try Device.open("iphone", database: try t.db(), create: true)
        _ = try SyncEngine(device: device).sync()
        let after = counter.seen.withLock { $0 }
        #expect((after[.databaseChanges] ?? 0) > (before[.databaseChanges] ?? 0))
        #expect((after[.zoneChanges] ?? 0) > (before[.zoneChanges] ?? 0))
    }

    @Test func developerWorkIsTheDevelopersAlone() throws {
        let t = try TempStore()
        let counter = Counter()
        t.store.hooks.faults = [counter.hook]
        for kind in OperationKind.allCases where kind.isDeveloperWork {
            let e = ckError { try t.store.perform(kind, container: CKStore.defaultContainerID, as: try Caller.user("alice")) { () throws(CKError) in
                _ = Issue.record("\(kind) applied for a user")
            } }
            #expect(e?.code == .permissionFailure, "\(kind): \(String(describing: e))")
            #expect(e?.reason.contains("developer's work") == true)
        }
        // The hooks saw each attempt before the permission stage refused it.
        #expect(counter.kinds == Set(OperationKind.allCases.filter(\.isDeveloperWork)))
        // A client operation is not developer work: the developer caller passes the door's permission check for it.
        #expect(try t.store.perform(.recordFetch, container: nil) { () throws(CKError) in 7 } == 7)
    }

    @Test func aFaultHookFailsDeveloperWorkBeforeItWrites() throws {
        let t = try TempStore()
        let fault = FailKinds([.containerCreate, .schemaImport])
        t.store.hooks.faults = [fault.hook]
        #expect(ckError { try t.store.createContainer("iCloud.com.example.Never") }?.code == .serviceUnavailable)
        t.store.hooks.faults = []
        #expect(try !t.store.containerIDs().contains("iCloud.com.example.Never"), "nothing was created")
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

extension CallerFilesTests {
    /// Whether this process holds the environment's lock: another open file description can't take it.
    static func lockHeld(_ envDir: String) -> Bool {
        let fd = open(envDir + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { flock(fd, LOCK_UN); return false }
        return true
    }

    @Test func theCallersFilesAreReadBeforeTheLockIsTaken() throws {
        let t = try TempStore()
        let db = try t.db()
        let envDir = t.envDir
        let reads = Mutex<[(String, Bool)]>([])
        db.files = FileSource(read: { (file: String, _: String) throws(CKError) -> [UInt8] in
            reads.withLock { $0.append((file, CallerFilesTests.lockHeld(envDir))) }
            return Array("bytes of \(file)".utf8)
        }, size: { _ in 12 })
        let ops = [RecordOperation.save(recordType: "Photo", recordName: "p1",
                                        fields: ["typed": .text("@a.jpg", type: FieldType(.asset), action: nil),
                                                 "list": .text("b.jpg,c.jpg", type: FieldType(.asset, list: true), action: nil),
                                                 "untyped": .text("@d.bin", type: nil, action: nil),
                                                 "mention": .text("plain text", type: nil, action: nil)],
                                        ifTag: nil, policy: nil)]
        let result = try db.modify(ops)
        #expect(result.results[0].error == nil, "\(String(describing: result.results[0].error))")
        let seen = reads.withLock { $0 }
        #expect(Set(seen.map(\.0)) == ["a.jpg", "b.jpg", "c.jpg", "d.bin"], "\(seen)")
        #expect(seen.allSatisfy { !$0.1 }, "a file was read while the store's lock was held: \(seen)")
    }
}

/// The fault rule engine on its own: matching, counters, seeded draws, spent rules.
@Suite struct FaultRuleTests {
    func point(_ ops: Set<FaultRule.Op>, zone: String? = "Notes", record: (String, String?)? = nil) -> FaultPoint {
        FaultPoint(ops: ops, zone: zone, database: .private, user: "alice", record: record.map { (name: $0.0, type: $0.1) })
    }

    @Test func aTimesRuleFiresThatOftenAfterItsAfterAndThenGoes() {
        // An error that does not throttle: --times counts refusals.
        var rule = FaultRule(id: "f1", error: .serverRejectedRequest)
        rule.op = .save
        rule.times = 2
        rule.after = 1
        var book = FaultBook(rules: [rule])
        #expect(book.consume(point([.fetch]), now: 0) == nil, "another op")
        #expect(book.consume(point([.save]), now: 0) == nil, "the first is let through (--after 1)")
        #expect(book.consume(point([.save]), now: 0)?.rule.id == "f1")
        #expect(book.consume(point([.save]), now: 0)?.rule.id == "f1")
        #expect(book.rules.isEmpty)
        #expect(book.consume(point([.save]), now: 0) == nil)
    }

    @Test func aThrottlingRuleRefusesUntilItsWindowEndsAndCountsWindows() {
        var rule = FaultRule(id: "t", error: .zoneBusy)
        rule.retryAfter = 30
        rule.times = 2
        var book = FaultBook(rules: [rule])
        #expect(book.consume(point([.save]), now: 1_000)?.left == 30_000, "the first window opens")
        #expect(book.consume(point([.save]), now: 11_000)?.left == 20_000, "refused again, with the time left")
        #expect(book.consume(point([.save]), now: 31_000)?.left == 30_000, "the first window is over: the second opens")
        #expect(book.rules.first?.times == 1)
        #expect(book.consume(point([.save]), now: 60_999)?.left == 1)
        #expect(book.consume(point([.save]), now: 61_000) == nil, "two windows, then the rule is gone")
        #expect(book.rules.isEmpty)
    }

    @Test func recordTargetsMatchOnlyRecordsAndFiltersNarrow() {
        var rule = FaultRule(id: "p", error: .serverRejectedRequest)
        rule.recordType = "Photo"
        rule.zone = "Notes"
        rule.user = "alice"
        var book = FaultBook(rules: [rule])
        #expect(book.consume(point([.save]), now: 0) == nil, "a whole request is not a record")
        #expect(book.consume(point([.save], record: ("n", "Note")), now: 0) == nil)
        #expect(book.consume(point([.save], zone: "Other", record: ("p", "Photo")), now: 0) == nil)
        #expect(book.consume(point([.delete], record: ("p", "Photo")), now: 0)?.rule.id == "p")
    }

    @Test func seededDrawsRepeatAndFollowTheProbability() {
        var rule = FaultRule(id: "r", error: .serverRejectedRequest)
        rule.probability = 0.25
        rule.seed = 7
        var a = FaultBook(rules: [rule]), b = FaultBook(rules: [rule])
        let one = (0..<400).map { _ in a.consume(point([.query]), now: 0) != nil }
        let two = (0..<400).map { _ in b.consume(point([.query]), now: 0) != nil }
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
