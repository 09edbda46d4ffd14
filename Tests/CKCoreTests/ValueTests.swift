import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKStorage
@testable import CKDataModel

@Suite struct ValueTests {
    @Test func inference() {
        #expect(ValueParser.inferType("42") == .int64)
        #expect(ValueParser.inferType("-7") == .int64)
        #expect(ValueParser.inferType("2.5") == .double)
        #expect(ValueParser.inferType("1e3") == .double)
        #expect(ValueParser.inferType("2026-01-31") == .timestamp)
        #expect(ValueParser.inferType("2026-01-31T09:30:00Z") == .timestamp)
        #expect(ValueParser.inferType("Hello") == .string)
        #expect(ValueParser.inferType("nan") == .string)
        #expect(ValueParser.inferType("inf") == .string)
        #expect(ValueParser.inferType("0x10") == .string)
        #expect(ValueParser.inferType("") == .string)
    }

    @Test func explicitTypes() throws {
        var p = ValueParser()
        #expect(try p.parse("12", as: .string, path: "f") == .string("12"))
        #expect(try p.parse("12", as: .double, path: "f") == .double(12))
        #expect(try p.parse("1700000000000", as: .timestamp, path: "f") == .timestamp(1_700_000_000_000))
        #expect(try p.parse("aGk=", as: .bytes, path: "f") == .bytes([104, 105]))
        #expect(try p.parse("note-1@Notes", as: .reference, path: "f") == .reference(Reference(recordName: "note-1", zoneName: "Notes")))
        #expect(try p.parse("37.33,-122.03", as: .location, path: "f") == .location(Location(latitude: 37.33, longitude: -122.03)))
        #expect(ckError { _ = try p.parse("x", as: .int64, path: "f") }?.code == .invalidArguments)
        #expect(ckError { _ = try p.parse("91,0", as: .location, path: "f") }?.code == .invalidArguments)
        #expect(ckError { _ = try p.parse("_x", as: .reference, path: "f") }?.code == .invalidArguments)
        #expect(ckError { _ = try p.parse("!!", as: .bytes, path: "f") }?.code == .invalidArguments)
        #expect(ckError { _ = try p.parse("@/nonexistent/file", as: .asset, path: "f") }?.code == .assetFileNotFound)
    }

    @Test func lists() throws {
        var p = ValueParser()
        #expect(try p.parse("a,b\\,c", as: FieldType(.string, list: true), path: "f") == .list(.string, [.string("a"), .string("b,c")]))
        #expect(try p.parse("1,2", as: FieldType(.int64, list: true), path: "f") == .list(.int64, [.int64(1), .int64(2)]))
        #expect(try p.parse("", as: FieldType(.int64, list: true), path: "f") == .list(.int64, []))
        #expect(try p.parse("[\"x,y\"]", as: FieldType(.string, list: true), path: "f") == .list(.string, [.string("x,y")]))
        #expect(try p.parse("1,2;3,4", as: FieldType(.location, list: true), path: "f")
                == .list(.location, [.location(Location(latitude: 1, longitude: 2)), .location(Location(latitude: 3, longitude: 4))]))
    }

    @Test func typeNames() {
        #expect(FieldType(name: "STRING_LIST") == FieldType(.string, list: true))
        #expect(FieldType(name: "LIST<INT64>") == FieldType(.int64, list: true))
        #expect(FieldType(name: "stringType") == .string)
        #expect(FieldType(name: "int64ListType") == FieldType(.int64, list: true))
        #expect(FieldType(name: "ASSETID") == .asset)
        #expect(FieldType(name: "ASSET") == .asset)
        #expect(FieldType(name: "STRNG") == nil)
        #expect(FieldType(cliName: "int") == .int64)
        #expect(FieldType(cliName: "string[]") == FieldType(.string, list: true))
        #expect(FieldType(cliName: "date") == .timestamp)
    }

    @Test func webServicesAndCktoolJSON() throws {
        let ws = try JSON.parse(#"{"value":"x","type":"STRING"}"#)
        #expect(try FieldValue.from(fieldJSON: ws, declared: nil, path: "f") == .string("x"))
        let ck = try JSON.parse(#"{"value":544,"type":"int64Type"}"#)
        #expect(try FieldValue.from(fieldJSON: ck, declared: nil, path: "f") == .int64(544))
        let untyped = try JSON.parse(#"{"value":18}"#)
        #expect(try FieldValue.from(fieldJSON: untyped, declared: .double, path: "f") == .double(18))
        let ts = try JSON.parse(#"{"value":"2021-01-01T00:00:00Z","type":"timestampType"}"#)
        #expect(try FieldValue.from(fieldJSON: ts, declared: nil, path: "f") == .timestamp(1_609_459_200_000))
        let ref = try JSON.parse(#"{"value":{"recordName":"a","action":"DELETE_SELF"},"type":"REFERENCE"}"#)
        #expect(try FieldValue.from(fieldJSON: ref, declared: nil, path: "f") == .reference(Reference(recordName: "a", action: .deleteSelf)))
        let wrong = try JSON.parse(#"{"value":"x","type":"INT64"}"#)
        let e = ckError { _ = try FieldValue.from(fieldJSON: wrong, declared: nil, path: "fields.n") }
        #expect(e?.reason.contains("fields.n.value") == true)
        let extra = try JSON.parse(#"{"value":1,"typo":"INT64"}"#)
        #expect(ckError { _ = try FieldValue.from(fieldJSON: extra, declared: nil, path: "f") } != nil)
    }

    @Test func valuesRoundTripThroughJSON() throws {
        let values: [FieldValue] = [
            .string("é\n"), .int64(Int64.min), .double(-0.5), .timestamp(-1), .bytes([0, 255]),
            .reference(Reference(recordName: "r", zoneName: "Z", ownerRecordName: "_o", action: .validate)),
            .location(Location(latitude: 1.5, longitude: -2)), .asset(Asset(sha256: String(repeating: "ab", count: 32), size: 3)),
            .list(.string, [.string("a")]), .list(.timestamp, []),
        ]
        for v in values {
            let back = try FieldValue.from(fieldJSON: try JSON.parse(v.fieldJSON.serialized()), declared: nil, path: "f")
            #expect(back == v)
        }
    }

    @Test func iso8601() {
        #expect(ISO8601.parse("1970-01-01T00:00:00Z") == 0)
        #expect(ISO8601.parse("2026-01-01") == 1_767_225_600_000)
        #expect(ISO8601.parse("2026-01-01T02:00:00+02:00") == 1_767_225_600_000)
        #expect(ISO8601.parse("2026-01-01T00:00:00.5Z") == 1_767_225_600_500)
        #expect(ISO8601.parse("2024-02-29") != nil)
        #expect(ISO8601.parse("2023-02-29") == nil)
        #expect(ISO8601.parse("2026-13-01") == nil)
        #expect(ISO8601.parse("2026-01-01T25:00") == nil)
        #expect(ISO8601.parse("2026-01-01Tjunk") == nil)
        #expect(ISO8601.format(milliseconds: 1_767_225_600_500) == "2026-01-01T00:00:00.500Z")
        #expect(ISO8601.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        for t: Int64 in [0, 951_782_400_000, 4_102_444_800_123] {
            #expect(ISO8601.parse(ISO8601.format(milliseconds: t)) == t)
        }
        // Fixed-width fields at both ends of the range, and every field's carry.
        #expect(ISO8601.format(milliseconds: ISO8601.validRange.lowerBound) == "0001-01-01T00:00:00.000Z")
        #expect(ISO8601.format(milliseconds: ISO8601.validRange.upperBound) == "9999-12-31T23:59:59.999Z")
        #expect(ISO8601.format(milliseconds: 951_868_799_999) == "2000-02-29T23:59:59.999Z")
        #expect(ISO8601.format(milliseconds: 1_000_000_000_007) == "2001-09-09T01:46:40.007Z")
        for t in stride(from: ISO8601.validRange.lowerBound, through: ISO8601.validRange.upperBound, by: 9_876_543_210_987) {
            #expect(ISO8601.parse(ISO8601.format(milliseconds: t)) == t)
        }
    }

    @Test func sha256() {
        #expect(SHA256.hex(Array("".utf8)) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hex(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hex(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(SHA256.hex([UInt8](repeating: 0x61, count: 1_000_000)) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}
