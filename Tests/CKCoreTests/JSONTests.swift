import Testing
import CKCore
@testable import CKModel
@testable import CKSQLite

@Suite struct JSONTests {
    @Test func parsesAllKinds() throws {
        let j = try JSON.parse(#"{"a": [1, -2.5, true, false, null, "x\u00e9\n"], "b": {"c": 9007199254740993}}"#)
        #expect(j["a"] == .array([.int(1), .double(-2.5), .bool(true), .bool(false), .null, .string("xé\n")]))
        #expect(j["b"]?["c"] == .int(9007199254740993))
    }

    @Test func roundTripsThroughSerializer() throws {
        let text = #"{"seq":1,"op":"save","record":{"recordName":"a\"b","fields":{"t":{"value":"tab\there","type":"STRING"}}}}"#
        let j = try JSON.parse(text)
        #expect(try JSON.parse(j.serialized()) == j)
        #expect(try JSON.parse(j.pretty()) == j)
        #expect(j.serialized().hasPrefix(#"{"seq":1,"op":"save""#))
        #expect(!j.serialized().contains("\n"))
    }

    @Test func surrogatePairs() throws {
        #expect(try JSON.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(throws: JSONParseError.self) { try JSON.parse(#""\ud83d""#) }
    }

    @Test func reportsLineAndColumn() {
        do {
            _ = try JSON.parse("{\n  \"a\": 1,\n  \"b\": tru\n}")
            Issue.record("expected an error")
        } catch {
            #expect(error.line == 3)
            #expect(error.column == 8)
        }
    }

    @Test func refusesBadInput() {
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "\"\u{01}\"", "{\"a\":1,\"a\":2}", "[1] x", "nul", "\"\\q\""] {
            #expect(throws: JSONParseError.self, "\(bad)") { try JSON.parse(bad) }
        }
    }

    @Test func refusesDeepNesting() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        #expect(throws: JSONParseError.self) { try JSON.parse(deep) }
        let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect((try? JSON.parse(ok)) != nil)
    }

    @Test func doublesKeepTheirKind() throws {
        #expect(JSON.double(3).serialized() == "3.0")
        #expect(try JSON.parse(JSON.double(0.1).serialized()) == .double(0.1))
        #expect(try JSON.parse("1e3") == .double(1000))
    }
}
