import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKStorage
@testable import CKServer
@testable import CKSync
@testable import CKDataModel

/// The fast log-line reader (`LogEntry.decode(line:)`) against the entries written and the generic parser.
@Suite struct LogEntryDecodingTests {
    static let zone = ZoneID(zoneName: "Notes", ownerRecordName: "_abc")
    static let sha = String(repeating: "0123456789abcdef", count: 4)

    static func record(_ fields: [String: FieldValue], name: String = "r1", parent: String? = nil,
                       zone: ZoneID = zone) -> Record {
        Record(recordName: name, recordType: "Note", zoneID: zone, changeTag: "t1", fields: fields,
               created: RecordStamp(timestamp: 1_700_000_000_000, userRecordName: "_abc"),
               modified: RecordStamp(timestamp: 1_700_000_000_500, userRecordName: "_def", deviceID: "dev 2"),
               parent: parent)
    }

    static func bytes(_ e: LogEntry, batch: Int? = nil) -> [UInt8] {
        var out: [UInt8] = []
        e.write(into: &out, batch: batch)
        return out
    }

    /// The generic path: the JSON tree, then `LogEntry(json:path:)`.
    static func generic(_ line: [UInt8]) throws -> (entry: LogEntry, batch: Int64?) {
        let json = try JSON.parse(utf8: line)
        return (try LogEntry(json: json, path: "line 1"), json["batch"]?.int64Value)
    }

    /// Entries compared field by field (LogEntry is not Equatable).
    static func same(_ a: LogEntry, _ b: LogEntry) -> Bool {
        switch (a, b) {
        case (.save(let s1, let r1), .save(let s2, let r2)): return s1 == s2 && r1 == r2
        case (.delete(let s1, let n1, let t1, let at1, let u1), .delete(let s2, let n2, let t2, let at2, let u2)):
            return s1 == s2 && n1 == n2 && t1 == t2 && at1 == at2 && u1 == u2
        default: return false
        }
    }

    /// Writes `e`, then checks that the fast reader takes the line and that both readers give back `e`.
    static func roundTrip(_ e: LogEntry, batch: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let line = bytes(e, batch: batch)
        let text = String(decoding: line, as: UTF8.self)
        guard let fast = LogEntry.decode(line: line[...]) else {
            Issue.record("the fast reader refused a line ck wrote: \(text)", sourceLocation: sourceLocation)
            return
        }
        let slow = try generic(line)
        #expect(same(fast.entry, e), "fast: \(text)", sourceLocation: sourceLocation)
        #expect(same(slow.entry, e), "generic: \(text)", sourceLocation: sourceLocation)
        #expect(fast.batch == batch.map(Int64.init), sourceLocation: sourceLocation)
        #expect(slow.batch == fast.batch, sourceLocation: sourceLocation)
    }

    static let location: Location = {
        var l = Location(latitude: 48.8584, longitude: -2.2945)
        l.horizontalAccuracy = 5
        l.altitude = 35.25
        l.speed = 0
        l.course = 359.5
        l.timestamp = 1_700_000_000_123
        return l
    }()

    /// One value of every type, plain, listed and encrypted.
    static let everyType: [String: FieldValue] = [
        "s": .string("hello"), "i": .int64(-42), "big": .int64(.max), "small": .int64(.min),
        "d": .double(3.25), "whole": .double(2), "tiny": .double(-1.0e-300), "huge": .double(1.7e308),
        "t": .timestamp(1_700_000_000_000), "t0": .timestamp(ISO8601.validRange.lowerBound),
        "b": .bytes([0, 1, 2, 250, 255]), "empty": .bytes([]),
        "ref": .reference(Reference(recordName: "other")),
        "refZ": .reference(Reference(recordName: "o2", zoneName: "Notes", ownerRecordName: "_abc", action: .deleteSelf)),
        "a": .asset(Asset(sha256: sha, size: 12)),
        "loc": .location(location), "loc2": .location(Location(latitude: -90, longitude: 180)),
        "ls": .list(.string, ["a", "b,c", ""].map(FieldValue.string)), "li": .list(.int64, [.int64(1), .int64(-2)]),
        "ld": .list(.double, [.double(0.5), .double(-3)]), "lt": .list(.timestamp, [.timestamp(0)]),
        "lb": .list(.bytes, [.bytes([9]), .bytes([])]), "lr": .list(.reference, [.reference(Reference(recordName: "x", action: .validate))]),
        "la": .list(.asset, [.asset(Asset(sha256: sha, size: 0))]), "ll": .list(.location, [.location(location)]),
        "lempty": .list(.string, []),
        "es": .encrypted(.string("secret")), "ei": .encrypted(.int64(7)), "ed": .encrypted(.double(1.5)),
        "et": .encrypted(.timestamp(5)), "eb": .encrypted(.bytes([1, 2])), "eloc": .encrypted(.location(location)),
        "els": .encrypted(.list(.string, [.string("x")])), "elb": .encrypted(.list(.bytes, [.bytes([3])])),
    ]

    @Test func everyFieldTypeReadsBackTheSame() throws {
        try Self.roundTrip(.save(seq: 1, record: Self.record(Self.everyType)))
        for (k, v) in Self.everyType {
            try Self.roundTrip(.save(seq: 9, record: Self.record([k: v])))
        }
        try Self.roundTrip(.save(seq: 2, record: Self.record([:])))
    }

    @Test func batchesParentsAndZones() throws {
        try Self.roundTrip(.save(seq: 3, record: Self.record(["n": .int64(1)])), batch: 4)
        try Self.roundTrip(.save(seq: 4, record: Self.record([:], parent: "folder")))
        try Self.roundTrip(.save(seq: 5, record: Self.record([:], zone: ZoneID(zoneName: Names.defaultZoneName,
                                                                                ownerRecordName: ZoneID.publicOwner))))
    }

    @Test func deletions() throws {
        try Self.roundTrip(.delete(seq: 7, recordName: "gone", recordType: "Note", at: 1_700_000_000_000, userRecordName: nil))
        try Self.roundTrip(.delete(seq: 8, recordName: "gone", recordType: "Note", at: 0, userRecordName: "_abc"))
        try Self.roundTrip(.delete(seq: 9, recordName: "a \"b\"", recordType: "Note", at: 1, userRecordName: "_abc"), batch: 2)
    }

    static let oddStrings = [
        "", "quote \" backslash \\ slash /", "line\nbreak\r\ttab", "control \u{01}\u{1F}\u{7F}", "é日本語",
        "emoji 😀 👩‍👩‍👧 flag 🇫🇷", "\u{FEFF}bom", "\u{10FFFF}", "nul \u{0} inside",
    ]

    @Test func oddStringsEverywhere() throws {
        for s in Self.oddStrings {
            var r = Self.record(["s": .string(s), s.isEmpty ? "k" : s: .list(.string, [.string(s)])], name: "n" + s, parent: s)
            r.changeTag = s
            r.recordType = "T" + s
            r.zoneID = ZoneID(zoneName: s, ownerRecordName: s)
            r.created.userRecordName = s
            r.modified.deviceID = s
            try Self.roundTrip(.save(seq: 10, record: r))
            try Self.roundTrip(.delete(seq: 11, recordName: s, recordType: s, at: 1, userRecordName: s))
        }
    }

    /// Escapes ck does not write itself (`\u` forms, surrogate pairs, `\/`) are still read on the fast path.
    @Test func escapesOtherWritersUse() throws {
        let base = String(decoding: Self.bytes(.save(seq: 1, record: Self.record(["s": .string("X")]))), as: UTF8.self)
        let line = Array(base.replacingOccurrences(of: #""X""#, with: #""\ud83d\ude00 \u00e9 \/ \b\f""#).utf8)
        let fast = try #require(LogEntry.decode(line: line[...]))
        guard case .save(_, let r) = fast.entry else { Issue.record("not a save"); return }
        #expect(r.fields["s"] == .string("😀 é / \u{8}\u{C}"))
        #expect(Self.same(try Self.generic(line).entry, fast.entry))
        // A lone surrogate is refused by both readers.
        let bad = Array(base.replacingOccurrences(of: #""X""#, with: #""\ud83d""#).utf8)
        #expect(LogEntry.decode(line: bad[...]) == nil)
        #expect(throws: JSONParseError.self) { try Self.generic(bad) }
    }

    /// Numbers, lists and strings the fast reader reads itself (digits, flat lists, plain strings) or hands to the
    /// generic reader: whatever it takes, the generic path reads the same; what it can't, it declines.
    @Test func valueSpellingsAgreeWithTheGenericPath() throws {
        let base = String(decoding: Self.bytes(.save(seq: 1, record: Self.record(["v": .int64(1)]))), as: UTF8.self)
        let cases: [(String, String)] = [
            ("0", "INT64"), ("-0", "INT64"), ("7", "INT64"), ("-7", "INT64"), ("123456789012345678", "INT64"),
            ("-123456789012345678", "INT64"), ("1234567890123456789", "INT64"), ("9223372036854775807", "INT64"),
            ("-9223372036854775808", "INT64"), ("9223372036854775808", "INT64"), ("01", "INT64"), ("-01", "INT64"),
            ("1.0", "INT64"), ("1e3", "INT64"), ("1E3", "INT64"), ("-", "INT64"), ("\"12\"", "INT64"), ("true", "INT64"),
            ("1.5", "DOUBLE"), ("2", "DOUBLE"), ("-0.0", "DOUBLE"),
            ("1700000000000", "TIMESTAMP"), ("253402300799999", "TIMESTAMP"), ("253402300800000", "TIMESTAMP"),
            ("-62135596800000", "TIMESTAMP"), ("-62135596800001", "TIMESTAMP"), ("1.5", "TIMESTAMP"),
            ("[]", "STRING_LIST"), ("[\"a\",\"b\"]", "STRING_LIST"), ("[ \"a\"]", "STRING_LIST"), ("[\"a\" ,\"b\"]", "STRING_LIST"),
            ("[\"a\",]", "STRING_LIST"), ("[\"a\"", "STRING_LIST"), ("[1]", "STRING_LIST"), ("[\"é\\n\"]", "STRING_LIST"),
            ("[1,2]", "INT64_LIST"), ("[1,\"2\"]", "INT64_LIST"), ("[[1]]", "INT64_LIST"), ("[1.5,2]", "DOUBLE_LIST"),
            ("[1,2]", "TIMESTAMP_LIST"), ("[253402300800000]", "TIMESTAMP_LIST"),
            ("\"x\"", "STRING"), ("\"é\"", "STRING"), ("\"a\\\"b\"", "STRING"), ("1", "STRING"), ("\"\"", "STRING"),
            ("\"" + String(repeating: "long ", count: 10) + "\"", "STRING"),
        ]
        for (value, type) in cases {
            let text = base.replacingOccurrences(of: #"{"value":1,"type":"INT64"}"#, with: #"{"value":"# + value + #","type":""# + type + #""}"#)
            #expect(text != base)
            let line = Array(text.utf8)
            let slow = try? Self.generic(line)
            if let fast = LogEntry.decode(line: line[...]) {
                let g = try #require(slow, "the fast reader took a line the generic path refuses: \(text)")
                #expect(Self.same(fast.entry, g.entry), "\(text)")
            }
        }
    }

    /// Long strings repeated on a line (the owner's record name) and long strings of the same length that differ.
    @Test func repeatedAndAlmostRepeatedLongStrings() throws {
        let a = "_" + String(repeating: "a", count: 32), b = "_" + String(repeating: "a", count: 31) + "b"
        for (x, y) in [(a, a), (a, b), (b, a)] {
            var r = Self.record(["s": .string(x), "t": .string(y), "l": .list(.string, [.string(y), .string(x)])],
                                zone: ZoneID(zoneName: "Notes", ownerRecordName: y))
            r.created.userRecordName = x
            r.modified.userRecordName = y
            r.created.deviceID = y
            try Self.roundTrip(.save(seq: 3, record: r))
        }
    }

    /// Hand-edited lines: the fast reader declines them and the generic path reads what was meant.
    @Test func otherShapesFallBackAndReadTheSame() throws {
        let e = LogEntry.save(seq: 12, record: Self.record(["a": .int64(1), "b": .string("x"), "e": .encrypted(.string("s"))], parent: "p"))
        let line = String(decoding: Self.bytes(e), as: UTF8.self)
        let variants = [
            e.json.pretty(),                                                   // white space
            line + " ",                                                        // trailing space
            line.replacingOccurrences(of: #"{"seq":12,"op":"save","#, with: #"{"op":"save","seq":12,"#),  // key order
            line.replacingOccurrences(of: #""recordType":"Note","#, with: #""recordType":"Note","note":1,"#),  // unknown key
            line.replacingOccurrences(of: #""a":{"value":1,"type":"INT64"},"b":{"value":"x","type":"STRING"}"#,
                                      with: #""b":{"value":"x","type":"STRING"},"a":{"value":1,"type":"INT64"}"#),  // field order
            line.replacingOccurrences(of: #"{"value":1,"type":"INT64"}"#, with: #"{"type":"INT64","value":1}"#),
            line.replacingOccurrences(of: #"{"seq":12,"#, with: #"{"seq":12.0,"#),
            line.replacingOccurrences(of: #""deleted":false,"#, with: ""),
        ]
        for v in variants {
            let bytes = Array(v.utf8)
            #expect(v != line)
            #expect(LogEntry.decode(line: bytes[...]) == nil, "fast reader took: \(v)")
            #expect(Self.same(try Self.generic(bytes).entry, e), "generic: \(v)")
        }
        // A field written twice is refused by both readers.
        let twice = Array(line.replacingOccurrences(of: #""b":{"value":"x","type":"STRING"}"#,
                                                    with: #""a":{"value":2,"type":"INT64"}"#).utf8)
        #expect(LogEntry.decode(line: twice[...]) == nil)
        #expect(throws: JSONParseError.self) { try Self.generic(twice) }
        // A null value is no field, and a bad value is left to the generic path's error.
        let null = Array(line.replacingOccurrences(of: #"{"value":1,"type":"INT64"}"#, with: #"{"value":null,"type":"INT64"}"#).utf8)
        let fastNull = try #require(LogEntry.decode(line: null[...]))
        guard case .save(_, let r) = fastNull.entry else { Issue.record("not a save"); return }
        #expect(r.fields["a"] == nil && r.fields["b"] == .string("x"))
        #expect(Self.same(try Self.generic(null).entry, fastNull.entry))
        let wrong = Array(line.replacingOccurrences(of: #"{"value":1,"type":"INT64"}"#, with: #"{"value":"one","type":"INT64"}"#).utf8)
        #expect(LogEntry.decode(line: wrong[...]) == nil)
        #expect(throws: CKError.self) { try Self.generic(wrong) }
    }

    static func randomString(_ rng: inout SeededRNG) -> String {
        let pieces = ["a", "Z", "0", " ", "\"", "\\", "\n", "\u{1}", "é", "日", "😀", "/", ",", "{", "}"]
        return (0..<rng.below(6)).map { _ in pieces[rng.below(pieces.count)] }.joined()
    }

    static func randomValue(_ rng: inout SeededRNG, base: FieldType.Base) -> FieldValue {
        switch base {
        case .string: return .string(randomString(&rng))
        case .int64: return .int64(Int64(bitPattern: rng.next()) >> rng.below(64))
        case .double:
            let d = Double(bitPattern: rng.next())
            return .double(d.isFinite ? d : Double(rng.below(1000)) / 8)
        case .timestamp: return .timestamp(ISO8601.validRange.lowerBound + Int64(rng.below(Int(Int32.max))) * 100_000)
        case .bytes: return .bytes((0..<rng.below(8)).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        case .reference: return .reference(Reference(recordName: "r" + String(rng.below(100)), action: rng.below(2) == 0 ? .none : .deleteSelf))
        case .asset: return .asset(Asset(sha256: sha, size: Int64(rng.below(1 << 20))))
        case .location:
            var l = Location(latitude: Double(rng.below(180_001)) / 1000 - 90, longitude: Double(rng.below(360_001)) / 1000 - 180)
            if rng.below(2) == 0 { l.altitude = Double(rng.below(10_000)) / 3 }
            if rng.below(2) == 0 { l.timestamp = Int64(rng.below(1 << 30)) }
            return .location(l)
        }
    }

    static func randomRecord(_ rng: inout SeededRNG) -> Record {
        var fields: [String: FieldValue] = [:]
        for _ in 0..<rng.below(8) {
            let base = FieldType.Base.allCases[rng.below(FieldType.Base.allCases.count)]
            var v = rng.below(3) == 0 ? FieldValue.list(base, (0..<rng.below(4)).map { _ in randomValue(&rng, base: base) })
                                      : randomValue(&rng, base: base)
            if rng.below(4) == 0, FieldValue.encryptableBases.contains(base) { v = .encrypted(v) }
            fields["f" + randomString(&rng)] = v
        }
        return record(fields, name: "n" + randomString(&rng), parent: rng.below(4) == 0 ? randomString(&rng) : nil)
    }

    /// Random records read back the same on both paths; random edits of their lines are either declined by the
    /// fast reader or read exactly as the generic path reads them.
    @Test func fuzzAgainstTheGenericPath() throws {
        var rng = SeededRNG(seed: 0x10C0_DEC0_DE20_2612)
        for i in 0..<400 {
            let e: LogEntry = rng.below(5) == 0
                ? .delete(seq: Int64(i), recordName: Self.randomString(&rng), recordType: "T", at: Int64(rng.below(1 << 40)),
                          userRecordName: rng.below(2) == 0 ? nil : Self.randomString(&rng))
                : .save(seq: Int64(i), record: Self.randomRecord(&rng))
            try Self.roundTrip(e, batch: rng.below(4) == 0 ? rng.below(5) + 1 : nil)
        }
        let seeds = (0..<20).map { Self.bytes(.save(seq: Int64($0), record: Self.randomRecord(&rng))) }
        var accepted = 0
        for _ in 0..<3000 {
            let line = rng.mutated(seeds[rng.below(seeds.count)])
            guard let fast = LogEntry.decode(line: line[...]) else { continue }
            accepted += 1
            let text = String(decoding: line, as: UTF8.self)
            guard let slow = try? Self.generic(line) else { Issue.record("only the fast reader took: \(text)"); continue }
            #expect(Self.same(fast.entry, slow.entry) && fast.batch == slow.batch, "readers differ on: \(text)")
        }
        #expect(accepted > 0)
    }
}
