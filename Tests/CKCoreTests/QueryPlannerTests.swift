import Foundation
import Testing
@testable import CKCore

/// The query planner's choices (conditions on the sort field narrowing the ordered scan, a selective filter
/// driving the query, the walk in sort order with per-row tests) give the same records in the same order,
/// page after page, as folding the whole log without the index.
@Suite struct QueryPlannerTests {
    /// A query: predicate, arguments and one sort (nil: by record name).
    struct Case: CustomStringConvertible {
        var predicate: String
        var arguments: [String] = []
        var sort: QuerySort?
        var description: String { "\(predicate) \(arguments) sorted by \(sort.map { "\($0.kind)" } ?? "recordName")" }
    }

    static func by(_ field: String, _ ascending: Bool = true) -> QuerySort { QuerySort(field, ascending: ascending) }

    static let cases: [Case] = [
        // Range and equality on the sort field: the ordered scan starts at the bound.
        Case(predicate: "count >= 3", sort: by("count")),
        Case(predicate: "count >= 3", sort: by("count", false)),
        Case(predicate: "count > 0 AND count < 42", sort: by("count")),
        Case(predicate: "count BETWEEN {3, 10}", sort: by("count", false)),
        Case(predicate: "count == 3", sort: by("count")),
        Case(predicate: "price <= 7.5", sort: by("price", false)),
        Case(predicate: "due > %@", arguments: ["2025-01-01T00:00:00Z"], sort: by("due", false)),
        Case(predicate: "name < 'm'", sort: by("name", false)),
        Case(predicate: "name >= 'C'", sort: by("name")),
        // Equality on one field, sorted by another.
        Case(predicate: "count == 3", sort: by("price", false)),
        Case(predicate: "count IN {3, 42}", sort: by("price")),
        Case(predicate: "owner == %@", arguments: ["ref:i01"], sort: by("count")),
        Case(predicate: "name == 'apple pie'", sort: by("due")),
        Case(predicate: "count >= 3 AND tags CONTAINS 'dessert'", sort: by("price")),
        Case(predicate: "price > 1", sort: by("count")),
        Case(predicate: "count != 3", sort: by("count")),
        Case(predicate: "recordName == 'i05'", sort: by("count")),
        // BEGINSWITH, on the sort field and on another.
        Case(predicate: "name BEGINSWITH 'Apple'", sort: by("name")),
        Case(predicate: "name BEGINSWITH 'C'", sort: by("name", false)),
        Case(predicate: "name BEGINSWITH 'C'", sort: by("count")),
        // Token search.
        Case(predicate: "self CONTAINS 'fox'", sort: by("___createTime")),
        Case(predicate: "self CONTAINS 'apple'", sort: by("count", false)),
        Case(predicate: "self CONTAINS 'bread'", sort: nil),
        // TRUEPREDICATE in creation and modification order, and by name.
        Case(predicate: "TRUEPREDICATE", sort: by("___createTime")),
        Case(predicate: "TRUEPREDICATE", sort: by("___createTime", false)),
        Case(predicate: "TRUEPREDICATE", sort: by("___modTime", false)),
        Case(predicate: "TRUEPREDICATE", sort: nil),
        Case(predicate: "TRUEPREDICATE", sort: by("count")),
        // List membership.
        Case(predicate: "tags CONTAINS 'dessert'", sort: by("count", false)),
        Case(predicate: "tags CONTAINS 'french'", sort: nil),
        Case(predicate: "ANY tags IN {'french', 'road'}", sort: by("due")),
        Case(predicate: "scores CONTAINS 7", sort: by("name")),
        Case(predicate: "'device' IN tags", sort: by("___createTime")),
    ]

    /// Every name the query returns, following cursors page by page.
    static func run(_ fixture: CorpusFixture, _ c: Case, pageSize: Int) throws -> [String] {
        let db = try fixture.temp.db()
        var names: [String] = []
        var cursor: String? = nil
        repeat {
            let page = try db.query(QueryRequest(recordType: "Item", predicate: c.predicate, arguments: c.arguments,
                                                 sort: c.sort.map { [$0] } ?? [], limit: pageSize, cursor: cursor),
                                    zone: "_defaultZone")
            names += page.records.map(\.recordName)
            cursor = page.cursor
            if names.count > 100 { Issue.record("\(c): the cursors never end"); break }
        } while cursor != nil
        return names
    }

    static func fixture() throws -> CorpusFixture {
        let fixture = try CorpusFixture()
        try fixture.temp.store.container().setIndexes(recordType: "Item", field: "___createTime", queryable: true,
                                                      sortable: true, searchable: false, remove: false)
        return fixture
    }

    /// Index on (the planner picks a driver), index on with no driver (the walk in sort order), index
    /// off: one page of everything, and pages of 2, all give the full scan's answer.
    @Test func plannerAgreesWithTheFullScan() throws {
        let fixture = try QueryPlannerTests.fixture()
        let store = fixture.temp.store
        for c in QueryPlannerTests.cases {
            store.indexEnabled = false
            let want = try QueryPlannerTests.run(fixture, c, pageSize: 200)
            #expect(Set(want).count == want.count, "\(c): the full scan returned a record twice: \(want)")
            for (indexed, limit, pageSizes) in [(true, 2000, [2, 200]), (true, 0, [2, 200]), (false, 2000, [2])] {
                store.indexEnabled = indexed
                store.queryDriverLimit = limit
                for pageSize in pageSizes {
                    let got = try QueryPlannerTests.run(fixture, c, pageSize: pageSize)
                    #expect(got == want, "\(c), index \(indexed ? "on" : "off"), driver limit \(limit), pages of \(pageSize)")
                }
            }
        }
    }

    /// A few answers written out from the dataset, so agreement alone can't hide a shared mistake.
    @Test func plannerAnswersFromTheDataset() throws {
        let fixture = try QueryPlannerTests.fixture()
        let expected: [(Case, [String])] = [
            // counts: i01 3, i05 3, i11 3, i08 7, i12 8, i02 10, i07 42, i09 100; ties by name.
            (Case(predicate: "count >= 3", sort: QueryPlannerTests.by("count")), ["i01", "i05", "i11", "i08", "i12", "i02", "i07", "i09"]),
            (Case(predicate: "count > 0 AND count < 42", sort: QueryPlannerTests.by("count", false)), ["i02", "i12", "i08", "i11", "i05", "i01", "i06"]),
            // prices: i01 7.5, i05 5.25, i11 7.5.
            (Case(predicate: "count == 3", sort: QueryPlannerTests.by("price")), ["i05", "i01", "i11"]),
            (Case(predicate: "tags CONTAINS 'dessert'", sort: QueryPlannerTests.by("count", false)), ["i11", "i01", "i03"]),
            (Case(predicate: "TRUEPREDICATE", sort: QueryPlannerTests.by("___createTime", false)),
             ["i12", "i11", "i10", "i09", "i08", "i07", "i06", "i05", "i04", "i03", "i02", "i01"]),
            // price > 1: every record with a count in count order, then i10 (price 19.99, no count).
            (Case(predicate: "price > 1", sort: QueryPlannerTests.by("count")), ["i04", "i03", "i01", "i05", "i11", "i08", "i07", "i09", "i10"]),
        ]
        for limit in [2000, 0] {
            fixture.temp.store.queryDriverLimit = limit
            for (c, want) in expected {
                #expect(try QueryPlannerTests.run(fixture, c, pageSize: 2) == want, "\(c), driver limit \(limit)")
            }
        }
    }
}
