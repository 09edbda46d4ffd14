import Foundation
import Testing
import CKCore
@testable import CKModel

/// The streaming reader `ck import` reads a fixtures document with (issue 28): elements come out one at a time,
/// exactly as a whole parse gives them, whatever their escapes, nesting or place across the 64 KB window, and a
/// broken document is refused naming the byte where it breaks.
@Suite struct JSONStreamReaderTests {
    let limit = (bytes: 1 << 20, name: "the test's limit")

    /// The elements of `$.records` read one at a time from `text` (in memory, or from a file when `file`).
    func records(_ text: String, file: Bool = false) throws -> [JSON] {
        var out: [JSON] = []
        let doc = try document(text, file: file)
        try doc.forEachRecord { (_, item) throws(CKError) in out.append(item) }
        return out
    }

    func document(_ text: String, file: Bool = false) throws -> FixtureDocument {
        guard file else { return try FixtureDocument.read(bytes: Array(text.utf8), input: "doc.json") }
        let path = NSTemporaryDirectory() + "ck-stream-\(UUID().uuidString).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let fd = open(path, O_RDONLY)
        #expect(fd >= 0)
        // The document owns the descriptor from here; unlinking the file leaves it readable.
        return try FixtureDocument.read(fd: fd, input: "doc.json")
    }

    func failure(_ text: String) -> CKError? {
        do { _ = try records(text); return nil } catch let e as CKError { return e } catch { return nil }
    }

    @Test func escapesInsideStringsDoNotEndAnElement() throws {
        // Quotes, backslashes and brackets inside strings; \u escapes, a surrogate pair and raw UTF-8.
        let text = #"{"records": ["a\"b]}", "\\", "x\\\"]", "\u00e9\n\t", "\ud83d\ude00", "日本", {"k": "}]\"{["}], "format": "ck-fixtures/1"}"#
        #expect(try records(text) == [.string("a\"b]}"), .string("\\"), .string("x\\\"]"), .string("é\n\t"), .string("😀"), .string("日本"),
                                      .object(["k": .string("}]\"{[")])])
        #expect(try records(text, file: true).count == 7)
    }

    @Test func nestedValuesAndScalarsComeOutWhole() throws {
        let text = #"{"records": [ {"a": [1, [2, [3, {"b": null}]]], "c": {"d": {"e": []}}} , -1.5e3 ,true,false, null, 0, "" , [], {} ]}"#
        #expect(try records(text) == [
            .object(["a": .array([.int(1), .array([.int(2), .array([.int(3), .object(["b": .null])])])]),
                     "c": .object(["d": .object(["e": .array([])])])]),
            .double(-1500), .bool(true), .bool(false), .null, .int(0), .string(""), .array([]), .object([:]),
        ])
    }

    @Test func membersOtherThanRecordsAndAssetsAreKeptWhole() throws {
        let doc = try document(#"{"format": "ck-fixtures/1", "records": [{"n": 1}], "assets": {"h1": "AAE="}, "zones": [{"zoneName": "Z"}]}"#)
        #expect(doc.members == ["format": .string("ck-fixtures/1"), "zones": .array([.object(["zoneName": .string("Z")])])])
        var assets: [String: JSON] = [:]
        try doc.forEachAsset { (h, v) throws(CKError) in assets[h] = v }
        #expect(assets == ["h1": .string("AAE=")])
        // Read twice, the same records come out twice: each pass of an import reads them again.
        var seen: [Int] = []
        try doc.forEachRecord { (i, _) throws(CKError) in seen.append(i) }
        try doc.forEachRecord { (i, _) throws(CKError) in seen.append(i) }
        #expect(seen == [0, 0])
    }

    @Test func elementsLongerThanTheWindowAreReadAcrossRefills() throws {
        // 200,000 bytes of a string full of brackets and escaped quotes: it spans four 64 KB windows of the file.
        let unit = #"]}\"{["#
        let long = String(repeating: unit, count: 40_000)
        let text = "{\"records\": [\"" + long + "\", {\"after\": true}]}"
        let expected = String(repeating: "]}\"{[", count: 40_000)
        let got = try records(text, file: true)
        #expect(got.count == 2)
        #expect(got.first == .string(expected))
        #expect(got.last == .object(["after": .bool(true)]))
    }

    @Test func aTruncatedDocumentNamesTheByteWhereItEnds() {
        // 30 bytes: it ends inside the second record, which starts at byte 23.
        let text = #"{"records": [{"a": 1}, {"b": 2"#
        #expect(text.utf8.count == 30)
        let e = failure(text)
        #expect(e?.code == .invalidArguments)
        #expect(e?.reason == "doc.json:1:31: the document ends at byte 30, expecting the end of the value that starts at byte 23: it is cut short", "\(String(describing: e))")
        // Cut after a comma, and before the object's end.
        #expect(failure(#"{"records": [{"a": 1},"#)?.reason == "doc.json:1:23: the document ends at byte 22, expecting a value: it is cut short")
        #expect(failure(#"{"records": []"#)?.reason == "doc.json:1:15: the document ends at byte 14, expecting ',' or '}': it is cut short")
    }

    @Test func brokenJSONNamesItsByteLineAndColumn() {
        let text = "{\"records\": [\n  {\"a\": 1},\n  {\"b\": tru}\n]}"
        // Line 3 starts at byte 26; "tru" at column 9, byte 34.
        #expect(failure(text)?.reason == "doc.json:3:9: invalid JSON at byte 34: invalid literal, expected 'true'", "\(String(describing: failure(text)))")
        #expect(failure(#"{"records": [1] "x": 2}"#)?.reason == "doc.json:1:17: invalid JSON at byte 16: expected ',' or '}', found '\"'")
        #expect(failure(#"{"a": 1, "a": 2}"#)?.reason == "doc.json:1:10: invalid JSON at byte 9: duplicate key \"a\"")
        #expect(failure(#"{"records": []} x"#)?.reason == "doc.json:1:17: invalid JSON at byte 16: unexpected text after the JSON value")
        #expect(failure("[1, 2]")?.reason == "doc.json:1:1: invalid JSON at byte 0: expected '{' (an object), found '['")
    }

    @Test func anElementOverItsLimitIsRefusedWithoutReadingIt() throws {
        var r = JSONStreamReader(.bytes(Array(#"[ "0123456789", 1 ]"#.utf8)), input: "doc.json", valueLimit: (bytes: 8, name: "eight bytes"))
        #expect(try r.beginArrayIfAny())
        #expect(try r.nextElement())
        do {
            _ = try r.value()
            Issue.record("a value over the limit was read")
        } catch {
            #expect(error.code == .limitExceeded)
            #expect(error.reason == "doc.json: the value at byte 2 is larger than 8 bytes (8 bytes), eight bytes")
        }
        var ok = JSONStreamReader(.bytes(Array(#"[ "0123", 1 ]"#.utf8)), input: "doc.json", valueLimit: (bytes: 8, name: "eight bytes"))
        #expect(try ok.beginArrayIfAny())
        #expect(try ok.nextElement())
        #expect(try ok.value() == .string("0123"))
        #expect(try ok.nextElement())
        #expect(try ok.value() == .int(1))
        #expect(try !ok.nextElement())
    }
}
