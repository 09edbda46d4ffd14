import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKQuery
@testable import CKServer

/// A cursor is accepted only by the query that made it: the fingerprint must tell apart every value and sort.
@Suite struct QueryFingerprintTests {
    @Test func valuesThatDifferGiveDifferentTexts() {
        let values: [QueryValue] = [
            .string("1"), .int(1), .double(1), .bool(true), .date(1),
            .bytes([1, 2]), .bytes([1, 3]),
            .reference(Reference(recordName: "a", zoneName: nil, ownerRecordName: nil, action: .none)),
            .reference(Reference(recordName: "a", zoneName: "Z", ownerRecordName: nil, action: .none)),
            .reference(Reference(recordName: "a", zoneName: "Z", ownerRecordName: "_u", action: .none)),
            .location(Location(latitude: 1, longitude: 2)), .location(Location(latitude: 1, longitude: 2.5)),
            .list([.string("a"), .string("b")]), .list([.string("a,b")]), .list([.string("ab")]),
        ]
        let texts = values.map(CKDatabase.fingerprintText)
        #expect(Set(texts).count == values.count, "\(texts)")
    }

    @Test func aCursorIsRefusedByAQuerySortedTheOtherWay() throws {
        let t = try TempStore()
        let db = try t.db()
        for i in 0..<5 { try db.save("Note", "n\(i)", ["n": "\(i)"]) }
        let first = try db.query(QueryRequest(recordType: "Note", predicate: "n >= 0", sort: [QuerySort("n")], limit: 2, cursor: nil))
        let cursor = try #require(first.cursor)
        let next = try db.query(QueryRequest(recordType: "Note", predicate: "n >= 0", sort: [QuerySort("n")], limit: 2, cursor: cursor))
        #expect(next.records.map(\.recordName) == ["n2", "n3"])
        let other = ckError {
            _ = try db.query(QueryRequest(recordType: "Note", predicate: "n >= 0", sort: [QuerySort("n", ascending: false)], limit: 2, cursor: cursor))
        }
        #expect(other?.reason.contains("belongs to another query") == true, "\(String(describing: other))")
    }
}
