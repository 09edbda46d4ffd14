import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKQuery
@testable import CKStorage
@testable import CKServer
@testable import CKDataModel

/// The query planner's choices (conditions on the sort field narrowing the ordered scan, a selective filter
/// driving the query, the walk in sort order with per-row tests) give the same records in the same order,
/// page after page, as folding the whole log without the index.
@Suite struct QueryPlannerTests {
    /// A query: predicate, arguments and one sort (nil: by record name).
    struct Case: CustomStringConvertible {
        var predicate: String
        var arguments: [String] = []
        var filters: [QueryFilter] = []
        var sort: QuerySort?
        var description: String {
            "\(predicate) \(arguments) \(filters.map { "\($0.comparator) \($0.value)" }) sorted by \(sort.map { "\($0.kind)" } ?? "recordName")"
        }
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
        // Token search: one token, several, tokens only in a LIST<STRING>, case and diacritics folded,
        // stop words dropped, with other filters, in name order and in another.
        Case(predicate: "self CONTAINS 'fox'", sort: by("___createTime")),
        Case(predicate: "self CONTAINS 'apple'", sort: by("count", false)),
        Case(predicate: "self CONTAINS 'bread'", sort: nil),
        Case(predicate: "self CONTAINS 'apple'", sort: nil),
        Case(predicate: "self CONTAINS 'apple'", sort: by("___recordID", false)),
        Case(predicate: "self CONTAINS 'apple pie'", sort: nil),
        Case(predicate: "self CONTAINS 'apple' AND self CONTAINS 'watch'", sort: by("price")),
        Case(predicate: "self CONTAINS 'french'", sort: nil),
        Case(predicate: "self CONTAINS 'french'", sort: by("price", false)),
        Case(predicate: "self CONTAINS 'bay area'", sort: nil),
        Case(predicate: "self CONTAINS 'CREME'", sort: nil),
        Case(predicate: "self CONTAINS 'café'", sort: by("count")),
        Case(predicate: "self CONTAINS 'Zoe cooperative'", sort: nil),
        Case(predicate: "self CONTAINS 'the fox'", sort: nil),
        Case(predicate: "self CONTAINS '1998'", sort: nil),
        Case(predicate: "self CONTAINS 'road'", sort: by("name")),
        Case(predicate: "self CONTAINS 'nothing'", sort: nil),
        Case(predicate: "self CONTAINS 'fox' AND count > 5", sort: nil),
        Case(predicate: "self CONTAINS 'dessert' AND tags CONTAINS 'sweet'", sort: by("count")),
        Case(predicate: "allTokens TOKENMATCHES[cdl] 'sweet dessert'", sort: nil),
        Case(predicate: "", filters: [QueryFilter(field: "self", comparator: .CONTAINS_ANY_TOKENS, value: .string("fox pie"))], sort: nil),
        Case(predicate: "", filters: [QueryFilter(field: "self", comparator: .CONTAINS_ANY_TOKENS, value: .string("walnuts"))], sort: by("count")),
        Case(predicate: "", filters: [QueryFilter(field: "self", comparator: .CONTAINS_ALL_TOKENS, value: .string("Cream thick"))], sort: nil),
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
        // List membership and equality in name order: driven through the value's index in name order.
        Case(predicate: "scores CONTAINS 7", sort: nil),
        Case(predicate: "tags CONTAINS 'dessert'", sort: by("___recordID", false)),
        Case(predicate: "count == 3 AND tags CONTAINS 'sweet'", sort: nil),
        Case(predicate: "owner == %@", arguments: ["ref:i05"], sort: nil),
    ]

    /// Every name the query returns, following cursors page by page.
    static func run(_ fixture: CorpusFixture, _ c: Case, pageSize: Int, environment: CKCore.Environment = .development) throws -> [String] {
        let db = try fixture.temp.db(.private, environment)
        var names: [String] = []
        var cursor: String? = nil
        repeat {
            let page = try db.query(QueryRequest(recordType: "Item", predicate: c.predicate, arguments: c.arguments, filters: c.filters,
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
        try fixture.temp.store.container().setIndexes(recordType: "Item", field: "___recordID", queryable: true,
                                                      sortable: true, searchable: false, remove: false)
        return fixture
    }

    /// Index on (the planner picks a driver), index on with a driver limit of 1 (every filter counts as
    /// common: in name order an equality's index drives, otherwise the walk), index on with no driver (the
    /// walk in sort order), index off: one page of everything, and pages of 2, all give the full scan's answer.
    @Test func plannerAgreesWithTheFullScan() throws {
        let fixture = try QueryPlannerTests.fixture()
        try QueryPlannerTests.agree(fixture, QueryPlannerTests.cases)
    }

    static func agree(_ fixture: CorpusFixture, _ cases: [Case], environment: CKCore.Environment = .development,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = fixture.temp.store
        defer { store.indexEnabled = true; store.queryDriverLimit = 2000 }
        for c in cases {
            store.indexEnabled = false
            let want = try QueryPlannerTests.run(fixture, c, pageSize: 200, environment: environment)
            #expect(Set(want).count == want.count, "\(c): the full scan returned a record twice: \(want)", sourceLocation: sourceLocation)
            for (indexed, limit, pageSizes) in [(true, 2000, [2, 200]), (true, 1, [2, 200]), (true, 0, [2, 200]), (false, 2000, [2])] {
                store.indexEnabled = indexed
                store.queryDriverLimit = limit
                for pageSize in pageSizes {
                    let got = try QueryPlannerTests.run(fixture, c, pageSize: pageSize, environment: environment)
                    #expect(got == want, "\(c), index \(indexed ? "on" : "off"), driver limit \(limit), pages of \(pageSize)",
                            sourceLocation: sourceLocation)
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

    /// Token search written out from the dataset: folding, stop words, lists, several tokens.
    @Test func tokenSearchAnswersFromTheDataset() throws {
        let fixture = try QueryPlannerTests.fixture()
        let expected: [(String, [String])] = [
            ("self CONTAINS 'creme'", ["i01", "i06"]),
            ("self CONTAINS 'CAFE'", ["i08"]),
            ("self CONTAINS 'french'", ["i01", "i06", "i08"]),
            ("self CONTAINS 'apple'", ["i03", "i04"]),
            ("self CONTAINS 'apple pie'", ["i03"]),
            ("self CONTAINS 'the fox'", ["i02", "i12"]),
            ("self CONTAINS 'area'", ["i10"]),
            ("self CONTAINS 'zoe'", ["i09"]),
        ]
        for limit in [2000, 1, 0] {
            fixture.temp.store.queryDriverLimit = limit
            for (predicate, want) in expected {
                #expect(try QueryPlannerTests.run(fixture, Case(predicate: predicate), pageSize: 2) == want, "\(predicate), driver limit \(limit)")
            }
        }
    }

    static let tokenCases: [Case] = [
        Case(predicate: "self CONTAINS 'fox'", sort: nil),
        Case(predicate: "self CONTAINS 'fox'", sort: by("count")),
        Case(predicate: "self CONTAINS 'brown'", sort: nil),
        Case(predicate: "self CONTAINS 'turtle'", sort: by("___createTime")),
        Case(predicate: "self CONTAINS 'den'", sort: nil),
        Case(predicate: "self CONTAINS 'secret'", sort: nil),
        Case(predicate: "self CONTAINS 'hidden fox'", sort: nil),
        Case(predicate: "self CONTAINS 'cinnamon'", sort: by("price", false)),
        Case(predicate: "self CONTAINS 'custard'", sort: nil),
    ]

    /// Token search after records change: a token removed by an update, a record deleted, a token only in a
    /// new record's list, an encrypted value (never searched). Changed after the token index was built (kept
    /// up to date) and before (built from the changed records); and the index holds no stale tokens.
    @Test func tokenSearchFollowsChanges() throws {
        for queryFirst in [true, false] {
            let fixture = try QueryPlannerTests.fixture()
            let db = try fixture.temp.db()
            if queryFirst {
                #expect(try QueryPlannerTests.run(fixture, Case(predicate: "self CONTAINS 'fox'"), pageSize: 200) == ["i02", "i12"])
            }
            func s(_ v: String) -> FieldInput { .value(.string(v)) }
            try CorpusFixture.saveOne(db, "Item", "i02", ["name": s("the slow brown turtle")], policy: .changedKeys)
            _ = try db.modify([RecordOperation(type: .forceDelete, recordName: "i12")])
            try CorpusFixture.saveOne(db, "Item", "i13", ["name": s("Lists"), "tags": .text("red fox,hidden", type: FieldType(.string, list: true), action: nil)])
            try CorpusFixture.saveOne(db, "Item", "i14", ["name": s("Sealed"), "secret": .value(.encrypted(.string("fox secret")))])
            // i01 loses "custard" from its body, then gets it back in its name.
            try CorpusFixture.saveOne(db, "Item", "i01", ["body": s("Caramelised sugar")], policy: .changedKeys)
            try CorpusFixture.saveOne(db, "Item", "i01", ["name": s("Custard")], policy: .changedKeys)
            #expect(try QueryPlannerTests.run(fixture, Case(predicate: "self CONTAINS 'fox'"), pageSize: 200) == ["i13"])
            #expect(try QueryPlannerTests.run(fixture, Case(predicate: "self CONTAINS 'secret'"), pageSize: 200) == [])
            try QueryPlannerTests.agree(fixture, QueryPlannerTests.tokenCases)

            let index = try RecordIndex.open(envDir: fixture.temp.envDir)
            let rows = try index.db.prepare("SELECT r.name FROM toks k JOIN tokens t ON t.id = k.tok JOIN records r ON r.id = k.rec WHERE t.tok = 'fox' ORDER BY r.name")
            var names: [String] = []
            while try rows.step() { names.append(rows.text(0)) }
            #expect(names == ["i13", "o01"], "queried first: \(queryFirst)")
        }
    }

    /// In production only the SEARCHABLE fields are searched; the index holds every string's tokens, and the
    /// check of each candidate keeps the answer exact.
    @Test func tokenSearchInProductionSearchesOnlySearchableFields() throws {
        let fixture = try QueryPlannerTests.fixture()
        let container = try fixture.temp.store.container()
        // Strings saved in development come SEARCHABLE; body no longer is.
        try container.setIndexes(recordType: "Item", field: "body", queryable: false, sortable: false, searchable: true, remove: true)
        try container.deploySchema()
        let prod = try fixture.temp.db(.private, .production)
        try CorpusFixture.saveOne(prod, "Item", "p01", ["name": .value(.string("Fox")), "body": .value(.string("bread"))])
        try CorpusFixture.saveOne(prod, "Item", "p02", ["name": .value(.string("Bread")), "body": .value(.string("fox"))])
        try CorpusFixture.saveOne(prod, "Item", "p03", ["name": .value(.string("Fox and bread"))])
        let cases = [Case(predicate: "self CONTAINS 'fox'"), Case(predicate: "self CONTAINS 'bread'"),
                     Case(predicate: "self CONTAINS 'fox bread'", sort: QueryPlannerTests.by("___createTime", false))]
        for limit in [2000, 1, 0] {
            fixture.temp.store.queryDriverLimit = limit
            let got = try QueryPlannerTests.run(fixture, cases[0], pageSize: 1, environment: .production)
            #expect(got == ["p01", "p03"])
            #expect(try QueryPlannerTests.run(fixture, cases[1], pageSize: 1, environment: .production) == ["p02", "p03"])
        }
        try QueryPlannerTests.agree(fixture, cases, environment: .production)
    }

    /// The ASCII fast path of the tokenizer gives exactly Foundation's folding and Character classes.
    @Test func asciiTokensMatchTheGeneralTokenizer() throws {
        var rng = SeededRNG(seed: 16)
        let alphabet = Array("aZ09 -_.,'\t\r\nThe AND with Q\u{7F}\u{1}!~`z".utf8)
        var texts = ["", " ", "THE", "Their", "there's", "x1y2", "ABC-def_ghi", "a\r\nb", "it IS", "Into INTO intoo"]
        for _ in 0..<500 {
            let n = Int(rng.next() % 40)
            texts.append(String(decoding: (0..<n).map { _ in alphabet[Int(rng.next() % UInt64(alphabet.count))] }, as: UTF8.self))
        }
        texts.append(String(decoding: (0..<128).map { UInt8($0) }, as: UTF8.self))
        for t in texts {
            #expect(Tokenizer.asciiTokens(t) == Tokenizer.foldedTokens(t), "\(Array(t.utf8))")
        }
        #expect(Tokenizer.asciiTokens("café") == nil)
        #expect(Tokenizer.tokens("Crème BRÛLÉE") == ["creme", "brulee"])
    }

    /// Gathered tokens written out whenever the gathering is full give the same rows as written at once, and
    /// the same as each record's own tokens; names that need escaping in JSON survive the trip.
    @Test func tokenPostingsWrittenInPiecesGiveEveryRecordsTokens() throws {
        let fixture = try QueryPlannerTests.fixture()
        let records = try fixture.db.records().sorted { $0.recordName < $1.recordName }
        var want: [String] = []
        // Each record's id is its place in name order.
        for (i, r) in records.enumerated() { want += RecordIndex.tokens(r).map { "\($0) \(i + 1)" } }
        want.sort()
        #expect(want.count > 50)
        let index = try RecordIndex.open(envDir: fixture.temp.dir)
        for (log, pairs, tokens) in [(Int64(101), 2_000_000, 200_000), (102, 7, 1_000), (103, 1_000, 3)] {
            var postings = TokenPostings(maxPairs: pairs, maxTokens: tokens)
            for (i, r) in records.enumerated() {
                postings.add(r, id: Int64(i + 1))
                if postings.isFull { try postings.write(log, into: index.db) }
            }
            try postings.write(log, into: index.db)
            let rows = try index.db.prepare("SELECT t.tok, k.rec FROM toks k JOIN tokens t ON t.id = k.tok WHERE t.log = ?1")
            try rows.bind([log])
            var got: [String] = []
            while try rows.step() { got.append("\(rows.text(0)) \(rows.int(1))") }
            #expect(got.sorted() == want, "log \(log)")
        }
        let odd = ["plain", "quote\"d", "back\\slash", "tab\tand\u{1}", "é✓"]
        let each = try index.db.prepare("SELECT value FROM json_each(?1)")
        try each.bind([RecordIndex.jsonArray(odd)])
        var back: [String] = []
        while try each.step() { back.append(each.text(0)) }
        #expect(back == odd)
    }
}

