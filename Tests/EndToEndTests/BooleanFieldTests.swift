import Foundation
import Testing

/// Booleans typed on the command line: CloudKit has no boolean schema type and a Bool is stored as INT64 0/1
/// (cloudkit.md §2.1), so `done=true` must be the integer 1, as
/// `--fields-json`'s `true` already is, and the query help's own `done == NO` must find `done=false`.
@Suite struct BooleanFieldTests {
    /// The type and value of a field as `ck record fetch -o json` prints them.
    func field(_ s: Sandbox, _ name: String, _ key: String) throws -> (type: String?, value: Any?) {
        let r = try s.ck("record", "fetch", name, "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let record = (json?["records"] as? [[String: Any]])?.first
        let f = (record?["fields"] as? [String: Any])?[key] as? [String: Any]
        return (f?["type"] as? String, f?["value"])
    }

    @Test func trueFalseYesNoSaveAsInt64AndQueryAsCloudKitBooleans() throws {
        let s = try Sandbox()
        // The first save fixes `done` in the schema, so the later ones go through the declared INT64 type.
        #expect(try s.ck("record", "save", "Note", "--name", "a", "title=Shopping", "done=false").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "b", "title=Shop shoes", "done=true").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "c", "title=Shop food", "done=NO").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "d", "title=Shop gifts", "done=YES").status == 0)
        let a = try field(s, "a", "done")
        #expect(a.type == "INT64" && a.value as? Int == 0)
        let b = try field(s, "b", "done")
        #expect(b.type == "INT64" && b.value as? Int == 1)
        #expect(try field(s, "c", "done").value as? Int == 0)
        #expect(try field(s, "d", "done").value as? Int == 1)
        // The example of `ck query --help`, without its --sort (which needs a sortable index).
        let q = try s.ck("query", "Note", "title BEGINSWITH 'Shop' AND done == NO", "-o", "name")
        #expect(q.status == 0, "\(q.stderr)")
        #expect(q.stdout.split(separator: "\n").sorted() == ["a", "c"])
        let yes = try s.ck("query", "Note", "done == YES", "-o", "name")
        #expect(yes.stdout.split(separator: "\n").sorted() == ["b", "d"])
    }

    @Test func anExplicitStringTypeKeepsTheWord() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Poll", "--name", "p", "answer:string=yes", "flag:string=true").status == 0)
        let answer = try field(s, "p", "answer")
        #expect(answer.type == "STRING" && answer.value as? String == "yes")
        #expect(try field(s, "p", "flag").value as? String == "true")
        // A field the schema already declares as STRING keeps later words as strings too.
        #expect(try s.ck("record", "save", "Poll", "--name", "q", "answer=no").status == 0)
        let q = try field(s, "q", "answer")
        #expect(q.type == "STRING" && q.value as? String == "no")
        // Other words stay strings, as before.
        #expect(try s.ck("record", "save", "Poll", "--name", "r", "word=truthy").status == 0)
        #expect(try field(s, "r", "word").type == "STRING")
    }

    @Test func kvSetTypesBooleansAndRefusesAKeyWithAType() throws {
        let s = try Sandbox()
        let set = try s.ck("kv", "set", "darkMode", "true", "-o", "plain")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "darkMode\tbool\t1\n")
        let no = try s.ck("kv", "set", "sounds", "NO", "-o", "json")
        #expect(no.stdout.contains("\"type\":\"bool\"") || no.stdout.contains("\"type\": \"bool\""), "\(no.stdout)")
        #expect(no.stdout.contains("\"value\":false") || no.stdout.contains("\"value\": false"), "\(no.stdout)")
        #expect(try s.ck("kv", "set", "word", "true", "--type", "string", "-o", "plain").stdout == "word\tstring\t4\n")
        // `key:type` is record-save syntax: refused with the command to write, and nothing is stored.
        let typed = try s.ck("kv", "set", "enabled:bool", "true")
        #expect(typed.status == 64)
        #expect(typed.stderr.contains("ck kv set enabled true --type bool"), "\(typed.stderr)")
        let joined = try s.ck("kv", "set", "enabled:bool=true")
        #expect(joined.status == 64)
        #expect(joined.stderr.contains("ck kv set enabled true --type bool"), "\(joined.stderr)")
        let eq = try s.ck("kv", "set", "enabled=true")
        #expect(eq.status == 64)
        #expect(eq.stderr.contains("ck kv set enabled true"), "\(eq.stderr)")
        #expect(try s.ck("kv", "list", "-o", "plain").stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] }.sorted()
                == ["darkMode", "sounds", "word"])
        // With --type given, such a key is taken as written.
        #expect(try s.ck("kv", "set", "a:string", "x", "--type", "string").status == 0)
        #expect(try s.ck("kv", "get", "a:string", "-o", "plain").stdout.contains("x"))
    }
}
