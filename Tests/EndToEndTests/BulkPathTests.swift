import Foundation
import Testing

/// The bulk path's shortcuts (issue 29) keep a batch's meaning: a request's existing names are looked up once
/// (so a name saved by an earlier request of the same batch exists for a later one), a record known to be new
/// writes its references without clearing old ones, and output nobody can read is not rendered.
@Suite struct BulkPathTests {
    func note(_ name: String, _ fields: String) -> String {
        #"{"recordName":"\#(name)","recordType":"Note","fields":{\#(fields)}}"#
    }

    func force(_ name: String, _ fields: String) -> String {
        #"{"operationType":"forceUpdate","record":{"recordName":"\#(name)","recordType":"Note","fields":{\#(fields)}}}"#
    }

    func ref(_ target: String) -> String {
        #"{"value":{"recordName":"\#(target)","action":"DELETE_SELF"},"type":"REFERENCE"}"#
    }

    /// The `title` of a record, from `record fetch -o json`.
    func title(_ s: Sandbox, _ name: String) throws -> String? {
        let r = try s.ck("record", "fetch", name, "-o", "json")
        guard r.status == 0 else { return nil }
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let records = try #require(doc["records"] as? [[String: Any]])
        let fields = try #require(records.first?["fields"] as? [String: Any])
        return (fields["title"] as? [String: Any])?["value"] as? String
    }

    @Test func aRequestMixingNewExistingAndRepeatedNamesFailsEachAsBefore() throws {
        let s = try Sandbox()
        for name in ["old-1", "old-2"] {
            let r = try s.ck("record", "save", "Note", "--name", name, "title=before")
            #expect(r.status == 0, "\(r.stderr)")
        }
        // One request (the default zone applies each operation on its own): a new record, an overwrite of an
        // existing one, a create of an existing one, the new name again, and another new record.
        let lines = [note("n1", #""title":{"value":"first","type":"STRING"}"#),
                     force("old-1", #""title":{"value":"after","type":"STRING"}"#),
                     note("old-2", #""title":{"value":"after","type":"STRING"}"#),
                     note("n1", #""title":{"value":"second","type":"STRING"}"#),
                     note("n2", #""title":{"value":"two","type":"STRING"}"#)]
        try s.write(lines.joined(separator: "\n") + "\n", to: "mixed.jsonl")
        let r = try s.ck("record", "save", "--batch", "mixed.jsonl", "-q")
        #expect(r.status == 10, "\(r.stderr)")
        #expect(r.stderr.contains("'n1' appears twice"), "\(r.stderr)")
        #expect(r.stderr.contains("record to insert already exists"), "\(r.stderr)")
        #expect(try title(s, "n1") == "first")
        #expect(try title(s, "n2") == "two")
        #expect(try title(s, "old-1") == "after")
        #expect(try title(s, "old-2") == "before")
    }

    @Test func aNameSavedByAnEarlierRequestOfTheBatchExistsForALaterOne() throws {
        let s = try Sandbox()
        // 250 lines are two requests (200 and 50); line 230 creates r10 again, which the first request saved.
        var lines = (1...250).map { note("r\($0)", #""title":{"value":"v\#($0)","type":"STRING"}"#) }
        lines[229] = note("r10", #""title":{"value":"again","type":"STRING"}"#)
        try s.write(lines.joined(separator: "\n") + "\n", to: "two.jsonl")
        let r = try s.ck("record", "save", "--batch", "two.jsonl", "-q")
        // One operation of 250 failed: a partial failure (exit 10), its reason the record's existence.
        #expect(r.status == 10, "\(r.stderr)")
        #expect(r.stderr.contains("record to insert already exists"), "\(r.stderr)")
        #expect(try title(s, "r10") == "v10")
        #expect(try title(s, "r250") == "v250")
        #expect(try title(s, "r230") == nil)
    }

    @Test func referencesOfNewAndUpdatedRecordsAreThoseOfTheirLastSave() throws {
        let s = try Sandbox()
        for name in ["p1", "p2", "p3"] {
            #expect(try s.ck("record", "save", "Note", "--name", name, "title=parent").status == 0)
        }
        #expect(try s.ck("record", "save", "Note", "--name", "child", "owner:reference:deleteSelf=p1").status == 0)
        // The child moves from p1 to p2; a new record points at p3.
        let lines = [force("child", #""owner":\#(ref("p2"))"#), note("fresh", #""owner":\#(ref("p3"))"#)]
        try s.write(lines.joined(separator: "\n") + "\n", to: "refs.jsonl")
        let r = try s.ck("record", "save", "--batch", "refs.jsonl", "-q")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try s.ck("record", "delete", "p1").status == 0)
        #expect(try s.ck("record", "fetch", "child").status == 0, "p1 no longer owns the child")
        #expect(try s.ck("record", "delete", "p2").status == 0)
        #expect(try s.ck("record", "fetch", "child").status == 3, "p2 owns the child now")
        #expect(try s.ck("record", "delete", "p3").status == 0)
        #expect(try s.ck("record", "fetch", "fresh").status == 3, "p3 owns the new record")
    }

    /// With stdout on /dev/null, the saved records are not printed (`write` to descriptor 1 is never called);
    /// the same batch into a pipe prints one line per record.
    @Test(RequiredTool.needed("strace")) func aBatchWhoseOutputGoesToDevNullWritesNothingThere() throws {
        let strace = try RequiredTool.require("strace")
        let s = try Sandbox()
        try s.write((1...300).map { note("r\($0)", #""title":{"value":"t","type":"STRING"}"#) }.joined(separator: "\n") + "\n",
                    to: "many.jsonl")
        let trace = s.dir + "/trace.txt"
        let command = [strace, "-f", "-qq", "-y", "-o", trace, "-e", "trace=write,writev", "--", Sandbox.binary,
                       "record", "save", "--batch", "many.jsonl", "-q"].map { "'" + $0 + "'" }.joined(separator: " ")
        let r = try s.run(["-c", command + " >/dev/null"], program: "/bin/sh")
        #expect(r.status == 0, "\(r.stderr)")
        let writes = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("(1</dev/null>") }
        #expect(writes.isEmpty, "\(writes.count) writes to /dev/null:\n\(writes.prefix(3).joined(separator: "\n"))")
        #expect(try title(s, "r300") == "t")
        // Into a pipe, every record is printed.
        let again = try s.ck("record", "save", "--batch", "many.jsonl", "-q", "--policy", "changed-keys")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout.split(separator: "\n").count == 300, "\(again.stdout.prefix(300))")
    }

    /// A save checks only values holding a reference or an asset beyond their type; a VALIDATE reference inside a
    /// list is one, and still needs its target, in a request whose other records hold only plain values.
    @Test func aListsValidateReferenceStillNeedsItsTarget() throws {
        let s = try Sandbox()
        let lines = [note("a", #""title":{"value":"x","type":"STRING"}"#),
                     note("b", #""title":{"value":"y","type":"STRING"},"rs":{"value":[{"recordName":"a","action":"VALIDATE"},{"recordName":"ghost","action":"VALIDATE"}],"type":"REFERENCE_LIST"}"#),
                     note("c", #""title":{"value":"z","type":"STRING"},"rs":{"value":[{"recordName":"a","action":"VALIDATE"}],"type":"REFERENCE_LIST"}"#)]
        try s.write(lines.joined(separator: "\n") + "\n", to: "refs.jsonl")
        let r = try s.ck("record", "save", "--batch", "refs.jsonl", "-q")
        #expect(r.status == 10, "\(r.stderr)")
        #expect(r.stderr.contains("  b: referenceViolation (31): field 'rs': the VALIDATE reference's target 'ghost' does not exist"), "\(r.stderr)")
        #expect(try s.ck("record", "list", "-o", "name").stdout == "a\nc\n")
    }
}
