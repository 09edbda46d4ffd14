import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKQuery
@testable import CKServer
@testable import CKDataModel

/// Runs every predicate of `Corpus/predicates.tsv` (its header documents the format) against one fixed
/// dataset and checks each outcome: exactly the expected Item records, or the expected refusal.
/// The expectations come from CloudKit's documented rules, not from the engine's output.
@Suite struct QueryCorpusTests {
    /// The same answers with the index (SQL narrows and orders) and without it (whole logs are folded).
    @Test(arguments: [true, false]) func corpus(indexed: Bool) throws {
        let (cases, problems) = try CorpusFile.load()
        for p in problems { Issue.record("\(p)") }
        #expect(cases.count >= 150, "the corpus has \(cases.count) cases; it should keep at least 150")
        #expect(cases.contains { if case .matches = $0.expected { return true }; return false })
        #expect(cases.contains { if case .refused = $0.expected { return true }; return false })

        let fixture = try CorpusFixture(indexed: indexed)
        for c in cases { check(c, fixture) }
    }

    /// Runs one case and records every way its outcome differs from the expectation.
    private func check(_ c: CorpusCase, _ fixture: CorpusFixture) {
        let label = c.label
        if case .matches(let want) = c.expected {
            let unknown = want.filter { !CorpusFixture.itemNames.contains($0) }
            #expect(unknown.isEmpty, "\(label): the expectation names records the dataset lacks: \(unknown)")
        }
        let run: () throws -> QueryResult = {
            try fixture.db.query(QueryRequest(recordType: "Item", predicate: c.predicate, arguments: c.arguments,
                                              sort: [QuerySort("name")], limit: 200),
                                 zone: "_defaultZone")
        }
        do {
            let result = try run()
            let names = result.records.map(\.recordName)
            let got = Set(names)
            switch c.expected {
            case .matches(let want):
                #expect(got == Set(want), "\(label): expected \(CorpusCase.show(want)), got \(CorpusCase.show(got))")
                #expect(names.count == got.count, "\(label): a record came back more than once: \(names)")
                #expect(result.records.allSatisfy { $0.recordType == "Item" }, "\(label): records of another type came back")
                #expect(result.cursor == nil, "\(label): a cursor came back although every match fits in one page")
            case .refused(let code, _, _):
                Issue.record("\(label): expected refusal \(code.name), got \(CorpusCase.show(got))")
            }
        } catch let e as CKError {
            switch c.expected {
            case .matches(let want):
                Issue.record("\(label): expected \(CorpusCase.show(want)), got \(e.code.name): \(e.reason)\(e.hint.map { " (hint: \($0))" } ?? "")")
            case .refused(let code, let column, let words):
                #expect(e.code == code, "\(label): expected \(code.name), got \(e.code.name): \(e.reason)")
                if let column {
                    let reported = e.details["column"]?.int64Value
                    #expect(reported == Int64(column), "\(label): expected column \(column), got \(reported.map(String.init) ?? "none") (\(e.reason))")
                }
                let text = (e.reason + " " + (e.hint ?? "")).lowercased()
                let missing = words.filter { !text.contains($0.lowercased()) }
                #expect(missing.isEmpty, "\(label): \(missing) not in reason '\(e.reason)' / hint '\(e.hint ?? "")'")
            }
        } catch {
            Issue.record("\(label): threw a non-CKError: \(error)")
        }
    }

    @Test func unknownRecordTypeIsRefused() throws {
        let fixture = try CorpusFixture()
        for predicate in ["TRUEPREDICATE", "name == 'Crumble'", nil] as [String?] {
            let e = ckError { _ = try fixture.db.query(QueryRequest(recordType: "Nope", predicate: predicate, limit: 200), zone: "_defaultZone") }
            let label = "recordType Nope, predicate \(predicate ?? "nil")"
            // CloudKit: "Did not find record type: Crash" → native unknownItem (reference cloudkit.md §4.3).
            #expect(e?.code == .unknownItem, "\(label): got \(e.map { "\($0.code.name): \($0.reason)" } ?? "no error")")
            let text = ((e?.reason ?? "") + " " + (e?.hint ?? "")).lowercased()
            #expect(text.contains("did not find record type"), "\(label): reason '\(e?.reason ?? "")'")
        }
    }

    /// The corpus only queries Item; here Other's one record is found, and no Item with it.
    @Test func queriesStayWithinTheirRecordType() throws {
        let fixture = try CorpusFixture()
        let cases: [(String, [String])] = [
            ("name == 'crème brûlée'", ["o01"]),
            ("self CONTAINS 'fox'", ["o01"]),
            ("tags CONTAINS 'french' AND count == 3", ["o01"]),
            ("name == 'Crumble'", []),
        ]
        for (predicate, want) in cases {
            let run: () throws -> QueryResult = {
                try fixture.db.query(QueryRequest(recordType: "Other", predicate: predicate, limit: 200), zone: "_defaultZone")
            }
            do {
                let got = try run().records.map(\.recordName)
                #expect(got == want, "Other, \(predicate): expected \(want), got \(got)")
            } catch {
                Issue.record("Other, \(predicate): expected \(want), got \(error)")
            }
        }
    }

    /// Production answers from its own records under the deployed schema (indexes included).
    @Test func productionQueriesItsOwnRecords() throws {
        let fixture = try CorpusFixture()
        try fixture.temp.store.container().deploySchema()
        let prod = try fixture.temp.db(.private, .production)
        try CorpusFixture.saveOne(prod, "Item", "p01", ["name": .value(.string("Production Pie")), "count": .value(.int64(3))])
        func query(_ predicate: String, _ arguments: [String] = []) throws -> [String] {
            let run: () throws -> QueryResult = {
                try prod.query(QueryRequest(recordType: "Item", predicate: predicate, arguments: arguments,
                                            sort: [QuerySort("name")], limit: 200), zone: "_defaultZone")
            }
            return try run().records.map(\.recordName).sorted()
        }
        #expect(try query("TRUEPREDICATE") == ["p01"])
        #expect(try query("count == 3") == ["p01"])
        #expect(try query("name == 'production pie'") == ["p01"])
        #expect(try query("name == 'Crumble'") == [])
        let e = ckError { _ = try query("creationDate > %@", ["2025-01-01T00:00:00Z"]) }
        #expect(e?.code == .invalidArguments)
        let text = ((e?.reason ?? "") + " " + (e?.hint ?? "")).lowercased()
        #expect(text.contains("queryable"), "\(e?.reason ?? "no error")")
    }

    /// The dataset is what the corpus header and the expectations assume (this holds before any engine exists).
    @Test func fixtureIsAsDescribed() throws {
        let fixture = try CorpusFixture()
        let records = try fixture.db.records()
        #expect(records.filter { $0.recordType == "Item" }.map(\.recordName) == CorpusFixture.itemNames)
        #expect(records.filter { $0.recordType == "Other" }.map(\.recordName) == ["o01"])
        let byName = Dictionary(uniqueKeysWithValues: records.map { ($0.recordName, $0) })
        let march = try CorpusFixture.instant("2025-03-01T00:00:00Z")
        for (i, name) in CorpusFixture.itemNames.enumerated() {
            let created = try CorpusFixture.instant(String(format: "2025-01-%02dT00:00:00Z", i + 1))
            #expect(byName[name]?.created.timestamp == created, "\(name) creation date")
            let modified = ["i03", "i07"].contains(name) ? march : created
            #expect(byName[name]?.modified.timestamp == modified, "\(name) modification date")
        }
        #expect(byName["i02"]?.fields["due"] == .timestamp(try CorpusFixture.instant("2024-12-31T23:59:59Z")))
        #expect(byName["i02"]?.fields["owner"] == .reference(Reference(recordName: "i01")))
        #expect(byName["i08"]?.fields["data"] == .bytes([1, 2, 3]))
        #expect(byName["i10"]?.fields["tags"] == .list(.string, [.string("device"), .string("bay area")]))
        #expect(byName["i09"]?.fields.keys.sorted() == ["body", "count", "name", "price"])
        #expect(byName["i12"]?.fields["name"] == nil)

        let schema = try fixture.temp.store.container().environmentStore(.development).readSchema()
        let item = try #require(schema.recordTypes["Item"])
        let types = item.fields.filter { !$0.key.hasPrefix("___") }.mapValues(\.type.schemaName)
        #expect(types == ["name": "STRING", "body": "STRING", "count": "INT64", "price": "DOUBLE", "due": "TIMESTAMP",
                          "tags": "LIST<STRING>", "scores": "LIST<INT64>", "owner": "REFERENCE", "place": "LOCATION",
                          "data": "BYTES"])
        #expect(item.fields["___recordID"]?.queryable == true)
        #expect(item.fields["___modTime"]?.queryable == true)
        #expect(item.fields["___modTime"]?.sortable == true)
        for unindexed in ["___createTime", "___createdBy", "___modifiedBy"] {
            #expect(item.fields[unindexed] == nil, "\(unindexed) must stay unindexed")
        }
        // Every `due` is before 2025 or after 2029, so now() reads alike from the pinned or the real clock.
        let lo = try CorpusFixture.instant("2025-01-01T00:00:00Z"), hi = try CorpusFixture.instant("2030-01-01T00:00:00Z")
        for r in records {
            if case .timestamp(let t)? = r.fields["due"] { #expect(t < lo || t >= hi, "\(r.recordName) due") }
        }
    }
}

// MARK: - The corpus file

/// One line of the corpus.
struct CorpusCase: Sendable {
    enum Expected: Sendable {
        /// The query succeeds with exactly these Item record names.
        case matches([String])
        /// The query is refused with this code; the column and words are checked when given.
        case refused(CKError.Code, column: Int?, words: [String])
    }

    var line: Int
    var predicate: String
    var arguments: [String]
    var expected: Expected

    var label: String {
        "line \(line): \(predicate)" + (arguments.isEmpty ? "" : " with \(arguments)")
    }

    /// A record set as the corpus writes it: `= i01 i04`, or `= (none)`.
    static func show<S: Sequence<String>>(_ names: S) -> String {
        let sorted = names.sorted()
        return sorted.isEmpty ? "= (none)" : "= " + sorted.joined(separator: " ")
    }
}

enum CorpusFile {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Corpus/predicates.tsv")

    /// The cases, and a message for each line that does not follow the format.
    static func load() throws -> (cases: [CorpusCase], problems: [String]) {
        let text = try String(contentsOf: url, encoding: .utf8)
        var cases: [CorpusCase] = []
        var problems: [String] = []
        for (index, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = String(raw)
            if line.trimmingCharacters(in: .whitespaces).isEmpty || line.hasPrefix("#") { continue }
            switch parse(line, number: index + 1) {
            case .success(let c): cases.append(c)
            case .failure(let p): problems.append("predicates.tsv line \(index + 1): \(p.message)")
            }
        }
        return (cases, problems)
    }

    struct Problem: Error { var message: String }

    static func parse(_ line: String, number: Int) -> Result<CorpusCase, Problem> {
        let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        guard columns.count == 3 else {
            return .failure(Problem(message: "expected 3 tab-separated columns, found \(columns.count)"))
        }
        let predicate = columns[0]
        guard !predicate.isEmpty else { return .failure(Problem(message: "empty predicate")) }

        var arguments: [String] = []
        let argText = columns[1].trimmingCharacters(in: .whitespaces)
        if argText != "-" {
            guard let json = try? JSON.parse(argText), case .array(let items) = json else {
                return .failure(Problem(message: "arguments must be - or a JSON array of strings: \(argText)"))
            }
            for item in items {
                guard case .string(let s) = item else {
                    return .failure(Problem(message: "arguments must all be strings: \(argText)"))
                }
                arguments.append(s)
            }
        }

        let expectation = columns[2].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard let head = expectation.first else { return .failure(Problem(message: "empty expectation")) }
        let expected: CorpusCase.Expected
        switch head {
        case "=":
            expected = .matches(Array(expectation.dropFirst()))
        case "!":
            guard expectation.count >= 2, let code = CKError.Code(name: expectation[1]) else {
                return .failure(Problem(message: "'!' must be followed by a CKError code name: \(columns[2])"))
            }
            var words = Array(expectation.dropFirst(2))
            var column: Int? = nil
            // `@12` is a column; a word such as `@count` is a word.
            if let first = words.first, first.hasPrefix("@"), first.count > 1,
               first.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber }) {
                guard let c = Int(first.dropFirst()), c >= 1 else {
                    return .failure(Problem(message: "'\(first)' is not a 1-based column"))
                }
                column = c
                words.removeFirst()
            }
            expected = .refused(code, column: column, words: words)
        default:
            return .failure(Problem(message: "expectation must start with '=' or '!': \(columns[2])"))
        }
        return .success(CorpusCase(line: number, predicate: predicate, arguments: arguments, expected: expected))
    }
}

// MARK: - The dataset

/// Records i01…i12 of type Item (every field type, some fields missing) and o01 of type Other, saved in the
/// development private database's default zone with pinned creation and modification dates.
final class CorpusFixture {
    let temp: TempStore
    let db: CKDatabase

    static let itemNames = (1...12).map { String(format: "i%02d", $0) }

    init(indexed: Bool = true) throws {
        temp = try TempStore()
        temp.store.indexEnabled = indexed
        db = try temp.db()
        let clock = temp.store

        func s(_ v: String) -> FieldInput { .value(.string(v)) }
        func i(_ v: Int64) -> FieldInput { .value(.int64(v)) }
        func d(_ v: Double) -> FieldInput { .value(.double(v)) }
        func date(_ iso: String) -> FieldInput { .text(iso, type: .timestamp, action: nil) }
        func strings(_ csv: String) -> FieldInput { .text(csv, type: FieldType(.string, list: true), action: nil) }
        func ints(_ csv: String) -> FieldInput { .text(csv, type: FieldType(.int64, list: true), action: nil) }
        func ref(_ name: String) -> FieldInput { .text(name, type: .reference, action: Reference.Action.none) }
        func place(_ latLon: String) -> FieldInput { .text(latLon, type: .location, action: nil) }

        let items: [[String: FieldInput]] = [
            // i01: Paris
            ["name": s("Crème Brûlée"), "body": s("A rich custard-base topped with caramelised sugar"), "count": i(3),
             "price": d(7.5), "due": date("2020-03-15T12:00:00Z"), "tags": strings("dessert,french,sweet"),
             "scores": ints("5,9"), "place": place("48.8566,2.3522")],
            // i02: Cupertino
            ["name": s("the quick brown fox"), "body": s("Jumps over the lazy dog"), "count": i(10), "price": d(0.99),
             "due": date("2024-12-31T23:59:59Z"), "tags": strings("animal,Story"), "scores": ints("1,2,3"),
             "owner": ref("i01"), "place": place("37.3349,-122.0090")],
            // i03: San Francisco; no scores
            ["name": s("apple pie"), "body": s("Apple pie with cinnamon and a flaky crust"), "count": i(0), "price": d(12),
             "due": date("2031-07-04T00:00:00Z"), "tags": strings("dessert,american"), "owner": ref("i01"),
             "place": place("37.7749,-122.4194")],
            // i04: San José
            ["name": s("Apple Watch"), "body": s("A watch that tracks fitness and the heart rate"), "count": i(-5),
             "price": d(399), "due": date("2019-09-20T00:00:00Z"), "tags": strings("device,Apple"), "scores": ints("10"),
             "owner": ref("i02"), "place": place("37.3382,-121.8863")],
            // i05: London
            ["name": s("Banana Bread"), "body": s("Moist bread with ripe bananas and walnuts"), "count": i(3),
             "price": d(5.25), "due": date("2033-01-01T00:00:00Z"), "tags": strings("baking"), "scores": ints("7,7"),
             "place": place("51.5074,-0.1278")],
            // i06: no price, no place
            ["name": s("crème fraîche"), "body": s("Cultured cream, thick and tangy"), "count": i(1),
             "due": date("2030-01-01T00:00:00Z"), "tags": strings("dairy,french"), "scores": ints("0"), "owner": ref("i05")],
            // i07: Abbey Road, London
            ["name": s("Zebra Crossing"), "body": s("Black and white stripes on the road near Abbey Road studios"),
             "count": i(42), "price": d(42), "due": date("2022-06-01T08:30:00Z"), "tags": strings("london,road"),
             "scores": ints("42"), "owner": ref("i05"), "place": place("51.5320,-0.1779")],
            // i08: the Louvre, Paris; the one BYTES value
            ["name": s("Émile's Café"), "body": s("Coffee, croissants & café au lait since 1998"), "count": i(7),
             "price": d(2.5), "due": date("2040-12-25T00:00:00Z"), "tags": strings("cafe,french"), "scores": ints("3,100"),
             "place": place("48.8606,2.3376"), "data": .text("AQID", type: .bytes, action: nil)],
            // i09: only name, body, count, price
            ["name": s("Zoë"), "body": s("Naïve résumé of a coöperative"), "count": i(100), "price": d(1_000_000)],
            // i10: Mountain View; no body, no count
            ["name": s("Mountain View"), "price": d(19.99), "due": date("2021-01-01T00:00:00Z"),
             "tags": strings("device,bay area"), "scores": ints("3,8"), "owner": ref("i02"),
             "place": place("37.3861,-122.0839")],
            // i11: Sydney
            ["name": s("Crumble"), "body": s("Berry crumble, the best"), "count": i(3), "price": d(7.5),
             "due": date("2035-05-05T00:00:00Z"), "tags": strings("dessert,Sweet"), "scores": ints("2"),
             "owner": ref("i03"), "place": place("-33.8688,151.2093")],
            // i12: Tokyo; no name, no tags
            ["body": s("Nameless record about a fox den"), "count": i(8), "price": d(-2.5),
             "due": date("2023-03-03T00:00:00Z"), "scores": ints("4,5"), "owner": ref("i04"),
             "place": place("35.6762,139.6503")],
        ]
        for (n, fields) in items.enumerated() {
            let at = try CorpusFixture.instant(String(format: "2025-01-%02dT00:00:00Z", n + 1))
            clock.now = { at }
            try CorpusFixture.saveOne(db, "Item", CorpusFixture.itemNames[n], fields)
        }
        // Same values as Item records, so a query that ignored the type would return it.
        let otherAt = try CorpusFixture.instant("2025-01-13T00:00:00Z")
        clock.now = { otherAt }
        try CorpusFixture.saveOne(db, "Other", "o01", [
            "name": s("Crème Brûlée"), "body": s("the quick brown fox"), "count": i(3), "price": d(7.5),
            "due": date("2020-03-15T12:00:00Z"), "tags": strings("dessert,french"), "owner": ref("i01"),
            "place": place("37.3349,-122.0090"),
        ])
        // i03 and i07 saved again (same values): only their modification date moves.
        let modifiedAt = try CorpusFixture.instant("2025-03-01T00:00:00Z")
        clock.now = { modifiedAt }
        try CorpusFixture.saveOne(db, "Item", "i03", ["count": i(0)], policy: .changedKeys)
        try CorpusFixture.saveOne(db, "Item", "i07", ["count": i(42)], policy: .changedKeys)

        let container = try temp.store.container()
        try container.setIndexes(recordType: "Item", field: "___recordID", queryable: true, sortable: false,
                                 searchable: false, remove: false)
        try container.setIndexes(recordType: "Item", field: "___modTime", queryable: true, sortable: true,
                                 searchable: false, remove: false)
        // Later than every save, before every future `due`.
        let queryAt = try CorpusFixture.instant("2025-06-01T00:00:00Z")
        clock.now = { queryAt }
    }

    static func instant(_ iso: String) throws -> Int64 {
        guard let ms = ISO8601.parse(iso) else { throw CKError(.internalError, "fixture date '\(iso)' does not parse") }
        return ms
    }

    static func saveOne(_ db: CKDatabase, _ type: String, _ name: String, _ fields: [String: FieldInput],
                        policy: SavePolicy? = nil) throws {
        let r = try db.modify([.save(recordType: type, recordName: name, fields: fields, ifTag: nil, policy: policy)])
        if let e = r.results.first?.error { throw e }
    }
}
