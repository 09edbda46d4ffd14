import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKQuery
@testable import CKServer
@testable import CKDataModel

/// `allMatches` and `deleteListed`: the server side of `ck record delete --query` and cktool's delete-records.
@Suite struct DeleteByQueryTests {
    @Test func moreThanOnePageIsListedAndDeletedInRequestsOf200() throws {
        let t = try TempStore()
        let db = try t.db()
        let ops = (0..<450).map { i in
            RecordOperation.save(recordType: "Item", recordName: String(format: "i%03d", i),
                                 fields: ["n": .text(String(i), type: .int64, action: nil)], ifTag: nil, policy: nil)
        }
        try db.modify(requests: stride(from: 0, to: ops.count, by: 200).map { Array(ops[$0..<min($0 + 200, ops.count)]) }) { _ in }
        let matches = try db.allMatches(QueryRequest(recordType: "Item", filters: [try QueryFilter.cktool("n >= 20")]))
        #expect(matches.count == 430)
        #expect(Set(matches.map(\.recordName)).count == 430)
        var requestSizes: [Int] = []
        try db.deleteListed(matches) { requestSizes.append($0.results.count); #expect($0.failures.isEmpty) }
        #expect(requestSizes == [200, 200, 30])
        let left = try db.allMatches(QueryRequest(recordType: "Item", filters: [try QueryFilter.cktool("n >= 0")]))
        #expect(left.map(\.recordName) == (0..<20).map { String(format: "i%03d", $0) }.sorted())
    }

    @Test func aRecordChangedSinceItWasListedIsNotDeleted() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Item", "a", ["n": "1"])
        try db.save("Item", "b", ["n": "2"])
        let listed = try db.allMatches(QueryRequest(recordType: "Item", filters: [try QueryFilter.cktool("n > 0")]))
        #expect(listed.count == 2)
        try db.save("Item", "b", ["n": "3"], policy: .changedKeys)
        var results: [RecordResult] = []
        try db.deleteListed(listed) { results += $0.results }
        #expect(results.map(\.recordName) == ["a", "b"])
        #expect(results[0].error == nil)
        #expect(results[1].error?.code == .serverRecordChanged)
        #expect(try db.fetchOne("b").fields["n"] == .int64(3))
    }

    @Test func aListedRecordACascadeRemovesIsDeletedOnce() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Item", "parent", ["n": "1"])
        _ = try db.modify([.save(recordType: "Item", recordName: "child",
                                 fields: ["n": .text("2", type: .int64, action: nil),
                                          "owner": .text("parent", type: .reference, action: .deleteSelf)], ifTag: nil, policy: nil)])
        let listed = try db.allMatches(QueryRequest(recordType: "Item", filters: [try QueryFilter.cktool("n > 0")],
                                                    sort: [QuerySort("n")]))
        #expect(listed.map(\.recordName) == ["parent", "child"])
        var results: [RecordResult] = []
        try db.deleteListed(listed) { results += $0.results }
        #expect(results.allSatisfy { $0.error == nil })
        var deleted: [String] = []
        for case .deleted(let name, _, let cascade) in results { deleted.append(name + (cascade ? " (cascade)" : "")) }
        // In the default zone the cascade runs after the request: the child, still there, goes by its own operation.
        #expect(deleted == ["parent", "child"])
        #expect(ckError { _ = try db.fetchOne("child") }?.code == .unknownItem)
    }
}
