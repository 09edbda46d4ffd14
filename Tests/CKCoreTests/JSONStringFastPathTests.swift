import Testing
@testable import CKModel
@testable import CKStorage

/// The string fast paths of the JSON writer and reader (issue 29, the bulk path): a string with nothing to escape
/// is copied whole after a scan eight bytes at a time, and the reader gathers ASCII-ness in its scan loop. Every
/// expected text below is written by hand: the bytes the writer produced before the fast path.
@Suite struct JSONStringFastPathTests {
    static func written(_ s: String) -> String {
        var out: [UInt8] = []
        JSON.writeString(s, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    static func firstEscape(_ s: String) -> Int {
        Array(s.utf8).withUnsafeBufferPointer { JSON.firstByteToEscape($0) }
    }

    @Test func plainStringsAreCopiedWhole() {
        #expect(Self.written("") == #""""#)
        #expect(Self.written("a") == #""a""#)
        #expect(Self.written("exactly8") == #""exactly8""#)
        #expect(Self.written("alpha bravo cedar delta ember") == #""alpha bravo cedar delta ember""#)
        // DEL (0x7F) and '/' are not escaped; JSON does not require it.
        #expect(Self.written("a/b\u{7F}c/d/e/f/g") == "\"a/b\u{7F}c/d/e/f/g\"")
        #expect(Self.firstEscape("alpha bravo cedar delta ember") == 29)
        #expect(Self.firstEscape("") == 0)
    }

    @Test func quotesBackslashesAndControlsAreEscapedWhereverTheyFall() {
        // In the first word, at a word's edge, in the second word, and in the byte tail.
        #expect(Self.written(#""start"#) == #""\"start""#)
        #expect(Self.written(#"abcdefg"h"#) == #""abcdefg\"h""#)
        #expect(Self.written(#"abcdefgh"ij"#) == #""abcdefgh\"ij""#)
        #expect(Self.written(#"abcdefghijklmnop\"#) == #""abcdefghijklmnop\\""#)
        #expect(Self.written("abcdefghijklm\u{01}") == #""abcdefghijklm\u0001""#)
        #expect(Self.written("tab\there\nnew\rline") == #""tab\there\nnew\rline""#)
        #expect(Self.written("\u{00}\u{1F}\u{08}\u{0C}") == #""\u0000\u001f\u0008\u000c""#)
        #expect(Self.written(#"a "quoted" \path\ here"#) == #""a \"quoted\" \\path\\ here""#)
        #expect(Self.firstEscape(#"abcdefgh"ij"#) == 8)
        #expect(Self.firstEscape(#"abcdefg\h"#) == 7)
        #expect(Self.firstEscape("abcdefghijklmnopqrstuvw\u{1F}") == 23)
        #expect(Self.firstEscape("\u{1F}") == 0)
    }

    @Test func nonASCIIIsWrittenAsItsBytes() {
        // Bytes ≥ 0x80 are never escaped: é, €, U+2028 (LINE SEPARATOR), an emoji; 0xA2 and 0xDC are
        // 0x22 and 0x5C with the high bit set, which a word-at-a-time test must not take for a quote or backslash.
        #expect(Self.written("café crème brûlée") == "\"café crème brûlée\"")
        #expect(Self.written("line\u{2028}separator and more") == "\"line\u{2028}separator and more\"")
        #expect(Array(Self.written("\u{2028}").utf8) == [0x22, 0xE2, 0x80, 0xA8, 0x22])
        #expect(Self.written("¢¢¢¢Ü€😀 \"x\"") == "\"¢¢¢¢Ü€😀 \\\"x\\\"\"")
        #expect(Self.firstEscape("¢¢¢¢ÜÜÜÜ") == 16)
        #expect(Self.firstEscape("ÜÜÜÜ\\") == 8)
    }

    @Test func readerKeepsNonASCIIAndRefusesBadUTF8() throws {
        #expect(try JSON.parse(#""alpha bravo cedar""#) == .string("alpha bravo cedar"))
        #expect(try JSON.parse("\"café\u{2028}€\"") == .string("café\u{2028}€"))
        #expect(try JSON.parse(#"["ascii", "ünï", "ascii again"]"#) == .array([.string("ascii"), .string("ünï"), .string("ascii again")]))
        // A lone continuation byte and a truncated sequence, in a string without escapes.
        for bad: [UInt8] in [[0x22, 0x61, 0x80, 0x62, 0x22], [0x22, 0x61, 0x62, 0xE2, 0x80, 0x22]] {
            do {
                _ = try JSON.parse(utf8: bad)
                Issue.record("expected invalid UTF-8 to be refused")
            } catch {
                #expect(error.message == "invalid UTF-8 in string")
                #expect(error.line == 1 && error.column == 2)
            }
        }
        // validate (the skip path) refuses the same bytes.
        #expect(throws: JSONParseError.self) { try JSON.validate(utf8: [0x22, 0xFF, 0x22] as [UInt8]) }
    }
}

/// Log lines write their integers digit by digit instead of making a `String` of each (issue 29, the bulk path).
@Suite struct LogDecimalTests {
    static func decimal(_ v: Int64) -> String {
        var out: [UInt8] = []
        LogEntry.appendDecimal(v, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The reader scans a string eight bytes at a time: its end, an escape, a control character or a byte ≥ 0x80 in
    /// the first word, at a word's edge, in a later word or in the byte tail reads as the bytes say.
    @Test func readerFindsTheEndAndEscapesWhereverTheyFall() throws {
        #expect(try JSON.parse(#""abcdefg""#) == .string("abcdefg"))
        #expect(try JSON.parse(#""abcdefgh""#) == .string("abcdefgh"))
        #expect(try JSON.parse(#""abcdefghi""#) == .string("abcdefghi"))
        #expect(try JSON.parse(#""abcdefghijklmnop""#) == .string("abcdefghijklmnop"))
        #expect(try JSON.parse(#""abcdefg\"hijklmnop""#) == .string(#"abcdefg"hijklmnop"#))
        #expect(try JSON.parse(#""abcdefgh\\ijklmnop""#) == .string(#"abcdefgh\ijklmnop"#))
        #expect(try JSON.parse(#""abcdefghijklmnopq\u00e9""#) == .string("abcdefghijklmnopqé"))
        #expect(try JSON.parse(#"["abcdefghijkl","mnopqrstuvwx"]"#) == .array([.string("abcdefghijkl"), .string("mnopqrstuvwx")]))
        // A byte ≥ 0x80 in a word the scan passes whole (¢ is C2 A2, Ü is C3 9C: 0x22 and 0x5C with the high bit).
        #expect(try JSON.parse("\"¢¢¢¢ÜÜÜÜ plain tail\"") == .string("¢¢¢¢ÜÜÜÜ plain tail"))
        #expect(try JSON.parse("\"plain ascii word then é\"") == .string("plain ascii word then é"))
        // A raw control character is refused wherever it falls, with its column.
        for (text, column) in [("\"abcdefghij\u{01}k\"", 12), ("\"abcdefg\u{1F}\"", 9), ("\"\u{0A}abcdefghij\"", 2)] {
            do {
                _ = try JSON.parse(text)
                Issue.record("took a raw control character: \(text.debugDescription)")
            } catch {
                #expect(error.message == "control character in string (escape it)")
                #expect(error.column == column, "\(text.debugDescription): column \(error.column)")
            }
        }
        // Bad UTF-8 inside a word the scan passes whole is still refused.
        let bad: [UInt8] = [0x22] + Array("abcdefghij".utf8) + [0x80] + Array("klmnopqrstu".utf8) + [0x22]
        do {
            _ = try JSON.parse(utf8: bad)
            Issue.record("expected invalid UTF-8 to be refused")
        } catch {
            #expect(error.message == "invalid UTF-8 in string")
        }
    }

    @Test func spellsIntegersAsStringDoes() {
        #expect(Self.decimal(0) == "0")
        #expect(Self.decimal(7) == "7")
        #expect(Self.decimal(10) == "10")
        #expect(Self.decimal(-1) == "-1")
        #expect(Self.decimal(1_577_836_800_000) == "1577836800000")
        #expect(Self.decimal(Int64.max) == "9223372036854775807")
        #expect(Self.decimal(Int64.min) == "-9223372036854775808")
    }
}

/// A whole log line with the literal and decimal fast paths, against bytes written by hand.
@Suite struct LogLineBytesTests {
    @Test func aSaveLineIsWrittenByteForByte() {
        let stamp = { (t: Int64, u: String) in RecordStamp(timestamp: t, userRecordName: u, deviceID: "dev") }
        let r = Record(recordName: #"n"1"#, recordType: "Item", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "_o"), changeTag: "5",
                       fields: ["a": .string("q\"b\\c\td\u{2028}é"), "b": .int64(-42), "c": .double(0.25),
                                "d": .timestamp(1_577_836_800_000), "e": .list(.string, [.string("x")]), "f": .int64(Int64.min)],
                       created: stamp(1, "_u"), modified: stamp(-2, "_v"))
        var out: [UInt8] = []
        LogEntry.save(seq: 12, record: r).write(into: &out, batch: 3)
        let expected = #"{"seq":12,"op":"save","batch":3,"record":{"recordName":"n\"1","recordType":"Item","recordChangeTag":"5","deleted":false,"fields":{"#
            + #""a":{"value":"q\"b\\c\td\#u{2028}é","type":"STRING"},"b":{"value":-42,"type":"INT64"},"c":{"value":0.25,"type":"DOUBLE"},"#
            + #""d":{"value":1577836800000,"type":"TIMESTAMP"},"e":{"value":["x"],"type":"STRING_LIST"},"f":{"value":-9223372036854775808,"type":"INT64"}},"#
            + #""created":{"deviceID":"dev","timestamp":1,"userRecordName":"_u"},"modified":{"deviceID":"dev","timestamp":-2,"userRecordName":"_v"},"#
            + #""zoneID":{"zoneName":"Z","ownerRecordName":"_o","zoneType":"REGULAR_CUSTOM_ZONE"}}}"#
        #expect(String(decoding: out, as: UTF8.self) == expected)
    }
}
