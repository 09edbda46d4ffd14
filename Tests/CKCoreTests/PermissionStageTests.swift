import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSchema
@testable import CKServer

/// The permission stage for records (`RecordGate`): every record a body reads or writes passes it, bodies never
/// ask the grants themselves, and each read path filters (or refuses) what the caller may not read.
@Suite struct PermissionStageTests {
    /// Diaries are their creator's to read, posts everyone's, memos editors'; nobody creates notices. With
    /// `postsCreated` false, nobody creates posts either.
    static func schema(postsCreated: Bool = true) -> String { """
        DEFINE SCHEMA
            CREATE ROLE Editor;
            RECORD TYPE Diary (
                "___recordID" REFERENCE QUERYABLE,
                text STRING QUERYABLE,
                GRANT READ, WRITE TO "_creator",
                GRANT CREATE TO "_icloud"
            );
            RECORD TYPE Post (
                "___recordID" REFERENCE QUERYABLE,
                text STRING QUERYABLE,
                GRANT WRITE TO "_creator",\(postsCreated ? "\n        GRANT CREATE TO \"_icloud\"," : "")
                GRANT READ TO "_world"
            );
            RECORD TYPE Memo (
                "___recordID" REFERENCE QUERYABLE,
                text STRING QUERYABLE,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "Editor"
            );
            RECORD TYPE Notice (
                "___recordID" REFERENCE QUERYABLE,
                text STRING,
                GRANT READ TO "_world"
            );
        """
    }

    /// A store where alice wrote a diary (hers alone to read) and a post (everyone's), and bob a diary.
    func seeded() throws -> (TempStore, alice: CKDatabase, bob: CKDatabase) {
        let t = try TempStore()
        let schema = try CKDB.parse(PermissionStageTests.schema(), file: "schema.ckdb")
        _ = try t.store.container().importSchema(schema, file: "schema.ckdb")
        let alice = try t.db(.public, user: "alice"), bob = try t.db(.public, user: "bob")
        try alice.save("Diary", "a1", ["text": "mine"])
        try alice.save("Post", "p1", ["text": "for all"])
        try bob.save("Diary", "b1", ["text": "bob's"])
        return (t, alice, bob)
    }

    // MARK: No body skips the gate

    /// The swift files under Sources/CKServer outside the pipeline's folder.
    static func bodies() throws -> [(path: String, text: String)] {
        try WriterTests.sources("Sources/CKServer").filter { !$0.path.hasPrefix("Sources/CKServer/Pipeline/") }
    }

    @Test func bodiesAskTheGrantsOnlyThroughTheGate() throws {
        let forbidden = try Regex(#"\bAccess\b|\.allows\(|\.require\(|\.denial\(|\bheld\(creator:|RecordGate\.operation\(|FaultPoint\(|record: \(\w+,"#)
        var gateCalls = 0
        for (path, text) in try PermissionStageTests.bodies() {
            for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(forbidden) && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                Issue.record("\(path):\(n + 1): asks the grants or a record's fault point itself; pass the record through state.gate")
            }
            gateCalls += text.matches(of: try Regex(#"gate\.(mayRead|read|query|write|createRefusal|readsEveryRecord)\b"#)).count
        }
        // Fetch, list, query (2 paths and the type), zone summary, export, import, subscription, save and delete.
        #expect(gateCalls >= 11, "the scan found \(gateCalls) calls of the gate: its pattern no longer matches the code")
        // The grants' decision itself is private to the gate.
        let gate = try String(contentsOfFile: WriterTests.root + "/Sources/CKServer/Pipeline/RecordGate.swift", encoding: .utf8)
        #expect(gate.contains("private func decides(") && gate.contains("private func denial(") && gate.contains("private init("))
    }

    // MARK: Reads

    @Test func fetchRefusesARecordTheCallerMayNotRead() throws {
        let (t, alice, bob) = try seeded()
        defer { withExtendedLifetime(t) {} }
        #expect(try alice.fetchOne("a1").recordName == "a1")
        let e = ckError { _ = try bob.fetchOne("a1") }
        #expect(e?.code == .permissionFailure && e?.serverErrorCode == "ACCESS_DENIED" && e?.reason == "READ operation not permitted")
        #expect(try bob.fetchOne("p1").recordName == "p1")
        // The asset path fetches through the same gate.
        let asset = ckError { _ = try bob.asset(recordName: "a1", field: "text") }
        #expect(asset?.code == .permissionFailure)
    }

    @Test func listingFiltersWhatTheCallerMayNotRead() throws {
        let (t, alice, bob) = try seeded()
        #expect(try alice.records().map(\.recordName) == ["a1", "p1"])
        #expect(try bob.records().map(\.recordName) == ["b1", "p1"])
        let nobody = try t.store.container().database(.public, environment: .development, caller: .anonymous())
        #expect(try nobody.records().map(\.recordName) == ["p1"])
        #expect(try bob.zoneSummary(Names.defaultZoneName).recordCount == 2)
        #expect(try nobody.zoneSummary(Names.defaultZoneName).recordCount == 1)
    }

    @Test func queriesAnswerOnlyWithReadableRecords() throws {
        let (t, alice, bob) = try seeded()
        let diaries = QueryRequest(recordType: "Diary")
        #expect(try alice.query(diaries).records.map(\.recordName) == ["a1"])
        #expect(try bob.query(diaries).records.map(\.recordName) == ["b1"])
        // The same through the index.
        _ = try t.store.container().setIndexes(recordType: "Diary", field: "text", queryable: true, sortable: true, searchable: false, remove: false)
        var sorted = diaries
        sorted.sort = [QuerySort("text")]
        #expect(try bob.query(sorted).records.map(\.recordName) == ["b1"])
        #expect(try bob.allMatches(diaries).map(\.recordName) == ["b1"])
        // A type the caller can't read at all is refused before anything is read.
        let nobody = try t.store.container().database(.public, environment: .development, caller: .anonymous())
        let e = ckError { _ = try nobody.query(diaries) }
        #expect(e?.code == .permissionFailure && e?.serverErrorCode == "ACCESS_DENIED")
        let memo = ckError { _ = try bob.plan(QueryRequest(recordType: "Memo")) }
        #expect(memo?.code == .permissionFailure)
    }

    @Test func notificationsNeverRevealWhatTheirOwnerMayNotRead() throws {
        let (t, alice, bob) = try seeded()
        let c = try t.store.container()
        #expect(try c.setRole("Editor", of: "bob", held: true, environment: .development))
        let sub = Subscription(subscriptionID: "memos", kind: .query(recordType: "Memo", predicate: "TRUEPREDICATE", arguments: [],
                                                                       firesOn: [.create], firesOnce: false, zoneName: nil),
                               notificationInfo: NotificationInfo(alertBody: "memo"))
        _ = try bob.saveSubscription(sub)
        try alice.save("Memo", "m1", ["text": "for editors"])
        #expect(try bob.notifications().map(\.recordName) == ["m1"])
        #expect(try c.setRole("Editor", of: "bob", held: false, environment: .development))
        try alice.save("Memo", "m2", ["text": "no longer for bob"])
        #expect(try bob.notifications().map(\.recordName) == ["m1"], "bob no longer reads memos: m2 notifies nothing")
        // Without the role, the subscription itself is refused.
        let e = ckError { _ = try bob.saveSubscription(sub) }
        #expect(e?.code == .permissionFailure && e?.serverErrorCode == "ACCESS_DENIED")
    }

    @Test func exportHoldsOnlyReadableRecords() throws {
        let (t, _, _) = try seeded()
        let doc = try t.store.container().exportFixtures(.development, as: try Caller.user("bob"))
        let names = (doc["records"]?.arrayValue ?? []).compactMap { $0["record"]?["recordName"]?.stringValue }
        #expect(names.sorted() == ["b1", "p1"])
    }

    // MARK: Writes

    @Test func writesAreRefusedByTheGrants() throws {
        let (t, alice, bob) = try seeded()
        let tag = try alice.fetchOne("p1").changeTag
        let update = ckError { try bob.save("Post", "p1", ["text": "bob's now"], ifTag: tag) }
        #expect(update?.code == .permissionFailure && update?.reason == "WRITE operation not permitted")
        let delete = try bob.modify([RecordOperation(type: .delete, recordName: "p1", changeTag: tag)]).results[0].error
        #expect(delete?.code == .permissionFailure && delete?.reason == "WRITE operation not permitted")
        let create = ckError { try bob.save("Notice", "n1", ["text": "from bob"]) }
        #expect(create?.code == .permissionFailure && create?.reason == "CREATE operation not permitted")
        // The request's own refusals still come before the grants: a wrong tag is a conflict, a missing record unknown.
        let stale = ckError { try bob.save("Post", "p1", ["text": "x"], ifTag: "stale") }
        #expect(stale?.code == .serverRecordChanged)
        let missing = try bob.modify([RecordOperation(type: .forceDelete, recordName: "nothing")]).results[0].error
        #expect(missing?.code == .unknownItem)
        #expect(try t.store.container().database(.public, environment: .development, caller: try Caller.user("alice")).fetchOne("p1").changeTag == tag)
    }

    @Test func aRecordsFaultPointIsTheSameCallAsItsGrants() throws {
        let (t, alice, bob) = try seeded()
        let c = try t.store.container()
        var rule = FaultRule(id: "p1", error: .serverRejectedRequest)
        rule.recordName = "p1"
        rule.times = 1
        _ = try c.addFault(rule, environment: .development)
        let tag = try alice.fetchOne("p1").changeTag
        // The fault point comes first: bob's write fails with the injected error, then with the grants'.
        let first = ckError { try bob.save("Post", "p1", ["text": "x"], ifTag: tag) }
        #expect(first?.code == .serverRejectedRequest)
        let second = ckError { try bob.save("Post", "p1", ["text": "x"], ifTag: tag) }
        #expect(second?.code == .permissionFailure)
        // A record a request can't find still reaches its fault point before the refusal.
        var missing = FaultRule(id: "gone", error: .serverRejectedRequest)
        missing.recordName = "gone"
        _ = try c.addFault(missing, environment: .development)
        #expect(try bob.modify([RecordOperation(type: .forceDelete, recordName: "gone")]).results[0].error?.code == .serverRejectedRequest)
    }

    @Test func importRefusesPublicRecordsTheCallerMayNotCreate() throws {
        let (t, alice, _) = try seeded()
        try alice.save("Post", "p2", ["text": "another"])
        var doc = try t.store.container().exportFixtures(.development, as: try Caller.user("alice"))
        // The same document, with a schema that grants CREATE on posts to nobody.
        let locked = PermissionStageTests.schema(postsCreated: false)
        guard case .object(var o) = doc else { Issue.record("export is not an object"); return }
        o["schema"] = try CKDB.parse(locked, file: "locked.ckdb").json
        doc = .object(o)
        // The check uses the grants in force (a user's import never installs its document's grants), so the
        // developer's locked schema is in the store first.
        let fresh = try TempStore()
        _ = try fresh.store.container().importSchema(try CKDB.parse(locked, file: "locked.ckdb"), file: "locked.ckdb")
        let e = ckError { _ = try fresh.store.container().importFixtures(doc, into: .development, as: try Caller.user("alice"), replace: false, label: "doc") }
        #expect(e?.code == .permissionFailure && e?.serverErrorCode == "ACCESS_DENIED")
        #expect(e?.reason == "doc: the acting user alice may not create 2 public records; nothing was imported")
        #expect(e?.items.map(\.error.reason) == ["CREATE operation not permitted", "CREATE operation not permitted"])
        // With the grant, the same document loads.
        let again = try TempStore()
        _ = try again.store.container().importSchema(try CKDB.parse(PermissionStageTests.schema(), file: "schema.ckdb"), file: "schema.ckdb")
        guard case .object(var good) = doc else { return }
        good["schema"] = try CKDB.parse(PermissionStageTests.schema(), file: "schema.ckdb").json
        #expect(try again.store.container().importFixtures(.object(good), into: .development, as: try Caller.user("alice"), replace: false, label: "doc").records >= 2)
    }
}
