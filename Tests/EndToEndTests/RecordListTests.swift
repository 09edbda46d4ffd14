import Foundation
import Testing

/// `ck record list [TYPE]`: ck's own listing of a zone, which needs no `___recordID` index, while `ck query` keeps
/// CloudKit's rule (docs/cli.md, docs/query.md §4; issue 27).
@Suite struct RecordListTests {
    @Test func listsAZoneInAFreshStoreWhereAQueryNeedsAnIndex() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "n2", "title=Two").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=One", "priority=3").status == 0)
        #expect(try s.ck("record", "save", "Tag", "--name", "t1", "label=red").status == 0)

        // CloudKit's rule stays with `ck query`.
        let query = try s.ck("query", "Note")
        #expect(query.status == 8)
        #expect(query.stderr.contains("Type is not marked indexable"), "\(query.stderr)")
        #expect(query.stderr.contains("or list them without the index: ck record list Note (ck's own listing, not a CloudKit query)\n"), "\(query.stderr)")

        // By record name, in query's plain format: name, type, change tag, zone, fields.
        let plain = try s.ck("record", "list", "Note", "-o", "plain")
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.stdout == "n1\tNote\t2\t_defaultZone\tpriority=3\ttitle=One\nn2\tNote\t1\t_defaultZone\ttitle=Two\n")
        #expect(try s.ck("record", "list", "-o", "name").stdout == "n1\nn2\nt1\n")
        #expect(try s.ck("record", "list", "Tag", "--keys", "", "-o", "plain").stdout == "t1\tTag\t3\t_defaultZone\n")

        // -o json is a records response, as ck query's.
        let json = try s.ck("record", "list", "Note", "-o", "json", "--keys", "title")
        #expect(json.status == 0, "\(json.stderr)")
        let names = json.stdout.matches(of: /"recordName" : "(\w+)"|"recordName": "(\w+)"/).map { String($0.1 ?? $0.2 ?? "") }
        #expect(names == ["n1", "n2"], "\(json.stdout)")
        #expect(!json.stdout.contains("priority"), "--keys title leaves priority out: \(json.stdout)")
        #expect(!json.stdout.contains("continuationMarker"))

        // Once the index is there, the query of every Note prints the same document.
        #expect(try s.ck("schema", "index", "Note", "___recordID", "--queryable").status == 0)
        let queried = try s.ck("query", "Note", "--sort", "title", "-o", "json", "--keys", "title")
        #expect(queried.stdout == json.stdout)
    }

    @Test func pagesWithLimitAndAfter() throws {
        let s = try Sandbox()
        for n in ["a", "b", "c"] { #expect(try s.ck("record", "save", "Note", "--name", n, "v=1").status == 0) }
        let first = try s.ck("record", "list", "--limit", "2", "-o", "name")
        #expect(first.status == 0)
        #expect(first.stdout == "a\nb\n")
        #expect(first.stderr == "ck: more results: --after b\n")
        let rest = try s.ck("record", "list", "--limit", "2", "--after", "b", "-o", "name")
        #expect(rest.stdout == "c\n")
        #expect(rest.stderr == "")
        let json = try s.ck("record", "list", "--limit", "1", "-o", "json")
        #expect(json.stdout.contains("\"continuationMarker\" : \"a\"") || json.stdout.contains("\"continuationMarker\": \"a\""), "\(json.stdout)")
        #expect(try s.ck("record", "list", "--limit", "0").status == 64)
    }

    @Test func respectsZoneDatabaseAndUser() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Work").status == 0)
        #expect(try s.ck("-z", "Work", "record", "save", "Note", "--name", "w1", "title=Work").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "d1", "title=Default").status == 0)
        #expect(try s.ck("--db", "public", "record", "save", "Post", "--name", "p1", "title=Public").status == 0)

        #expect(try s.ck("record", "list", "-o", "name").stdout == "d1\n")
        #expect(try s.ck("-z", "Work", "record", "list", "-o", "name").stdout == "w1\n")
        #expect(try s.ck("--db", "public", "record", "list", "-o", "name").stdout == "p1\n")
        // Another user's private database holds none of the first user's records.
        let other = try s.ck("--as", "bob", "record", "list", "-o", "name")
        #expect(other.status == 0, "\(other.stderr)")
        #expect(other.stdout == "")
        // A zone that is not there is an error, not an empty list.
        let missing = try s.ck("-z", "Nope", "record", "list")
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("zoneNotFound"), "\(missing.stderr)")
        // A type with no records in this zone, but some in another, says where they are (as ck query does).
        let elsewhere = try s.ck("record", "list", "Note", "-z", "Work", "-o", "name")
        #expect(elsewhere.stdout == "w1\n")
        let empty = try s.ck("zone", "create", "Empty")
        #expect(empty.status == 0)
        let none = try s.ck("-z", "Empty", "record", "list", "Note", "-o", "name")
        #expect(none.status == 0 && none.stdout == "")
        #expect(none.stderr == "ck: zone Empty holds no Note records; zones Work, _defaultZone do: add -z Work, -z _defaultZone\n")
        let note = try s.ck("record", "list", "Note", "-z", "Work", "-o", "plain")
        #expect(note.stdout == "w1\tNote\t2\tWork\ttitle=Work\n")
    }
}
