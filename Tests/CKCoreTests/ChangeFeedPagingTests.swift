import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKServer
@testable import CKDataModel

/// The zone feed read a page at a time through the index (saves by sequence number, deletions from their own
/// table) answers exactly what folding the whole log answers: every page, its token and moreComing, from the
/// start and from a token in the middle, across deletes and re-saves, after compaction and at the end.
@Suite struct ChangeFeedPagingTests {
    /// One page as the comparison sees it: each change (name, deleted or the saved fields), token, moreComing.
    struct Page: Equatable, CustomStringConvertible {
        var changes: [String]
        var token: String
        var more: Bool
        var description: String { "\(changes) more=\(more)" }

        init(_ c: ZoneChanges) {
            changes = c.changes.map { ch in
                ch.record.map { r in
                    if case .int64(let i)? = r.fields["i"] { return "\(r.recordName)=\(i)" }
                    return "\(r.recordName)=\(String(describing: r.fields["i"]))"
                } ?? "\(ch.recordName) deleted \(ch.recordType)"
            }
            token = c.syncToken
            more = c.moreComing
        }
    }

    func delete(_ db: CKDatabase, _ name: String) throws {
        let r = try db.modify([RecordOperation(type: .forceDelete, recordName: name)], zone: "Z")
        if let e = r.results.first?.error { throw e }
    }

    /// Pages of `limit` from `token` until moreComing is false.
    func pages(_ t: TempStore, indexed: Bool, since token: String?, limit: Int?) throws -> [Page] {
        t.store.indexEnabled = indexed
        let db = try t.db()
        var out: [Page] = []
        var since = token
        repeat {
            let c = try db.zoneChanges(zone: "Z", since: since, limit: limit)
            out.append(Page(c))
            since = c.syncToken
        } while out.last?.more == true && out.count < 200
        return out
    }

    /// A zone whose history has re-saves, deletions, deletions of re-saved records and a record deleted twice;
    /// returns a token from the middle of it.
    func churned(_ t: TempStore) throws -> String {
        let db = try t.db()
        try db.createZone("Z")
        for i in 0..<20 { try db.save("Item", "r\(i)", ["i": "\(i)"], zone: "Z") }
        try delete(db, "r5")
        try db.save("Item", "r5", ["i": "105"], zone: "Z")
        try delete(db, "r5")
        try db.save("Item", "r3", ["i": "103"], policy: .changedKeys, zone: "Z")
        let middle = try db.zoneChanges(zone: "Z").syncToken
        try delete(db, "r7")
        try db.save("Item", "r7", ["i": "107"], zone: "Z")
        try delete(db, "r0")
        try db.save("Item", "r3", ["i": "203"], policy: .changedKeys, zone: "Z")
        try delete(db, "r19")
        try db.save("Other", "late", ["i": "1"], zone: "Z")
        try delete(db, "r12")
        try db.save("Item", "r12", ["i": "112"], zone: "Z")
        try delete(db, "r12")
        return middle
    }

    @Test func everyPageAgreesWithFoldingTheLog() throws {
        let t = try TempStore()
        let middle = try churned(t)
        for since in [nil, middle] {
            for limit in [1, 2, 3, 7, 100, nil] {
                let folded = try pages(t, indexed: false, since: since, limit: limit)
                #expect(try pages(t, indexed: true, since: since, limit: limit) == folded, "limit \(String(describing: limit))")
            }
        }
        let all = try pages(t, indexed: true, since: nil, limit: nil)
        #expect(all.count == 1)
        let names = all[0].changes
        // r5 (deleted, re-saved, deleted) and r12 show once, as deletions; r0 was deleted, r7 re-saved, r3 saved last.
        #expect(names.filter { $0.hasPrefix("r5 ") } == ["r5 deleted Item"])
        #expect(names.filter { $0.hasPrefix("r12") } == ["r12 deleted Item"])
        #expect(names.suffix(6) == ["r7=107", "r0 deleted Item", "r3=203", "r19 deleted Item", "late=1", "r12 deleted Item"])
        let after = try pages(t, indexed: true, since: middle, limit: nil)
        #expect(after[0].changes == ["r7=107", "r0 deleted Item", "r3=203", "r19 deleted Item", "late=1", "r12 deleted Item"])
    }

    @Test func aTokenAtTheEndAnswersNothingAndKeepsItsPlace() throws {
        let t = try TempStore()
        _ = try churned(t)
        for indexed in [true, false] {
            let last = try #require(try pages(t, indexed: indexed, since: nil, limit: 4).last)
            let again = try pages(t, indexed: indexed, since: last.token, limit: 4)
            #expect(again.count == 1 && again[0].changes.isEmpty && !again[0].more)
            #expect(again[0].token == last.token)
        }
        // A page that ends exactly on the last change says moreComing false.
        t.store.indexEnabled = true
        let db = try t.db()
        let count = try db.zoneChanges(zone: "Z").changes.count
        #expect(try !db.zoneChanges(zone: "Z", limit: count).moreComing)
        #expect(try db.zoneChanges(zone: "Z", limit: count - 1).moreComing)
    }

    @Test func compactedHistoryPagesTheSameAndOldTokensExpire() throws {
        let t = try TempStore()
        let middle = try churned(t)
        try t.store.container().collectGarbage(.development)
        for limit in [1, 3, nil] {
            let folded = try pages(t, indexed: false, since: nil, limit: limit)
            #expect(try pages(t, indexed: true, since: nil, limit: limit) == folded)
            // Compaction drops deletions: what is left is the live records.
            #expect(folded.flatMap(\.changes).allSatisfy { !$0.contains("deleted") })
        }
        for indexed in [true, false] {
            t.store.indexEnabled = indexed
            #expect(ckError { _ = try t.db().zoneChanges(zone: "Z", since: middle) }?.code == .changeTokenExpired)
        }
        // Deletions after the compaction are in the feed again.
        t.store.indexEnabled = true
        let db = try t.db()
        let token = try db.zoneChanges(zone: "Z").syncToken
        try delete(db, "r1")
        try db.save("Item", "r1", ["i": "301"], zone: "Z")
        try delete(db, "r2")
        for limit in [1, nil] {
            let folded = try pages(t, indexed: false, since: token, limit: limit)
            #expect(try pages(t, indexed: true, since: token, limit: limit) == folded)
            #expect(folded.flatMap(\.changes) == ["r1=301", "r2 deleted Item"])
        }
    }

    /// The paged call hands out what one call with the same limit answers, split into pages of `pageSize`.
    @Test func pagesOfTheServerPageSizeJoinToTheWholeAnswer() throws {
        let t = try TempStore()
        let middle = try churned(t)
        for indexed in [true, false] {
            t.store.indexEnabled = indexed
            let db = try t.db()
            for since in [nil, middle] {
                for limit in [1, 5, 13, nil] {
                    let whole = try db.zoneChanges(zone: "Z", since: since, limit: limit)
                    for pageSize in [1, 2, 4, 5, 100] {
                        var got: [ZoneChanges] = []
                        try db.zoneChanges(zone: "Z", since: since, limit: limit, pageSize: pageSize) { (page) throws(CKError) in got.append(page) }
                        #expect(got.dropLast().allSatisfy { $0.changes.count == pageSize && $0.moreComing })
                        #expect(got.flatMap(\.changes).map(\.recordName) == whole.changes.map(\.recordName))
                        #expect(got.last?.syncToken == whole.syncToken && got.last?.moreComing == whole.moreComing)
                    }
                }
            }
        }
    }

    @Test func theServerPageSizeBoundary() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Z")
        let size = CKDatabase.changesPageSize
        let ops = (0..<size).map { i in
            RecordOperation(type: .create, recordName: "r\(i)", recordType: "Item", fields: ["i": .text("\(i)", type: nil, action: nil)])
        }
        // CloudKit takes 200 operations a request.
        for start in stride(from: 0, to: ops.count, by: 200) {
            #expect(try db.modify(Array(ops[start..<min(ops.count, start + 200)]), zone: "Z").results.allSatisfy { $0.error == nil })
        }
        func pageCounts() throws -> [Int] {
            var counts: [Int] = []
            try db.zoneChanges(zone: "Z", pageSize: size) { (page) throws(CKError) in counts.append(page.changes.count) }
            return counts
        }
        #expect(try pageCounts() == [size])
        try db.save("Item", "extra", ["i": "1"], zone: "Z")
        #expect(try pageCounts() == [size, 1])
        try delete(db, "r0")
        // r0's deletion replaces its save: still one more than a page.
        #expect(try pageCounts() == [size, 1])
        var pending: [Int] = []
        try db.zoneChanges(zone: "Z", pageSize: size, countingPending: true) { (page) throws(CKError) in pending.append(page.pending) }
        #expect(pending == [size + 1, 1])
        #expect(try db.zoneChanges(zone: "Z").pending == size + 1)
        t.store.indexEnabled = false
        #expect(try t.db().zoneChanges(zone: "Z").pending == size + 1)
    }
}
