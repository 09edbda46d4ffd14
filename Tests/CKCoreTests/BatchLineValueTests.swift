import Foundation
import Testing
@testable import CKModel
@testable import CKSchema
@testable import CKServer

/// The batch reader reads a field's string or number straight from its bytes (`BatchLineReader.scalarOrValue`):
/// each value below is what it must become, written by hand; typed as a check or a save types it, the generic path
/// (the JSON tree, then `RecordOperation(json:)`, which keeps every field as its dictionary) gives the same value.
@Suite struct BatchLineValueTests {
    /// The input the fast reader makes of one field `{"value": <value>, "type": "<type>"}` (nil when it declines).
    static func fast(_ value: String, _ type: String) -> FieldInput? {
        fast(field: #"{"value":\#(value),"type":"\#(type)"}"#)
    }

    static func fast(field: String) -> FieldInput? {
        let line = Array(#"{"recordName":"n1","recordType":"Note","fields":{"f":\#(field)}}"#.utf8)
        return RecordOperation.decode(batchLine: line[...], policy: nil)?.operation.fields["f"]
    }

    /// The generic path's input for the same field (nil when it refuses the line).
    static func generic(_ value: String, _ type: String) -> FieldInput? {
        let text = #"{"recordName":"n1","recordType":"Note","fields":{"f":{"value":\#(value),"type":"\#(type)"}}}"#
        guard let json = try? JSON.parse(text) else { return nil }
        return (try? RecordOperation(json: json, path: "$", policy: nil))?.fields["f"]
    }

    /// Two inputs are the same value, bit for bit for doubles (so -0.0 is not 0.0).
    static func same(_ a: FieldInput?, _ b: FieldInput?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.value(let x)?, .value(let y)?): return same(x, y)
        case (.json(let x)?, .json(let y)?): return x == y
        case (.unset?, .unset?): return true
        default: return false
        }
    }

    static func same(_ x: FieldValue, _ y: FieldValue) -> Bool {
        switch (x, y) {
        case (.double(let a), .double(let b)): return a.bitPattern == b.bitPattern
        case (.list(let t, let a), .list(let u, let b)): return t == u && a.count == b.count && zip(a, b).allSatisfy { same($0, $1) }
        default: return x == y
        }
    }

    /// An input typed as the check and the save type it (no schema): the value, or the refusal's reason.
    static func typed(_ input: FieldInput?) -> Result<FieldValue?, CKError> {
        Result { () throws(CKError) in try RecordBatch.value(input, type: "Note", key: "f", path: "p", schema: Schema()) }
    }

    static func sameTyped(_ a: FieldInput?, _ b: FieldInput?) -> Bool {
        switch (typed(a), typed(b)) {
        case (.success(let x?), .success(let y?)): return same(x, y)
        case (.success(nil), .success(nil)): return true
        case (.failure(let x), .failure(let y)): return x.reason == y.reason
        default: return false
        }
    }

    static func expect(_ value: String, _ type: String, _ expected: FieldInput?, sourceLocation: SourceLocation = #_sourceLocation) {
        let f = fast(value, type)
        #expect(same(f, expected), "\(value) as \(type): read \(String(describing: f)), expected \(String(describing: expected))",
                sourceLocation: sourceLocation)
        let g = generic(value, type)
        #expect(g != nil && sameTyped(f, g), "the generic path differs on \(value) as \(type)", sourceLocation: sourceLocation)
    }

    /// The field dictionary the generic reader keeps for a value it does not type.
    static func kept(_ value: JSON, _ type: String) -> FieldInput { .json(.object(["value": value, "type": .string(type)])) }

    @Test func integersAtTheirBounds() {
        Self.expect("0", "INT64", .value(.int64(0)))
        Self.expect("-0", "INT64", .value(.int64(0)))
        Self.expect("-42", "INT64", .value(.int64(-42)))
        Self.expect("123456789012345678", "INT64", .value(.int64(123_456_789_012_345_678)))
        Self.expect("-999999999999999999", "INT64", .value(.int64(-999_999_999_999_999_999)))
        Self.expect("1234567890123456789", "INT64", .value(.int64(1_234_567_890_123_456_789)))
        Self.expect("9223372036854775807", "INT64", .value(.int64(9_223_372_036_854_775_807)))
        Self.expect("-9223372036854775808", "INT64", .value(.int64(-9_223_372_036_854_775_807 - 1)))
        // One past the bounds is a double, which INT64 does not take as it was read: kept for the check to refuse.
        Self.expect("9223372036854775808", "INT64", Self.kept(.double(9_223_372_036_854_775_808.0), "INT64"))
        Self.expect("-9223372036854775809", "INT64", Self.kept(.double(-9_223_372_036_854_775_808.0), "INT64"))
        Self.expect("1.0", "INT64", Self.kept(.double(1), "INT64"))
        Self.expect("1e3", "INT64", Self.kept(.double(1000), "INT64"))
        Self.expect("7", "DOUBLE", Self.kept(.int(7), "DOUBLE"))
    }

    @Test func doublesOfEverySpelling() {
        Self.expect("0.5", "DOUBLE", .value(.double(0.5)))
        Self.expect("0.1", "DOUBLE", .value(.double(0.1)))
        Self.expect("-0.0", "DOUBLE", .value(.double(-0.0)))
        Self.expect("0.0", "DOUBLE", .value(.double(0.0)))
        Self.expect("422.43", "DOUBLE", .value(.double(422.43)))
        Self.expect("-3.25", "DOUBLE", .value(.double(-3.25)))
        Self.expect("12345678901234.5", "DOUBLE", .value(.double(12_345_678_901_234.5)))
        Self.expect("0.00000000000001", "DOUBLE", .value(.double(1e-14)))
        // More digits than a double holds exactly, and exponents: read by the generic parser, the same value.
        Self.expect("123456789012345.6", "DOUBLE", .value(.double(123_456_789_012_345.6)))
        Self.expect("0.30000000000000004", "DOUBLE", .value(.double(0.30000000000000004)))
        Self.expect("0.1000000000000000055511151231257827", "DOUBLE", .value(.double(0.1)))
        Self.expect("2.5E+3", "DOUBLE", .value(.double(2500)))
        Self.expect("1e-2", "DOUBLE", .value(.double(0.01)))
        Self.expect("-0e0", "DOUBLE", .value(.double(-0.0)))
        Self.expect("1.7976931348623157e308", "DOUBLE", .value(.double(1.7976931348623157e308)))
        Self.expect("5e-324", "DOUBLE", .value(.double(Double(bitPattern: 1))))  // the least positive double
        #expect(Self.fast("-0.0", "DOUBLE").map { if case .value(.double(let d)) = $0 { return d.sign == .minus } else { return false } } == true)
    }

    @Test func malformedNumbersAreLeftToTheGenericParser() {
        // Each is a line the generic parser refuses: the fast reader declines it so the refusal stays the parser's.
        for v in ["1e400", "-1e400", "1.", ".5", "-.5", "-", "01", "1.e5", "1e", "1e+", "+1", "0x10", "1.5.5", "--1", "NaN"] {
            #expect(Self.fast(v, "DOUBLE") == nil, "took \(v)")
            #expect(Self.generic(v, "DOUBLE") == nil, "the generic path took \(v)")
        }
    }

    @Test func timestampsAtTheBoundsOfTheYears0001To9999() {
        Self.expect("-62135596800000", "TIMESTAMP", .value(.timestamp(-62_135_596_800_000)))
        Self.expect("253402300799999", "TIMESTAMP", .value(.timestamp(253_402_300_799_999)))
        Self.expect("1577836800000", "TIMESTAMP", .value(.timestamp(1_577_836_800_000)))
        Self.expect("-62135596800001", "TIMESTAMP", Self.kept(.int(-62_135_596_800_001), "TIMESTAMP"))
        Self.expect("253402300800000", "TIMESTAMP", Self.kept(.int(253_402_300_800_000), "TIMESTAMP"))
        Self.expect("1.5", "TIMESTAMP", Self.kept(.double(1.5), "TIMESTAMP"))
    }

    @Test func stringsWithEscapes() {
        Self.expect(#""plain""#, "STRING", .value(.string("plain")))
        Self.expect(#""""#, "STRING", .value(.string("")))
        Self.expect(#""caf\u00e9""#, "STRING", .value(.string("café")))
        Self.expect(#""café 日本""#, "STRING", .value(.string("café 日本")))
        Self.expect(#""\ud83d\ude00!""#, "STRING", .value(.string("😀!")))
        Self.expect(#""a\"b\\c\/d\n\t\r\b\f""#, "STRING", .value(.string("a\"b\\c/d\n\t\r\u{8}\u{C}")))
        Self.expect(#""\u2028""#, "STRING", .value(.string("\u{2028}")))
        Self.expect(#""5""#, "INT64", Self.kept(.string("5"), "INT64"))
        Self.expect(#""x""#, "INT64", Self.kept(.string("x"), "INT64"))
        for v in [#""\ud83d""#, #""\ude00""#, #""\x""#, #""a"#] {
            #expect(Self.fast(v, "STRING") == nil, "took \(v)")
            #expect(Self.generic(v, "STRING") == nil, "the generic path took \(v)")
        }
    }

    @Test func listsAndNestedLists() {
        Self.expect("[1,-0,9223372036854775807]", "INT64_LIST", .value(.list(.int64, [.int64(1), .int64(0), .int64(9_223_372_036_854_775_807)])))
        Self.expect("[0.5,-0.0,1e2]", "DOUBLE_LIST", .value(.list(.double, [.double(0.5), .double(-0.0), .double(100)])))
        Self.expect(#"["a","\u00e9"]"#, "STRING_LIST", .value(.list(.string, [.string("a"), .string("é")])))
        Self.expect("[253402300799999]", "TIMESTAMP_LIST", .value(.list(.timestamp, [.timestamp(253_402_300_799_999)])))
        Self.expect("[[1]]", "INT64_LIST", Self.kept(.array([.array([.int(1)])]), "INT64_LIST"))
        Self.expect("[1,2.5]", "INT64_LIST", Self.kept(.array([.int(1), .double(2.5)]), "INT64_LIST"))
    }

    @Test func fieldDictionariesInAnyOrder() {
        #expect(Self.same(Self.fast(field: #"{"type":"INT64","value":-7}"#), .value(.int64(-7))))
        #expect(Self.same(Self.fast(field: #"{ "type" : "DOUBLE" , "value" : 2.75 }"#), .value(.double(2.75))))
        #expect(Self.same(Self.fast(field: #"{"value":12}"#), .json(.object(["value": .int(12)]))))
        #expect(Self.same(Self.fast(field: #"{"value":null,"type":"INT64"}"#), .unset))
        // Extra or repeated keys: declined, for the generic path to refuse or read.
        #expect(Self.fast(field: #"{"value":1,"type":"INT64","extra":1}"#) == nil)
        #expect(Self.fast(field: #"{"value":1,"value":2,"type":"INT64"}"#) == nil)
        #expect(Self.fast(field: #"{"value":1,"type":"INT64","type":"INT64"}"#) == nil)
        let twice = Array(#"{"recordName":"n1","recordType":"Note","fields":{"f":{"value":1},"f":{"value":2}}}"#.utf8)
        #expect(RecordOperation.decode(batchLine: twice[...], policy: nil) == nil)
    }
}
