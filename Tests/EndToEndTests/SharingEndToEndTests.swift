import Foundation
import Testing

/// CKShare through `ck share` and the shared database, two (or three) users in one store (issue 25,
/// docs/sharing.md). Expected values come from CloudKit's sharing rules (sharing.md).
@Suite struct SharingEndToEndTests {
    /// alice's list: a root and two items below it by parent, and one record outside the hierarchy.
    func groceries(_ s: Sandbox) throws {
        #expect(try s.ck("--as", "alice", "zone", "create", "Lists").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "List", "--name", "list-1", "title=Groceries").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "milk", "--parent", "list-1", "name=Milk").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "eggs", "--parent", "list-1", "name=Eggs").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Note", "--name", "diary", "text=private").status == 0)
    }

    func url(_ s: Sandbox, _ args: String...) throws -> String {
        let shown = try s.run(args + ["-o", "json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any]
        return json?["url"] as? String ?? ""
    }

    func names(_ r: Sandbox.Result) -> [String] { r.stdout.split(separator: "\n").map(String.init).sorted() }

    func json(_ r: Sandbox.Result) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any] ?? [:]
    }

    @Test func aReadOnlyListBecomesWritable() throws {
        let s = try Sandbox()
        try groceries(s)
        let created = try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1", "--title", "Groceries", "-o", "plain")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("root\tlist-1\n"))
        #expect(created.stdout.contains("participant\talice owner readWrite accepted\n"))
        // The root points at its share, with the share's short GUID.
        let fetched = try s.ck("--as", "alice", "-z", "Lists", "record", "fetch", "list-1", "-o", "json")
        let root = (json(fetched)["records"] as? [[String: Any]])?.first ?? [:]
        #expect((root["share"] as? [String: Any])?["recordName"] as? String == "share-list-1", "\(fetched.stdout)")
        let link = try url(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")
        #expect(link.hasPrefix("https://www.icloud.com/share/0"), "\(link)")
        let guid = String(link.dropFirst("https://www.icloud.com/share/".count))
        #expect(root["shortGUID"] as? String == guid, "\(fetched.stdout)")

        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "bob").status == 0)
        // While bob's invitation is pending, carol (not invited) may be an invitee under another identity.
        let unverified = try s.ck("--as", "carol", "share", "resolve", link)
        #expect(unverified.status == 7, "\(unverified.stderr)")
        #expect(unverified.stderr.contains("participantMayNeedVerification (33)"), "\(unverified.stderr)")
        // Before accepting, bob's shared database is empty.
        #expect(try s.ck("--as", "bob", "--db", "shared", "zone", "list", "-o", "name").stdout == "")
        let resolved = try s.ck("--as", "bob", "share", "resolve", link, "-o", "plain")
        #expect(resolved.status == 0, "\(resolved.stderr)")
        #expect(resolved.stdout.contains("role\tprivateUser\npermission\treadOnly\nstatus\tpending\n"), "\(resolved.stdout)")
        let accepted = try s.ck("--as", "bob", "share", "accept", link, "-o", "json")
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let result = json(accepted)
        #expect(result["databaseScope"] as? String == "SHARED", "\(accepted.stdout)")
        #expect(result["participantStatus"] as? String == "ACCEPTED")
        #expect(result["participantPermission"] as? String == "READ_ONLY")
        #expect(result["participantType"] as? String == "USER")
        #expect(result["rootRecordName"] as? String == "list-1")
        #expect((result["share"] as? [String: Any])?["publicPermission"] as? String == "NONE")

        // bob sees alice's zone, with her as owner, holding only the shared records.
        let zones = try s.ck("--as", "bob", "--db", "shared", "zone", "list", "-o", "plain")
        #expect(zones.stdout.hasPrefix("Lists\t_"), "\(zones.stdout)")
        let listed = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "list", "-o", "name")
        #expect(names(listed) == ["eggs", "list-1", "milk", "share-list-1"], "\(listed.stdout) \(listed.stderr)")
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "fetch", "milk").stdout.contains("name=Milk"))
        // readOnly: no writes.
        let write = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Item", "--name", "milk", "name=Oat milk",
                             "--policy", "changed-keys")
        #expect(write.status == 7, "\(write.stderr)")
        #expect(write.stderr.contains("permissionFailure (10)"))
        #expect(write.stderr.contains("readOnly"))

        // alice upgrades bob; he adds an item under the root and edits one.
        let upgraded = try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "bob", "--permission", "readWrite", "-o", "plain")
        #expect(upgraded.stdout.contains("participant\tbob privateUser readWrite accepted\n"), "\(upgraded.stdout)")
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Item", "--name", "bread", "--parent", "list-1",
                         "name=Bread").status == 0)
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Item", "--name", "milk", "name=Oat milk",
                         "--policy", "changed-keys").status == 0)
        // Records below a record bob added are shared too; a record with no shared parent is refused.
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Note", "--name", "bread-note", "--parent", "bread",
                         "text=wholemeal").status == 0)
        let loose = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Item", "--name", "loose", "name=Loose")
        #expect(loose.status == 7)
        #expect(loose.stderr.contains("no parent in a shared hierarchy"), "\(loose.stderr)")
        // Only the owner deletes the root.
        let rootDelete = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "delete", "list-1", "-y")
        #expect(rootDelete.status == 7, "\(rootDelete.stderr)")
        // alice sees bob's writes in her own zone, stamped by bob.
        let mine = try s.ck("--as", "alice", "-z", "Lists", "record", "fetch", "milk", "bread", "-o", "plain")
        #expect(mine.stdout.contains("name=Oat milk"))
        #expect(mine.stdout.contains("name=Bread"))

        // carol, not invited, is refused; she can't read by guessing either.
        let carol = try s.ck("--as", "carol", "share", "accept", link)
        #expect(carol.status == 7, "\(carol.stderr)")
        #expect(carol.stderr.contains("permissionFailure (10)"), "\(carol.stderr)")
        #expect(try s.ck("--as", "carol", "--db", "shared", "-z", "Lists", "record", "fetch", "milk").status == 3)
    }

    @Test func theSharedDatabaseHidesEverythingOutsideTheShare() throws {
        let s = try Sandbox()
        try groceries(s)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "bob", "--permission", "readWrite").status == 0)
        let link = try url(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)

        // A guessed record name outside the share is not there: no content, no refusal that says it exists.
        let fetch = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "fetch", "diary")
        #expect(fetch.status == 3, "\(fetch.stderr)")
        #expect(!fetch.stdout.contains("private") && !fetch.stderr.contains("private"))
        let update = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Note", "--name", "diary", "text=mine",
                              "--policy", "changed-keys")
        #expect(update.status == 3, "\(update.stderr)")
        let create = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Note", "--name", "diary", "--parent", "list-1",
                              "text=mine")
        #expect(create.status == 7, "\(create.stderr)")
        #expect(!create.stderr.contains("private"), "a refused create shows nothing of the record: \(create.stderr)")
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "fetch", "diary", "-o", "plain").stdout.contains("text=private"))
        // The change feed leaves the private record out.
        let changes = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "changes", "zone", "-o", "plain")
        #expect(changes.status == 0, "\(changes.stderr)")
        #expect(!changes.stdout.contains("diary"), "\(changes.stdout)")
        #expect(changes.stdout.contains("milk"))
        // A guessed zone name, and a guessed URL.
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Secrets", "record", "list").status == 3)
        #expect(try s.ck("--as", "bob", "share", "accept", "https://www.icloud.com/share/0AAAAAAAAAAAAAAAAAAAAAAAA").status == 3)
        #expect(try s.ck("--as", "bob", "share", "accept", "not a url").status == 8)
        // bob's own private zones are not in the shared database, nor alice's unshared ones.
        #expect(try s.ck("--as", "alice", "zone", "create", "Hidden").status == 0)
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Hidden", "record", "list").status == 3)

        // Removed: the old change token leads nowhere, the zone is gone.
        let token = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "changes", "zone", "-o", "json")
        let syncToken = (try JSONSerialization.jsonObject(with: Data(token.stdout.utf8)) as? [String: Any])?["syncToken"] as? String ?? ""
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "remove", "list-1", "bob").status == 0)
        let after = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "changes", "zone", "--since", syncToken)
        #expect(after.status == 3, "\(after.stderr)")
        #expect(after.stderr.contains("zoneNotFound"), "\(after.stderr)")
    }

    @Test func aPublicShareIsJoinedByURL() throws {
        let s = try Sandbox()
        try groceries(s)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1", "--public-permission", "readOnly").status == 0)
        let link = try url(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")
        let joined = try s.ck("--as", "dave", "share", "accept", link, "-o", "plain")
        #expect(joined.status == 0, "\(joined.stderr)")
        #expect(joined.stdout.contains("role\tpublicUser\npermission\treadOnly\nstatus\taccepted\n"), "\(joined.stdout)")
        #expect(names(try s.ck("--as", "dave", "--db", "shared", "-z", "Lists", "record", "list", "-o", "name")).contains("milk"))
        // Invitations don't mix with a public share.
        let invite = try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "bob")
        #expect(invite.status == 8, "\(invite.stderr)")
        #expect(invite.stderr.contains("participants are added only while it is none"), "\(invite.stderr)")
        // Back to none: every public participant goes.
        let closed = try s.ck("--as", "alice", "-z", "Lists", "share", "update", "list-1", "--public-permission", "none", "-o", "plain")
        #expect(closed.status == 0, "\(closed.stderr)")
        #expect(!closed.stdout.contains("dave"), "\(closed.stdout)")
        #expect(try s.ck("--as", "dave", "--db", "shared", "-z", "Lists", "record", "list").status == 3)
    }

    @Test func aZoneWideShare() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Album", "--zone-wide-sharing").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Album", "record", "save", "Photo", "--name", "p1", "caption=Beach").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Album", "record", "save", "Photo", "--name", "p2", "caption=Hills").status == 0)
        let created = try s.ck("--as", "alice", "-z", "Album", "share", "create", "-o", "plain")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("share\tcloudkit.zoneshare\n"), "\(created.stdout)")
        #expect(try s.ck("--as", "alice", "-z", "Album", "share", "invite", "cloudkit.zoneshare", "bob", "--permission", "readWrite").status == 0)
        let link = try url(s, "--as", "alice", "-z", "Album", "share", "show", "cloudkit.zoneshare")
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)
        // Every record of the zone, and bob may add records with no parent.
        #expect(names(try s.ck("--as", "bob", "--db", "shared", "-z", "Album", "record", "list", "-o", "name")) == ["cloudkit.zoneshare", "p1", "p2"])
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Album", "record", "save", "Photo", "--name", "p3", "caption=Mine").status == 0)
        // A zone shared whole takes no hierarchy share, and a zone without the capability no zone share.
        let nested = try s.ck("--as", "alice", "-z", "Album", "share", "create", "p1")
        #expect(nested.status == 4, "\(nested.stderr)")
        #expect(nested.stderr.contains("alreadyShared (30)"), "\(nested.stderr)")
        #expect(try s.ck("--as", "alice", "zone", "create", "Plain").status == 0)
        let plain = try s.ck("--as", "alice", "-z", "Plain", "share", "create")
        #expect(plain.status == 8)
        #expect(plain.stderr.contains("zoneWideSharing"), "\(plain.stderr)")
    }

    @Test func aRecordTakesPartInOneShareOnly() throws {
        let s = try Sandbox()
        try groceries(s)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "yolk", "--parent", "eggs", "name=Yolk").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "eggs").status == 0)
        // An ancestor of a shared root, and a descendant of it.
        for root in ["list-1", "yolk"] {
            let again = try s.ck("--as", "alice", "-z", "Lists", "share", "create", root)
            #expect(again.status == 4, "\(root): \(again.stderr)")
            #expect(again.stderr.contains("alreadyShared (30)"), "\(root): \(again.stderr)")
        }
        // The same root again.
        let same = try s.ck("--as", "alice", "-z", "Lists", "share", "create", "eggs", "--name", "second")
        #expect(same.stderr.contains("alreadyShared (30)"), "\(same.stderr)")
        // Nothing half-saved: list-1 has no share reference, and only one share exists.
        #expect(!(try s.ck("--as", "alice", "-z", "Lists", "record", "fetch", "list-1", "-o", "json").stdout.contains("\"share\"")))
        #expect(names(try s.ck("--as", "alice", "share", "list", "-o", "name")) == ["share-eggs"])
        // Where shares may not live.
        let publicShare = try s.ck("--as", "alice", "--db", "public", "share", "create", "x")
        #expect(publicShare.status != 0)
        #expect(try s.ck("--as", "alice", "record", "save", "List", "--name", "def", "t=1").status == 0)
        let defaultZone = try s.ck("--as", "alice", "share", "create", "def")
        #expect(defaultZone.stderr.contains("badDatabase (24)"), "\(defaultZone.stderr)")
        let sharedZone = try s.ck("--as", "alice", "--db", "shared", "zone", "create", "Mine")
        #expect(sharedZone.stderr.contains("badDatabase (24)"), "\(sharedZone.stderr)")
        // Bad input names the value.
        let missing = try s.ck("--as", "alice", "-z", "Lists", "share", "create", "nope")
        #expect(missing.status == 3)
        #expect(missing.stderr.contains("'nope'"))
        let badPermission = try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "eggs", "bob", "--permission", "readwrite")
        #expect(badPermission.status == 64, "\(badPermission.stderr)")
        #expect(badPermission.stderr.contains("readwrite"))
    }

    @Test func theOwnerDeletingTheRootEndsTheShareOnTheParticipantsDevice() throws {
        let s = try Sandbox()
        try groceries(s)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "bob").status == 0)
        let link = try url(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)
        let first = try s.ck("--as", "bob", "--db", "shared", "sync", "phone", "-o", "plain")
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("pulled\tLists\t4\t0"), "\(first.stdout)")
        #expect(try s.ck("--as", "bob", "--db", "shared", "device", "records", "phone", "-o", "plain").stdout.contains("milk"))

        // Deleting the root deletes its share too.
        let deleted = try s.ck("--as", "alice", "-z", "Lists", "record", "delete", "list-1", "-y", "-o", "plain")
        #expect(deleted.stdout.contains("share-list-1\tcloudkit.share\tdeleted"), "\(deleted.stdout)")
        let database = try s.ck("--as", "bob", "--db", "shared", "changes", "database", "-o", "plain")
        #expect(database.stdout.contains("deleted\tLists"), "\(database.stdout)")
        let next = try s.ck("--as", "bob", "--db", "shared", "sync", "phone", "-o", "plain")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stdout.contains("zoneDeleted"), "\(next.stdout)")
        #expect(try s.ck("--as", "bob", "--db", "shared", "device", "records", "phone", "-o", "plain").stdout == "")
    }

    @Test func theOwnerDeletingTheZoneTakesItFromTheParticipant() throws {
        let s = try Sandbox()
        try groceries(s)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1", "--public-permission", "readOnly").status == 0)
        let link = try url(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)
        #expect(try s.ck("--as", "bob", "--db", "shared", "sync", "tablet").status == 0)
        let token = json(try s.ck("--as", "bob", "--db", "shared", "changes", "database", "-o", "json"))["syncToken"] as? String ?? ""
        #expect(try s.ck("--as", "alice", "zone", "delete", "Lists", "-y").status == 0)
        // carol never took part: nothing of alice's zone reaches her feed.
        #expect(!(try s.ck("--as", "carol", "--db", "shared", "changes", "database", "-o", "plain").stdout.contains("Lists")))
        let changes = try s.ck("--as", "bob", "--db", "shared", "changes", "database", "--since", token, "-o", "plain")
        #expect(changes.stdout.contains("deleted\tLists"), "\(changes.stdout)")
        let synced = try s.ck("--as", "bob", "--db", "shared", "sync", "tablet", "-o", "plain")
        #expect(synced.stdout.contains("zoneDeleted"), "\(synced.stdout)")
        #expect(try s.ck("--as", "bob", "--db", "shared", "device", "records", "tablet", "-o", "plain").stdout == "")
    }

    @Test func sharesSurviveAnExportAndImportAndTheSchemaNamesTheShareType() throws {
        let s = try Sandbox()
        try groceries(s)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1", "--title", "Groceries").status == 0)
        let schema = try s.ck("schema", "export")
        #expect(schema.stdout.contains("RECORD TYPE \"cloudkit.share\" ("), "\(schema.stdout)")
        #expect(schema.stdout.contains("\"cloudkit.title\" STRING"), "\(schema.stdout)")
        try s.write(schema.stdout, to: "schema.ckdb")
        let fresh = try Sandbox()
        let imported = try fresh.run(["schema", "import", s.dir + "/schema.ckdb"])
        #expect(imported.status == 0, "\(imported.stderr)")
    }

    @Test func anAdministratorManagesParticipantsButNothingElse() throws {
        let s = try Sandbox()
        try groceries(s)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "bob", "--administrator").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "erin").status == 0)
        let link = try url(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")
        // Not before accepting.
        let early = try s.ck("--as", "bob", "share", "invite", link, "carol")
        #expect(early.status == 7, "\(early.stderr)")
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)
        let invited = try s.ck("--as", "bob", "share", "invite", link, "carol", "--permission", "readWrite", "-o", "plain")
        #expect(invited.status == 0, "\(invited.stderr)")
        #expect(invited.stdout.contains("participant\tcarol privateUser readWrite pending\n"), "\(invited.stdout)")
        #expect(try s.ck("--as", "bob", "share", "remove", link, "erin").status == 0)
        let shown = try s.ck("--as", "alice", "-z", "Lists", "share", "show", "list-1", "-o", "plain")
        #expect(!shown.stdout.contains("erin"), "\(shown.stdout)")
        #expect(shown.stdout.contains("participant\tbob administrator readOnly accepted\n"), "\(shown.stdout)")
        // The public permission and the title stay the owner's; a plain participant changes nothing.
        let publicly = try s.ck("--as", "bob", "share", "update", link, "--public-permission", "readWrite")
        #expect(publicly.status == 7, "\(publicly.stderr)")
        #expect(try s.ck("--as", "carol", "share", "accept", link).status == 0)
        let carol = try s.ck("--as", "carol", "share", "invite", link, "dave")
        #expect(carol.status == 7, "\(carol.stderr)")
    }

    @Test func aParticipantsWritesCountAgainstTheOwnersQuota() throws {
        let s = try Sandbox()
        try groceries(s)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1", "--public-permission", "readWrite").status == 0)
        let link = try url(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)
        // alice's storage is nearly full; bob's is empty and unlimited.
        #expect(try s.ck("quota", "set", "2000", "--as", "alice").status == 0)
        let big = String(repeating: "x", count: 3000)
        let refused = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Item", "--name", "big", "--parent", "list-1",
                               "name=\(big)")
        #expect(refused.status == 6, "\(refused.stderr)")
        #expect(refused.stderr.contains("quotaExceeded"), "\(refused.stderr)")
        #expect(refused.stderr.contains("user alice"), "the owner's storage is named: \(refused.stderr)")
        #expect(try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Item", "--name", "small", "--parent", "list-1",
                         "name=Tea").status == 0)
    }

    @Test func aParticipantLeavesAndTheShareStaysForTheOthers() throws {
        let s = try Sandbox()
        try groceries(s)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1").status == 0)
        for user in ["bob", "erin"] { #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", user).status == 0) }
        let link = try url(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1")
        for user in ["bob", "erin"] { #expect(try s.ck("--as", user, "share", "accept", link).status == 0) }
        let left = try s.ck("--as", "bob", "share", "leave", link)
        #expect(left.status == 0, "\(left.stderr)")
        #expect(try s.ck("--as", "bob", "--db", "shared", "zone", "list", "-o", "name").stdout == "")
        #expect(try s.ck("--as", "erin", "--db", "shared", "zone", "list", "-o", "name").stdout == "Lists\n")
        let shown = try s.ck("--as", "alice", "-z", "Lists", "share", "show", "list-1", "-o", "plain")
        #expect(shown.stdout.contains("participant\tbob privateUser readOnly removed\n"), "\(shown.stdout)")
        #expect(shown.stdout.contains("participant\terin privateUser readOnly accepted\n"), "\(shown.stdout)")
        // Leaving needs an accepted share; the owner stops sharing instead.
        #expect(try s.ck("--as", "bob", "share", "leave", link).status == 3)
        #expect(try s.ck("--as", "alice", "share", "leave", link).status == 8)
        // The owner deletes the share: erin's zone goes, the root loses its reference but keeps its URL.
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "delete", "list-1").status == 0)
        #expect(try s.ck("--as", "erin", "--db", "shared", "zone", "list", "-o", "name").stdout == "")
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1").status == 0)
        #expect(try url(s, "--as", "alice", "-z", "Lists", "share", "show", "list-1") == link)
    }
}
