import Foundation
import Testing

/// Shares survive the store's round trips (issue 25): `ck export --all-users` → `ck import --all-users` keeps a
/// share, its participants and their acceptance, the root's reference and short GUID (so the URL still resolves)
/// and the participants' shared databases; `ck schema export` writes `cloudkit.share` as .ckdb imports it back.
@Suite struct SharingFixturesTests {
    func json(_ r: Sandbox.Result) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
    }

    /// alice shares list-1 (with milk below it) titled Groceries: bob accepted read-only, carol is invited read-write.
    func shared() throws -> (Sandbox, url: String) {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Lists").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "List", "--name", "list-1", "title=Groceries").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "milk", "--parent", "list-1", "name=Milk").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1", "--title", "Groceries").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "bob").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "carol", "--permission", "readWrite").status == 0)
        let url = json(try s.ck("--as", "alice", "-z", "Lists", "share", "show", "list-1", "-o", "json"))["url"] as? String ?? ""
        #expect(url.hasPrefix("https://www.icloud.com/share/"))
        #expect(try s.ck("--as", "bob", "share", "accept", url).status == 0)
        return (s, url)
    }

    @Test func exportAndImportKeepTheShare() throws {
        let (s, url) = try shared()
        let first = try s.ck("export", "--all-users")
        #expect(first.status == 0, "\(first.stderr)")
        try s.write(first.stdout, to: "dev.json")
        let fresh = try Sandbox()
        let imported = try fresh.run(["--as", "alice", "import", "--all-users", s.dir + "/dev.json"])
        #expect(imported.status == 0, "\(imported.stderr)")

        let shown = try fresh.ck("--as", "alice", "-z", "Lists", "share", "show", "list-1", "-o", "plain")
        #expect(shown.stdout.contains("root\tlist-1\nurl\t\(url)\npublicPermission\tnone\ntitle\tGroceries\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("participant\talice owner readWrite accepted\nparticipant\tbob privateUser readOnly accepted\nparticipant\tcarol privateUser readWrite pending\n"), "\(shown.stdout)")
        let root = (json(try fresh.ck("--as", "alice", "-z", "Lists", "record", "fetch", "list-1", "-o", "json"))["records"] as? [[String: Any]])?.first
        #expect((root?["share"] as? [String: Any])?["recordName"] as? String == "share-list-1")
        #expect(root?["shortGUID"] as? String == String(url.dropFirst("https://www.icloud.com/share/".count)))

        // bob's shared database shows the zone again, with the shared records only; the URL still resolves.
        #expect(try fresh.ck("--as", "bob", "--db", "shared", "zone", "list", "-o", "name").stdout == "Lists\n")
        #expect(try fresh.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "list", "-o", "name").stdout == "list-1\nmilk\nshare-list-1\n")
        let resolved = json(try fresh.ck("--as", "bob", "share", "resolve", url, "-o", "json"))
        #expect(resolved["participantStatus"] as? String == "ACCEPTED")
        // carol's invitation is still pending, and she can accept it in the new store.
        #expect(try fresh.ck("--as", "carol", "share", "accept", url).status == 0)
        #expect(try fresh.ck("--as", "carol", "--db", "shared", "zone", "list", "-o", "name").stdout == "Lists\n")

        // The same records come back out (the share among them, its keys as they were).
        let again = try fresh.ck("export", "--all-users", "-o", "json")
        let records = { (doc: [String: Any]) in (doc["records"] as? [[String: Any]])?.compactMap { $0["record"] as? [String: Any] } ?? [] }
        let before = records(json(first)).first { $0["recordName"] as? String == "share-list-1" }
        let after = records(json(again)).first { $0["recordName"] as? String == "share-list-1" }
        #expect(before?["shortGUID"] as? String == after?["shortGUID"] as? String)
        #expect((before?["participants"] as? [[String: Any]])?.count == 3)
        #expect((after?["participants"] as? [[String: Any]])?.count == 3)
        #expect(((after?["fields"] as? [String: Any])?["cloudkit.title"] as? [String: Any])?["value"] as? String == "Groceries")
    }

    @Test func theSchemaOfSharesRoundTripsAsCkdb() throws {
        let (s, _) = try shared()
        let exported = try s.ck("schema", "export")
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.stdout.contains("    RECORD TYPE \"cloudkit.share\" (\n"), "\(exported.stdout)")
        #expect(exported.stdout.contains("        \"cloudkit.title\" STRING QUERYABLE SEARCHABLE SORTABLE,\n"), "\(exported.stdout)")
        let fresh = try Sandbox()
        let imported = try fresh.ck("schema", "import", "-", stdin: exported.stdout)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try fresh.ck("schema", "export").stdout == exported.stdout)
        #expect(try fresh.ck("-e", "development", "schema", "show", "cloudkit.share").stdout.contains("cloudkit.title"))
    }
}
