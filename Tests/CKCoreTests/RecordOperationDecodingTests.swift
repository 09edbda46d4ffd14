import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKSchema
@testable import CKStorage
@testable import CKServer
@testable import CKDataModel

/// The fast batch-line reader (`RecordOperation.decode(batchLine:policy:)`) against the generic path: the JSON
/// tree, then `RecordOperation(json:path:policy:)`.
@Suite struct RecordOperationDecodingTests {
    /// The generic path, as `RecordBatch.decode` runs it when the fast reader declines.
    static func generic(_ line: [UInt8], policy: SavePolicy?) throws -> (operation: RecordOperation, record: String) {
        let json = try JSON.parse(utf8: line)
        let record = json["operationType"] == nil ? "$" : "$.record"
        return (try RecordOperation(json: json, path: "$", policy: policy), record)
    }

    /// A schema that declares `key` with `type`, to check that typing does not depend on the reader.
    static func schema(declaring key: String, _ value: FieldValue) -> Schema {
        var s = Schema()
        _ = try? s.admit(recordType: "Note", values: [key: value], environment: .development)
        return s
    }

    static let schemas: [Schema] = [
        Schema(), schema(declaring: "f", .list(.int64, [])), schema(declaring: "f", .string("x")),
        schema(declaring: "f", .list(.string, [])), schema(declaring: "f", .double(1)),
    ]

    /// What a field input becomes under `schema` (a value, nil, or the error's reason), as checks and saves type it.
    static func typed(_ input: FieldInput?, key: String, schema: Schema) -> String {
        do {
            guard let v = try RecordBatch.value(input, type: "Note", key: key, path: "p", schema: schema) else { return "nil" }
            return "\(v.fieldJSON.serialized())"
        } catch {
            return "error: \(error.reason)"
        }
    }

    /// A field input as a conflict's clientRecord shows it.
    static func client(_ input: FieldInput?) -> JSON? {
        switch input {
        case .value(let v)?: return v.fieldJSON
        case .json(let j)?: return j
        case .unset?: return .null
        case .text?: return .string("text")
        case nil: return nil
        }
    }

    /// Both readers' operations agree in everything a check or a save reads.
    static func same(_ a: (operation: RecordOperation, record: String), _ b: (operation: RecordOperation, record: String)) -> Bool {
        let x = a.operation, y = b.operation
        guard a.record == b.record, x.type == y.type, x.recordName == y.recordName, x.recordType == y.recordType,
              x.changeTag == y.changeTag, x.inputError == nil, y.inputError == nil, Set(x.fields.keys) == Set(y.fields.keys) else { return false }
        guard case .keep = x.parent, case .keep = y.parent else { return false }
        for k in x.fields.keys {
            guard client(x.fields[k]) == client(y.fields[k]) else { return false }
            for s in schemas where typed(x.fields[k], key: k, schema: s) != typed(y.fields[k], key: k, schema: s) { return false }
        }
        return true
    }

    /// The fast reader takes `line` (when `fast`) and agrees with the generic path.
    static func check(_ text: String, fast: Bool = true, policy: SavePolicy? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let line = Array(text.utf8)
        let f = RecordOperation.decode(batchLine: line[...], policy: policy)
        if fast {
            guard let f else { Issue.record("the fast reader declined: \(text)", sourceLocation: sourceLocation); return }
            #expect(same(f, try generic(line, policy: policy)), "readers differ on: \(text)", sourceLocation: sourceLocation)
        } else {
            #expect(f == nil, "the fast reader took: \(text)", sourceLocation: sourceLocation)
        }
    }

    static func note(_ fields: String) -> String { #"{"recordName":"n1","recordType":"Note","fields":{\#(fields)}}"# }

    @Test func everyFieldTypeReadsTheSame() throws {
        let fields = [
            #""s":{"value":"hello","type":"STRING"}"#, #""i":{"value":-42,"type":"INT64"}"#,
            #""d":{"value":3.25,"type":"DOUBLE"}"#, #""t":{"value":1700000000000,"type":"TIMESTAMP"}"#,
            #""ls":{"value":["a","b"],"type":"STRING_LIST"}"#, #""li":{"value":[1,2],"type":"INT64_LIST"}"#,
            #""ld":{"value":[0.5,-3.5],"type":"DOUBLE_LIST"}"#, #""lt":{"value":[0],"type":"TIMESTAMP_LIST"}"#,
            #""empty":{"value":[],"type":"STRING_LIST"}"#, #""b":{"value":"AAEC","type":"BYTES"}"#,
            #""r":{"value":{"recordName":"other","action":"NONE"},"type":"REFERENCE"}"#,
            #""loc":{"value":{"latitude":1.5,"longitude":2.5},"type":"LOCATION"}"#,
            #""lb":{"value":["AAEC"],"type":"BYTES_LIST"}"#,
            #""u":{"value":["x"],"type":"UNKNOWN_LIST"}"#, #""c":{"value":"x","type":"stringType"}"#,
            #""n":{"value":5}"#, #""q":{"value":"5","type":"INT64"}"#, #""w":{"value":5,"type":"DOUBLE"}"#,
            #""x":{"value":true,"type":"INT64"}"#, #""iso":{"value":"2024-01-01T00:00:00Z","type":"TIMESTAMP"}"#,
            #""gone":{"value":null,"type":"STRING"}"#, #""none":{"type":"STRING"}"#, #""bare":{}"#,
            #""bad":{"value":"abc","type":"INT64"}"#, #""far":{"value":1e300,"type":"TIMESTAMP"}"#,
            #""unknown":{"value":1,"type":"NOPE"}"#,
        ]
        for f in fields { try Self.check(Self.note(f)) }
        try Self.check(Self.note(fields.joined(separator: ",")))
        try Self.check(Self.note(""))
        // The typed fields are typed by the fast reader; the others stay JSON, as the generic reader keeps them.
        let all = Array(Self.note(fields.joined(separator: ",")).utf8)
        let op = try #require(RecordOperation.decode(batchLine: all[...], policy: nil))
        guard case .value(.string("hello"))? = op.operation.fields["s"] else { Issue.record("STRING not typed"); return }
        guard case .json? = op.operation.fields["w"] else { Issue.record("an INT for DOUBLE was typed"); return }
        guard case .unset? = op.operation.fields["gone"] else { Issue.record("null is not unset"); return }
    }

    @Test func operationsPoliciesAndWhiteSpace() throws {
        try Self.check(Self.note(#""s":{"value":"x","type":"STRING"}"#), policy: .changedKeys)
        try Self.check(#"{"recordName":"n1","recordType":"Note","recordChangeTag":"3"}"#)
        try Self.check(#"{"recordName":"n1","recordType":"Note","recordChangeTag":"3"}"#, policy: .allKeys)
        try Self.check(#"{"recordType":"Note"}"#)
        try Self.check(#"{"recordName":"n1","recordChangeTag":"3"}"#)
        try Self.check(#"{"recordName":"n1","recordChangeTag":"3","fields":{}}"#, policy: .changedKeys)
        for t in RecordOperationType.allCases where t != .create {
            try Self.check(#"{"operationType":"\#(t.rawValue)","record":{"recordName":"n1","recordChangeTag":"2"}}"#)
        }
        try Self.check(#"{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"a":{"value":1,"type":"INT64"}}}}"#)
        try Self.check(#"{"record":{"recordType":"Note"},"operationType":"create"}"#)
        try Self.check(#" { "recordName" : "n1" , "recordType":"Note", "fields" : { "a" : { "type" : "INT64" , "value" : 1 } } } "#)
        try Self.check(#"{"recordName":"n\u00e9 \"q\"","recordType":"Note","fields":{"s":{"value":"line\nbreak 😀","type":"STRING"}}}"#)
    }

    /// The keys and type names the reader matches as bytes read as the generic path reads them however they are
    /// spelled (escaped, spaced, in another order, a longer name that starts like a known one); repeated, they are
    /// left to it.
    @Test func fixedKeysReadAsSpelled() throws {
        for text in [
            #"{"recordN\u0061me":"n1","recordType":"Note","fields":{"s":{"val\u0075e":"x","type":"\u0053TRING"}}}"#,
            #"{ "recordType" : "Note" , "recordName" : "n1" , "fields" : { "s" : { "type" : "STRING" , "value" : "x" } } }"#,
            Self.note(#""s":{"value":"x","type":"STRING_LIST"}"#), Self.note(#""s":{"value":["x"],"type":"STRING_LIST"}"#),
            Self.note(#""i":{"value":1,"type":"INT64_LIST"}"#), Self.note(#""t":{"value":1,"type":"TIMESTAMPS"}"#),
            Self.note(#""d":{"value":1.5,"type":"DOUBLE "}"#), Self.note(#""v":{"value":"STRING","type":"STRING"}"#),
        ] {
            try Self.check(text)
        }
        for text in [
            Self.note(#""s":{"value":"x","val\u0075e":"y","type":"STRING"}"#),
            Self.note(#""s":{"type":"STRING","value":"x","typ\u0065":"STRING"}"#),
            #"{"recordName":"n1","recordN\u0061me":"n2","recordType":"Note"}"#,
            #"{"fields":{},"recordType":"Note","fi\u0065lds":{}}"#,
        ] {
            try Self.check(text, fast: false)
        }
    }

    /// Shapes the fast reader leaves to the generic path: rarer keys, duplicates, operations that fail.
    @Test func otherShapesAreDeclined() throws {
        for text in [
            #"{"recordName":"n1","recordType":"Note","zoneID":{"zoneName":"Notes"}}"#,
            #"{"recordName":"n1","recordType":"Note","parent":{"recordName":"p"}}"#,
            #"{"recordName":"n1","recordType":"Note","parent":null}"#,
            #"{"recordName":"n1","recordType":"Note","created":{}}"#,
            #"{"recordName":"n1","recordType":"Note","colour":"red"}"#,
            #"{"recordName":"n1","recordName":"n2","recordType":"Note"}"#,
            #"{"recordName":null,"recordType":"Note"}"#, #"{"recordName":5,"recordType":"Note"}"#,
            #"{"recordName":"n1","recordType":"Note","fields":null}"#,
            Self.note(#""a":{"value":1,"type":"INT64"},"a":{"value":2,"type":"INT64"}"#),
            Self.note(#""a":{"value":1,"type":"INT64","isEncrypted":true}"#),
            Self.note(#""a":{"value":1,"type":"INT64","extra":1}"#), Self.note(#""t":"bare""#),
            #"{"recordName":"x","fields":{}}"#, #"{}"#, "[1,2]", "", #"{"recordName":"n1","recordType":"Note"} x"#,
            #"{"operationType":"upsert","record":{"recordName":"u","recordType":"Note"}}"#,
            #"{"operationType":"update","record":{"recordType":"Note"}}"#,
            #"{"operationType":"delete","record":{"recordType":"Note"}}"#,
            #"{"operationType":"create","record":{"recordName":"n"}}"#,
            #"{"operationType":"create","record":{"recordName":"n","recordType":"Note"},"desiredKeys":[]}"#,
            #"{"operationType":"create"}"#, #"{"record":{"recordName":"n","recordType":"Note"}}"#,
        ] {
            try Self.check(text, fast: false)
        }
    }

    static func randomString(_ rng: inout SeededRNG) -> String {
        let pieces = ["a", "Z", "0", " ", #"\""#, #"\\"#, #"\n"#, #"\u0001"#, "é", "日", "😀", "/", ",", "{", "}"]
        return (0..<rng.below(6)).map { _ in pieces[rng.below(pieces.count)] }.joined()
    }

    static func randomField(_ rng: inout SeededRNG) -> String {
        let values = [#""s""#, "0", "-7", "12.5", "1e3", "true", "null", #"[]"#, #"["a","b"]"#, "[1,2]", "[0.5]",
                      #"{"recordName":"r"}"#, #""2024-01-01T00:00:00Z""#, "9223372036854775807", #""AAEC""#]
        let types = ["STRING", "INT64", "DOUBLE", "TIMESTAMP", "STRING_LIST", "INT64_LIST", "DOUBLE_LIST",
                     "TIMESTAMP_LIST", "BYTES", "REFERENCE", "UNKNOWN_LIST", "int64Type"]
        let v = values[rng.below(values.count)]
        switch rng.below(4) {
        case 0: return #"{"value":\#(v)}"#
        case 1: return #"{"type":"\#(types[rng.below(types.count)])","value":\#(v)}"#
        default: return #"{"value":\#(v),"type":"\#(types[rng.below(types.count)])"}"#
        }
    }

    static func randomLine(_ rng: inout SeededRNG) -> String {
        let fields = (0..<rng.below(6)).map { _ in #""f\#(randomString(&rng))":\#(randomField(&rng))"# }
        var keys = [#""recordName":"n\#(randomString(&rng))""#, #""recordType":"Note""#]
        if rng.below(3) == 0 { keys.append(#""recordChangeTag":"\#(rng.below(9))""#) }
        keys.append(#""fields":{\#(fields.joined(separator: ","))}"#)
        if rng.below(2) == 0 { keys.swapAt(0, rng.below(keys.count)); keys.swapAt(rng.below(keys.count), keys.count - 1) }
        let record = "{" + keys.joined(separator: ",") + "}"
        guard rng.below(3) == 0 else { return record }
        let t = RecordOperationType.allCases[rng.below(RecordOperationType.allCases.count)].rawValue
        return #"{"operationType":"\#(t)","record":\#(record)}"#
    }

    /// Random lines read the same on both paths (or are declined); random edits of them are either declined by the
    /// fast reader or read exactly as the generic path reads them.
    @Test func fuzzAgainstTheGenericPath() throws {
        var rng = SeededRNG(seed: 0xBA7C_4DEC_0DE2_0261)
        var seeds: [[UInt8]] = []
        for _ in 0..<400 {
            let text = Self.randomLine(&rng)
            let line = Array(text.utf8)
            seeds.append(line)
            let policy: SavePolicy? = rng.below(2) == 0 ? nil : .changedKeys
            guard let fast = RecordOperation.decode(batchLine: line[...], policy: policy) else { continue }
            guard let slow = try? Self.generic(line, policy: policy) else { Issue.record("only the fast reader took: \(text)"); continue }
            #expect(Self.same(fast, slow), "readers differ on: \(text)")
        }
        var accepted = 0
        for _ in 0..<3000 {
            let line = rng.mutated(seeds[rng.below(seeds.count)])
            let policy: SavePolicy? = rng.below(2) == 0 ? nil : .allKeys
            guard let fast = RecordOperation.decode(batchLine: line[...], policy: policy) else { continue }
            accepted += 1
            let text = String(decoding: line, as: UTF8.self)
            guard let slow = try? Self.generic(line, policy: policy) else { Issue.record("only the fast reader took: \(text)"); continue }
            #expect(Self.same(fast, slow), "readers differ on: \(text)")
        }
        #expect(accepted > 0)
    }
}
