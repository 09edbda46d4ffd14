import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKQuery
@testable import CKDataModel

/// Parses, throwing the parser's CKError.
private func parse(_ text: String, _ args: [String] = []) throws -> PredicateNode {
    try PredicateParser.parse(text, arguments: args)
}

/// The error a parse ends with, or nil when it succeeds.
private func failure(_ text: String, _ args: [String] = []) -> CKError? {
    do throws(CKError) {
        _ = try PredicateParser.parse(text, arguments: args)
        return nil
    } catch {
        return error
    }
}

/// The single comparison a predicate parses to.
private func comparison(_ text: String, _ args: [String] = []) throws -> PredicateComparison {
    let node = try parse(text, args)
    guard case .comparison(let c) = node else {
        Issue.record("expected a comparison for \(text), got \(node)")
        throw CKError(.internalError, "not a comparison")
    }
    return c
}

/// The right-hand side of a single comparison.
/// The right-hand side, with a bound `%@` argument shown as the value inferred from it.
private func rhs(_ text: String, _ args: [String] = []) throws -> PredicateExpression {
    func inferred(_ e: PredicateExpression) -> PredicateExpression {
        switch e {
        case .argument(_, let v, let c): return .value(v, column: c)
        case .cast(let inner, let t, let c): return .cast(inferred(inner), type: t, column: c)
        case .aggregate(let items, let c): return .aggregate(items.map(inferred), column: c)
        default: return e
        }
    }
    return inferred(try comparison(text, args).rhs)
}


@Suite struct PredicateParserTests {
    // MARK: Accepted forms

    @Test func constants() throws {
        #expect(try parse("TRUEPREDICATE") == .constant(true, column: 1))
        #expect(try parse("  falsepredicate") == .constant(false, column: 3))
        #expect(try parse("(TRUEPREDICATE)") == .constant(true, column: 2))
    }

    @Test func comparisonOperatorsAndSpellings() throws {
        let cases: [(String, PredicateComparison.Operator)] = [
            ("==", .equal), ("=", .equal), ("!=", .notEqual), ("<>", .notEqual), ("<", .less), ("<=", .lessOrEqual),
            ("=<", .lessOrEqual), (">", .greater), (">=", .greaterOrEqual), ("=>", .greaterOrEqual),
        ]
        for (spelling, op) in cases {
            let c = try comparison("count \(spelling) 3")
            #expect(c == PredicateComparison(lhs: .key("count", column: 1), op: op,
                                             rhs: .value(.int(3), column: 8 + spelling.count), column: 7), "\(spelling)")
        }
        // No spaces around the operator.
        #expect(try comparison("n>=2") == PredicateComparison(lhs: .key("n", column: 1), op: .greaterOrEqual,
                                                              rhs: .value(.int(2), column: 4), column: 2))
    }

    @Test func keywordOperators() throws {
        #expect(try comparison("n BETWEEN {1, 5}") == PredicateComparison(
            lhs: .key("n", column: 1), op: .between,
            rhs: .aggregate([.value(.int(1), column: 12), .value(.int(5), column: 15)], column: 11), column: 3))
        #expect(try comparison("title BEGINSWITH 'Ab'") == PredicateComparison(
            lhs: .key("title", column: 1), op: .beginsWith, rhs: .value(.string("Ab"), column: 18), column: 7))
        #expect(try comparison("tags CONTAINS 'swift'") == PredicateComparison(
            lhs: .key("tags", column: 1), op: .contains, rhs: .value(.string("swift"), column: 15), column: 6))
        #expect(try comparison("self CONTAINS 'word'").lhs == .key("self", column: 1))
        #expect(try comparison("SELF contains 'word'").lhs == .key("SELF", column: 1))
        // A key on the right is list membership for IN and CONTAINS.
        #expect(try comparison("'x' IN tags") == PredicateComparison(
            lhs: .value(.string("x"), column: 1), op: .in, rhs: .key("tags", column: 8), column: 5))
        #expect(try comparison("status IN {'a', 'b'}").rhs == .aggregate(
            [.value(.string("a"), column: 12), .value(.string("b"), column: 17)], column: 11))
        #expect(try comparison("tags IN {}").rhs == .aggregate([], column: 9))
    }

    @Test func tokenMatches() throws {
        let expected = PredicateComparison(lhs: .key("allTokens", column: 1), op: .tokenMatches,
                                           rhs: .argument("swift", .string("swift"), column: 29), column: 11)
        #expect(try comparison("allTokens TOKENMATCHES[cdl] %@", ["swift"]) == expected)
        for modifier in ["[l]", "[cl]", "[dl]", "[cdl]", "[lc]", "[ld]", "[ldc]", "[dcl]", "[CDL]"] {
            let c = try comparison("allTokens tokenmatches\(modifier) 'x'")
            #expect(c.op == .tokenMatches, "\(modifier)")
        }
        #expect(try comparison("allTokens TOKENMATCHES 'x'").op == .tokenMatches)
    }

    @Test func anyAndSome() throws {
        let c = try comparison("ANY tags == 'x'")
        #expect(c == PredicateComparison(any: true, lhs: .key("tags", column: 5), op: .equal,
                                         rhs: .value(.string("x"), column: 13), column: 10))
        #expect(try comparison("some tags = 'x'").any)
        #expect(try comparison("tags CONTAINS 'x'").any == false)
        #expect(try parse("ANY tags == 'x'").column == 5)
    }

    @Test func andChainsFlattenWithColumns() throws {
        let node = try parse("a == 1 AND b != 2 && c < 3")
        #expect(node == .and([
            .comparison(PredicateComparison(lhs: .key("a", column: 1), op: .equal, rhs: .value(.int(1), column: 6), column: 3)),
            .comparison(PredicateComparison(lhs: .key("b", column: 12), op: .notEqual, rhs: .value(.int(2), column: 17), column: 14)),
            .comparison(PredicateComparison(lhs: .key("c", column: 22), op: .less, rhs: .value(.int(3), column: 26), column: 24)),
        ], column: 1))
        // A parenthesised AND stays its own node, with the column of its first token.
        guard case .and(let items, let column) = try parse("(a == 1 AND b == 2) AND c == 3") else {
            Issue.record("expected AND")
            return
        }
        #expect(column == 1)
        #expect(items.count == 2)
        #expect(items.first?.column == 2)
        if case .and(let inner, let c)? = items.first { #expect(inner.count == 2 && c == 2) } else { Issue.record("inner AND") }
        #expect(items.last?.column == 25)
        // The first token of an AND can be ANY or NOT.
        #expect(try parse("ANY tags == 'x' AND n > 1").column == 1)
        #expect(try parse("  NOT a == 1 AND b == 2").column == 3)
    }

    @Test func notAndParentheses() throws {
        let inner = PredicateNode.comparison(PredicateComparison(lhs: .key("a", column: 6), op: .equal,
                                                                 rhs: .value(.int(1), column: 11), column: 8))
        #expect(try parse("NOT (a == 1)") == .not(inner, column: 1))
        #expect(try parse("not (a == 1)") == .not(inner, column: 1))
        guard case .not(.comparison(let c), let col) = try parse("!(tags CONTAINS 'x')") else {
            Issue.record("expected NOT")
            return
        }
        #expect(col == 1 && c.column == 8 && c.lhs == .key("tags", column: 3))
        // NOT around AND parses; refusing it is the validator's job.
        guard case .not(.and(let items, _), 1) = try parse("NOT (a == 1 AND b == 2)") else {
            Issue.record("expected NOT AND")
            return
        }
        #expect(items.count == 2)
        #expect(try parse("NOT NOT a == 1") == .not(.not(.comparison(PredicateComparison(
            lhs: .key("a", column: 9), op: .equal, rhs: .value(.int(1), column: 14), column: 11)), column: 5), column: 1))
        #expect(try parse("((a == 1))") == .comparison(PredicateComparison(
            lhs: .key("a", column: 3), op: .equal, rhs: .value(.int(1), column: 8), column: 5)))
    }

    @Test func stringLiterals() throws {
        #expect(try rhs(#"t == "a\"b\\c\n\t\u00e9'""#) == .value(.string("a\"b\\c\n\té'"), column: 6))
        #expect(try rhs(#"t == 'it\'s'"#) == .value(.string("it's"), column: 6))
        #expect(try rhs(#"t == '\r'"#) == .value(.string("\r"), column: 6))
        #expect(try rhs(#"t == '\uD83D\uDE00'"#) == .value(.string("😀"), column: 6))
        #expect(try rhs("t == ''") == .value(.string(""), column: 6))
        // Placeholders inside quotes are text, not placeholders.
        #expect(try rhs("t == '%@'") == .value(.string("%@"), column: 6))
    }

    @Test func numbers() throws {
        #expect(try rhs("n == 42") == .value(.int(42), column: 6))
        #expect(try rhs("n == -42") == .value(.int(-42), column: 6))
        #expect(try rhs("n == 2.5") == .value(.double(2.5), column: 6))
        #expect(try rhs("n == -0.25") == .value(.double(-0.25), column: 6))
        #expect(try rhs("n == 2.5e3") == .value(.double(2500), column: 6))
        #expect(try rhs("n == 1E-2") == .value(.double(0.01), column: 6))
        #expect(try rhs("n == .5") == .value(.double(0.5), column: 6))
        #expect(try rhs("n == -.5") == .value(.double(-0.5), column: 6))
        #expect(try rhs("n == 9223372036854775807") == .value(.int(Int64.max), column: 6))
        #expect(try rhs("n == -9223372036854775808") == .value(.int(Int64.min), column: 6))
        #expect(try rhs("n>-3") == .value(.int(-3), column: 3))
    }

    @Test func booleans() throws {
        for (word, value) in [("YES", true), ("no", false), ("TRUE", true), ("false", false), ("Yes", true)] {
            #expect(try rhs("done == \(word)") == .value(.bool(value), column: 9), "\(word)")
        }
    }

    @Test func nowAndCast() throws {
        #expect(try rhs("modificationDate < now()") == .now(column: 20))
        #expect(try rhs("modificationDate < NOW") == .now(column: 20))
        #expect(try rhs("modificationDate < now ( )") == .now(column: 20))
        #expect(try rhs(#"creationDate > CAST(757382400, "NSDate")"#)
            == .cast(.value(.int(757382400), column: 21), type: "NSDate", column: 16))
        #expect(try rhs(#"creationDate > CAST(%@, 'NSDate')"#, ["string:2026"])
            == .cast(.value(.string("2026"), column: 21), type: "NSDate", column: 16))
    }

    @Test func distance() throws {
        let c = try comparison("distanceToLocation:fromLocation:(location, %@) < %f", ["location:37.33,-122.03", "1000"])
        let point = try QueryValue.argument("location:37.33,-122.03", path: "x")
        #expect(c == PredicateComparison(lhs: .distance(key: "location", from: .argument("location:37.33,-122.03", point, column: 44), column: 1),
                                         op: .less, rhs: .value(.double(1000), column: 50), column: 48))
        if case .location(let l) = point { #expect(l.latitude == 37.33 && l.longitude == -122.03) } else { Issue.record("not a location") }
        // %K may name the field.
        let k = try comparison("distanceToLocation:fromLocation:(%K, %@) < 5", ["where", "location:1,2"])
        if case .distance(let key, _, _) = k.lhs { #expect(key == "where") } else { Issue.record("not a distance") }
    }

    @Test func keys() throws {
        #expect(try comparison("allTokens TOKENMATCHES[cdl] 'x'").lhs == .key("allTokens", column: 1))
        #expect(try comparison("_private == 1").lhs == .key("_private", column: 1))
        #expect(try comparison("#contains == 1").lhs == .key("contains", column: 1))
        #expect(try comparison("%K == 1", ["title"]).lhs == .key("title", column: 1))
        #expect(try comparison("%K == %@", ["in", "x"]).lhs == .key("in", column: 1))
    }

    @Test func caseInsensitiveKeywords() throws {
        let node = try parse("'x' in tags and not (tags contains 'y') And title beginswith 'T' aNd n between {1, 2}")
        guard case .and(let items, 1) = node, items.count == 4 else {
            Issue.record("expected a 4-item AND, got \(node)")
            return
        }
        if case .comparison(let c) = items[0] { #expect(c.op == .in) } else { Issue.record("in") }
        if case .not(.comparison(let c), 17) = items[1] { #expect(c.op == .contains) } else { Issue.record("not contains") }
        if case .comparison(let c) = items[2] { #expect(c.op == .beginsWith) } else { Issue.record("beginswith") }
        if case .comparison(let c) = items[3] { #expect(c.op == .between) } else { Issue.record("between") }
        #expect(try parse("truepredicate && FalsePredicate") == .and([.constant(true, column: 1), .constant(false, column: 18)], column: 1))
    }

    @Test func unicodeColumnsCountCharacters() throws {
        // 'é' and '😀' are one character each.
        #expect(try parse("t == 'é😀' AND n == 1").column == 1)
        guard case .and(let items, _) = try parse("t == 'é😀' AND n == 1") else { Issue.record("AND"); return }
        #expect(items.last?.column == 15)
        #expect(failure("t == 'é😀' OR n == 1")?.details["column"] == .int(11))
    }

    // MARK: Placeholders

    @Test func placeholdersAreTypedLikeFieldValues() throws {
        #expect(try rhs("d == %@", ["2026-01-01T00:00:00Z"]) == .value(.date(1_767_225_600_000), column: 6))
        #expect(try rhs("n == %@", ["42"]) == .value(.int(42), column: 6))
        #expect(try rhs("n == %@", ["2.5"]) == .value(.double(2.5), column: 6))
        #expect(try rhs("s == %@", ["string:42"]) == .value(.string("42"), column: 6))
        #expect(try rhs("s == %@", ["hello"]) == .value(.string("hello"), column: 6))
        guard case .value(.reference(let ref), 6) = try rhs("r == %@", ["ref:note-1"]) else {
            Issue.record("expected a reference")
            return
        }
        #expect(ref.recordName == "note-1")
        guard case .value(.location(let loc), 6) = try rhs("l == %@", ["location:37.33,-122.03"]) else {
            Issue.record("expected a location")
            return
        }
        #expect(loc.latitude == 37.33 && loc.longitude == -122.03)
        #expect(try rhs("tags IN %@", [#"["a", "b"]"#]) == .value(.list([.string("a"), .string("b")]), column: 9))
        #expect(try rhs("n == %d", ["-7"]) == .value(.int(-7), column: 6))
        #expect(try rhs("n == %ld", ["7"]) == .value(.int(7), column: 6))
        #expect(try rhs("n == %f", ["3"]) == .value(.double(3), column: 6))
        #expect(try rhs("n == %f", ["-2.5e1"]) == .value(.double(-25), column: 6))
    }

    @Test func placeholdersBindInOrder() throws {
        let node = try parse("%K == %@ AND n IN {%d, %f}", ["title", "x", "1", "2"])
        #expect(node == .and([
            .comparison(PredicateComparison(lhs: .key("title", column: 1), op: .equal, rhs: .argument("x", .string("x"), column: 7), column: 4)),
            .comparison(PredicateComparison(lhs: .key("n", column: 14), op: .in, rhs: .aggregate(
                [.value(.int(1), column: 20), .value(.double(2), column: 24)], column: 19), column: 16)),
        ], column: 1))
    }

    @Test func argumentCountErrors() throws {
        let few = try #require(failure("a == %@ AND b == %@", ["1"]))
        #expect(few.code == .invalidArguments)
        #expect(few.details["column"] == .int(18))
        #expect(few.reason.contains("2 placeholders") && few.reason.contains("1 argument"))
        #expect(few.hint?.contains("--arg") == true)
        #expect(failure("a == %@")?.details["column"] == .int(6))
        let many = try #require(failure("a == %@", ["1", "2"]))
        #expect(many.details["column"] == .int(8))
        #expect(many.reason.contains("2 arguments") && many.reason.contains("1 placeholder"))
        #expect(failure("TRUEPREDICATE", ["x"])?.reason.contains("0 placeholders") == true)
    }

    @Test func badArguments() throws {
        let cases: [(String, [String], Int, [String])] = [
            ("n == %d", ["x"], 6, ["argument 1", "integer"]),
            ("n == %f", ["abc"], 6, ["argument 1", "number"]),
            ("n == %f", ["nan"], 6, ["number"]),
            ("%K == 1", ["owner.name"], 1, ["key path", "owner.name"]),
            ("%K == 1", ["1abc"], 1, ["not a field name"]),
            ("%K == 1", [""], 1, ["not a field name"]),
            ("a == 1 AND n == %@", ["int64:x"], 17, ["argument 1"]),
        ]
        for (text, args, column, words) in cases {
            let e = try #require(failure(text, args), "\(text)")
            #expect(e.details["column"] == .int(Int64(column)), "\(text): \(e.reason)")
            #expect(e.reason.hasPrefix("column \(column): "), "\(text): \(e.reason)")
            for w in words { #expect(e.reason.contains(w), "\(text): \(e.reason) lacks \(w)") }
            #expect(e.hint != nil)
        }
    }

    // MARK: Refusals

    /// (predicate, arguments, column, words the reason must hold, words the hint must hold)
    static let refusals: [(String, [String], Int, [String], [String])] = [
        ("a == 1 OR b == 2", [], 8, ["OR", "AND"], ["one query per arm", "IN {a, b}"]),
        ("a == 1 or b == 2", [], 8, ["OR"], ["one query per arm"]),
        ("a == 1 || b == 2", [], 8, ["||", "OR"], ["one query per arm"]),
        ("a == 1 | b == 2", [], 8, ["|"], ["one query per arm"]),
        ("(a == 1 OR b == 2)", [], 9, ["OR"], ["merge"]),
        ("ALL tags == 'x'", [], 1, ["ALL"], ["ANY"]),
        ("a == 1 AND all tags == 'x'", [], 12, ["ALL"], ["ANY"]),
        ("NONE tags == 'x'", [], 1, ["NONE"], ["CONTAINS"]),
        ("title MATCHES 'a.*'", [], 7, ["MATCHES"], ["BEGINSWITH", "self CONTAINS"]),
        ("title LIKE 'a*'", [], 7, ["LIKE"], ["BEGINSWITH"]),
        ("title like[c] 'a*'", [], 7, ["LIKE"], ["BEGINSWITH"]),
        ("title ENDSWITH 'z'", [], 7, ["ENDSWITH"], ["BEGINSWITH", "self CONTAINS"]),
        ("title ==[c] 'x'", [], 9, ["[c]", "modifier"], ["comparison modifiers", "case-sensitive", "diacritic-insensitive"]),
        ("title BEGINSWITH[cd] 'x'", [], 17, ["[cd]"], ["comparison modifiers"]),
        ("tags CONTAINS[d] 'x'", [], 14, ["[d]"], ["comparison modifiers"]),
        ("title != [c] 'x'", [], 10, ["[c]"], ["comparison modifiers"]),
        ("allTokens TOKENMATCHES[cd] %@", ["x"], 23, ["TOKENMATCHES", "[cdl]"], ["TOKENMATCHES[cdl]"]),
        ("allTokens TOKENMATCHES[lx] 'x'", [], 23, ["[lx]"], ["TOKENMATCHES[cdl]"]),
        ("allTokens TOKENMATCHES[ll] 'x'", [], 23, ["[ll]"], ["TOKENMATCHES[cdl]"]),
        ("recordID.recordName == %@", ["a"], 1, ["recordID.recordName", "'.'"], ["recordID == %@", "related type"]),
        ("n == 1 AND owner.name == 'x'", [], 12, ["owner.name"], ["related type"]),
        ("title == owner.name", [], 10, ["owner.name"], ["related type"]),
        ("tags.@count > 2", [], 6, ["@count"], ["field of its own"]),
        ("@sum.price > 2", [], 1, ["@sum"], ["field"]),
        ("items.@avg.price < 3", [], 7, ["@avg"], ["field"]),
        ("@max > 3", [], 1, ["@max"], ["field"]),
        ("@ == 3", [], 1, ["@"], ["field"]),
        ("SUBQUERY(items, $i, $i.x == 1).@count > 0", [], 1, ["SUBQUERY"], ["related record type"]),
        ("FUNCTION(title, 'lowercaseString') == 'x'", [], 1, ["FUNCTION"], ["distanceToLocation"]),
        ("lowercase(title) == 'x'", [], 1, ["lowercase()"], ["now()", "CAST"]),
        ("title == uppercase('x')", [], 10, ["uppercase()"], ["distanceToLocation"]),
        ("tokenize:using:(title, 'x') == 1", [], 1, ["tokenize:using:"], ["self CONTAINS"]),
        ("sum:(n) > 1", [], 1, ["sum:"], ["distanceToLocation"]),
        ("title == nil", [], 10, ["nil"], ["flag field", ">= \"\""]),
        ("title != NULL", [], 10, ["NULL"], ["missing value"]),
        ("nil == title", [], 1, ["nil"], ["missing value"]),
        ("name = Benjamin", [], 8, ["Benjamin", "key path"], ["quote the string: name == 'Benjamin'", "bare word"]),
        ("name BEGINSWITH Ben", [], 17, ["Ben"], ["quote the string: name BEGINSWITH 'Ben'"]),
        ("n > self", [], 5, ["self"], ["quote the string"]),
        ("title == %K", ["other"], 10, ["%K", "other"], ["%@"]),
        ("name IN {Benjamin, 'x'}", [], 10, ["Benjamin", "key path"], ["quote the string"]),
        ("title == 'abc", [], 10, ["unterminated"], ["close the string"]),
        ("title == \"abc", [], 10, ["unterminated"], ["close the string"]),
        ("title == 'abc\\", [], 10, ["unterminated"], ["close the string"]),
        ("title == 'a\\qb'", [], 12, ["escape", "\\q"], ["\\uXXXX"]),
        ("title == 'a\\u12'", [], 12, ["\\u", "hex"], ["\\uXXXX"]),
        ("title == 'a\\uD83D'", [], 12, ["surrogate"], ["\\uD83D\\uDE00"]),
        ("(a == 1", [], 1, ["'('", "never closed"], ["')'"]),
        ("((a == 1)", [], 1, ["never closed"], ["')'"]),
        ("a == 1)", [], 7, ["')'", "no matching"], ["'('"]),
        ("(a == 1 b == 2)", [], 9, ["expected ')'"], ["AND"]),
        ("tags IN {1, 2", [], 9, ["'{'", "never closed"], ["'}'"]),
        ("tags IN {1 2}", [], 12, ["expected '}'"], ["','"]),
        ("tags IN {1,}", [], 12, ["expected a key or a value"], ["quote"]),
        ("title == 'x' ^", [], 14, ["unexpected character '^'"], ["ASCII"]),
        ("title ~ 'x'", [], 7, ["'~'"], ["ASCII"]),
        ("名前 == 1", [], 1, ["unexpected character '名'"], ["ASCII"]),
        ("title == 'x' \u{1}", [], 14, ["U+0001"], ["ASCII"]),
        ("title == 'x' & n == 1", [], 14, ["'&'"], ["AND"]),
        ("$x == 1", [], 1, ["$x", "variables"], ["%@"]),
        ("a + 1 > 2", [], 3, ["arithmetic", "+"], ["--arg"]),
        ("a == 1 - 2", [], 8, ["arithmetic"], ["--arg"]),
        ("tags[0] == 'x'", [], 5, ["subscripts"], ["CONTAINS"]),
        ("#1 == 1", [], 1, ["'#'"], ["#name"]),
        ("n == %x", [], 6, ["format specifier"], ["%@", "%K"]),
        ("n == 5%", [], 7, ["format specifier", "the end"], ["%@"]),
        (#"d > CAST(%@, "NSNumber")"#, ["1"], 14, ["CAST", "NSNumber"], ["NSDate"]),
        (#"d > CAST(created, "NSDate")"#, [], 10, ["CAST", "created"], ["CAST(%@"]),
        ("d > CAST(1, 2)", [], 13, ["quoted type name"], ["NSDate"]),
        ("d > CAST 1", [], 10, ["expected '(' after CAST"], ["NSDate"]),
        ("distanceToLocation:fromLocation:('here', %@) < 5", ["location:1,2"], 34, ["first argument", "location field"], ["--arg location:"]),
        ("distanceToLocation:fromLocation:(location, place) < 5", [], 44, ["second argument"], ["--arg location:"]),
        ("distanceToLocation:fromLocation:(location %@) < 5", ["location:1,2"], 43, ["expected ','"], ["distanceToLocation"]),
        ("title == 'x' title == 'y'", [], 14, ["after the end"], ["AND"]),
        ("", [], 1, ["empty"], ["TRUEPREDICATE"]),
        ("   ", [], 1, ["empty"], ["TRUEPREDICATE"]),
        ("n == 0x1F", [], 6, ["malformed number '0x1F'"], ["quote strings"]),
        ("n == 1.2.3", [], 6, ["malformed number"], ["quote strings"]),
        ("n == 99999999999999999999", [], 6, ["64-bit range"], ["1e20"]),
        ("n == 1e999", [], 6, ["out of range"], ["finite"]),
        ("title BEGINSWITH", [], 17, ["ends where"], ["complete the comparison"]),
        ("title == 'x' AND", [], 17, ["ends where"], ["complete the comparison"]),
        ("title", [], 6, ["expected a comparison operator", "the end of the predicate"], ["title == 'x'"]),
        ("title 'x'", [], 7, ["expected a comparison operator"], ["title == 'x'"]),
        ("in == 1", [], 1, ["keyword 'in'"], ["#name", "%K"]),
        ("n == AND", [], 6, ["keyword 'AND'"], ["#name"]),
        ("tags == ANY 'x'", [], 9, ["ANY goes before"], ["ANY tags == 'x'"]),
        ("t < now(1)", [], 9, ["now() takes no arguments"], ["now()"]),
        ("t < now(", [], 8, ["never closed"], ["')'"]),
        ("n == TRUEPREDICATE", [], 6, ["TRUEPREDICATE"], ["#name"]),
        ("NOT", [], 4, ["ends where"], ["complete"]),
    ]

    @Test func refusalsCarryColumnReasonAndHint() throws {
        for (text, args, column, words, hintWords) in Self.refusals {
            guard let e = failure(text, args) else {
                Issue.record("\(text) was accepted")
                continue
            }
            #expect(e.code == .invalidArguments, "\(text)")
            #expect(e.serverErrorCode == "BAD_REQUEST", "\(text)")
            #expect(e.details["column"] == .int(Int64(column)), "\(text): \(e.reason)")
            #expect(e.details["predicate"] == .string(text), "\(text)")
            #expect(e.reason.hasPrefix("column \(column): "), "\(text): \(e.reason)")
            for w in words { #expect(e.reason.contains(w), "\(text): '\(e.reason)' lacks '\(w)'") }
            let hint = e.hint ?? ""
            for w in hintWords { #expect(hint.contains(w), "\(text): hint '\(hint)' lacks '\(w)'") }
        }
    }

    @Test func orHintIsTheDocumentedOne() throws {
        let e = try #require(failure("a == 1 OR a == 2"))
        #expect(e.hint == "run one query per arm and merge the results, or use field IN {a, b} when the arms test one field for equality")
    }

    @Test func nestingIsBounded() throws {
        let ok = String(repeating: "(", count: 64) + "a == 1" + String(repeating: ")", count: 64)
        #expect(try parse(ok) == .comparison(PredicateComparison(lhs: .key("a", column: 65), op: .equal,
                                                                 rhs: .value(.int(1), column: 70), column: 67)))
        let deep = String(repeating: "(", count: 65) + "a == 1" + String(repeating: ")", count: 65)
        let e = try #require(failure(deep))
        #expect(e.reason.contains("deeper than 64"))
        #expect(e.details["column"] == .int(66))
        for huge in [String(repeating: "(", count: 100_000), String(repeating: "NOT ", count: 50_000) + "a == 1",
                     "a IN " + String(repeating: "{", count: 100_000), String(repeating: "!", count: 100_000),
                     "d > " + String(repeating: "CAST(", count: 10_000)] {
            let e = try #require(failure(huge))
            #expect(e.reason.contains("deeper than 64"), "\(e.reason)")
        }
    }

    // MARK: Fuzz

    @Test func fuzzedPredicatesNeverCrashAndAlwaysHaveAColumn() throws {
        let seeds = [
            "TRUEPREDICATE", "title == 'x' AND n > 3", "ANY tags == %@", "'x' IN tags", "self CONTAINS \"a\\\"b\"",
            "NOT (n BETWEEN {1, 5})", "distanceToLocation:fromLocation:(location, %@) < %f",
            "creationDate > CAST(757382400, \"NSDate\") && modificationDate < now()", "%K BEGINSWITH %@",
            "allTokens TOKENMATCHES[cdl] %@", "n == -2.5e3 AND done == YES", "tags IN {'a', 'b', %d}",
            "title == 'é😀\\u00e9'", "#in == 1",
        ]
        let alphabet = Array("()[]{}'\"\\%@K$#.,:!=<>&|-+*/ \t\nabcANDORNOT01e9_éü😀\u{0}\u{301}dfuxl")
        let fragments = [" OR ", " AND ", "NOT ", "(", ")", "{", "}", "'", "\"", "%@", "%K", "%d", "%f", "[cd]",
                         " IN ", " CONTAINS ", " BETWEEN ", "nil", "@count", ".", "ANY ", "ALL ", "now()", "CAST(",
                         "\\u", "\\", "distanceToLocation:fromLocation:(", ",", "=", "<>", "-", "1e", "#"]
        let argPool = ["42", "x", "ref:note-1", "location:1,2", "[1, 2]", "", "a.b", "2026-01-01T00:00:00Z", "timestamp:bad", "[",
                       "title", "title", "location:37.33,-122.03", "7"]
        var rng = SeededRNG(seed: 0xC0FFEE)
        var accepted = 0
        for _ in 0..<3_000 {
            var chars: [Character]
            if rng.below(10) == 0 {
                // Raw bytes, repaired into a String the way command-line input would be.
                let bytes = (0..<rng.below(40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                chars = Array(String(decoding: bytes, as: UTF8.self))
            } else {
                chars = Array(seeds[rng.below(seeds.count)])
                for _ in 0..<(1 + rng.below(4)) {
                    let at = rng.below(chars.count + 1)
                    switch rng.below(5) {
                    case 0: chars.insert(alphabet[rng.below(alphabet.count)], at: at)
                    case 1: if at < chars.count { chars.remove(at: at) }
                    case 2: chars.insert(contentsOf: Array(fragments[rng.below(fragments.count)]), at: at)
                    case 3: chars = Array(chars[..<at])
                    default:
                        if !chars.isEmpty { chars[rng.below(chars.count)] = alphabet[rng.below(alphabet.count)] }
                    }
                }
            }
            let text = String(chars)
            // Mostly as many arguments as there are '%' signs, so the mutations are what gets tested.
            let count = rng.below(4) == 0 ? rng.below(4) : text.filter { $0 == "%" }.count
            let args = (0..<count).map { _ in argPool[rng.below(argPool.count)] }
            if let e = failure(text, args) {
                guard case .int(let column)? = e.details["column"] else {
                    Issue.record("no column for \(text): \(e.reason)")
                    continue
                }
                #expect(column >= 1 && column <= Int64(text.unicodeScalars.count + 1), "\(text): \(e.reason)")
                #expect(e.reason.hasPrefix("column \(column): "), "\(text): \(e.reason)")
                #expect(e.code == .invalidArguments && e.hint != nil, "\(text): \(e.reason)")
            } else {
                accepted += 1
            }
        }
        // The mutations leave a fair share of predicates valid, so both paths are exercised.
        #expect(accepted > 100, "\(accepted) accepted")
    }
}
