import Foundation
import Testing

/// Users, account status and the public database's grants, met through the binary as an app's users meet them.
@Suite struct PermissionsEndToEndTests {
    static let grantsSchema = """
        DEFINE SCHEMA

            CREATE ROLE Critic;

            RECORD TYPE Restaurant (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE QUERYABLE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                name            STRING QUERYABLE SEARCHABLE SORTABLE,
                GRANT WRITE TO "_creator",
                GRANT WRITE TO "_icloud",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );

            RECORD TYPE Review (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                stars           INT64 QUERYABLE SORTABLE,
                GRANT CREATE, WRITE TO Critic,
                GRANT READ TO "_world"
            );

            RECORD TYPE Notice (
                "___createTime" TIMESTAMP,
                "___createdBy"  REFERENCE,
                "___etag"       STRING,
                "___modTime"    TIMESTAMP,
                "___modifiedBy" REFERENCE,
                "___recordID"   REFERENCE QUERYABLE,
                text            STRING QUERYABLE,
                GRANT READ TO "_world"
            );

        """

    func publicDB(_ s: Sandbox, _ args: String...) throws -> Sandbox.Result { try s.run(["--db", "public"] + args) }

    func userRecordName(_ s: Sandbox, _ user: String) throws -> String {
        // As docs/store.md derives it, by sha256sum rather than ck: showing a user the container never met is not found.
        let r = try s.run(["-c", "printf 'ck-user:%s' \"$1\" | sha256sum | cut -c1-32", "sh", user], program: "/bin/sh")
        try #require(r.status == 0 && r.stdout.count == 33, "\(r.stderr)")
        return "_" + r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theRestaurantFlow() throws {
        let s = try Sandbox()
        // alice shares a restaurant: a type made just in time gets CloudKit's default grants.
        let saved = try publicDB(s, "--as", "alice", "record", "save", "Restaurant", "--name", "r1", "name=Pizza Roma")
        #expect(saved.status == 0, "\(saved.stderr)")
        // Anyone reads it, signed in or not.
        let anon = try publicDB(s, "--anonymous", "record", "fetch", "r1")
        #expect(anon.status == 0 && anon.stdout.hasPrefix("r1\tRestaurant\t"), "\(anon.stderr)")
        #expect(try publicDB(s, "--anonymous", "query", "Restaurant", "name BEGINSWITH 'Pizza'").stdout.hasPrefix("r1\t"))
        // Nobody signed in creates nothing.
        let anonSave = try publicDB(s, "--anonymous", "record", "save", "Restaurant", "--name", "r9", "name=x")
        #expect(anonSave.status == 7 && anonSave.stderr.hasPrefix("ck: notAuthenticated (9): no iCloud user is signed in"), "\(anonSave.stderr)")
        // bob may create his own, but neither update nor delete alice's (WRITE is the creator's).
        #expect(try publicDB(s, "--as", "bob", "record", "save", "Restaurant", "--name", "r2", "name=Bob's Diner").status == 0)
        let update = try publicDB(s, "--as", "bob", "record", "save", "Restaurant", "--name", "r1", "--policy", "changed-keys", "name=Hijacked")
        #expect(update.status == 7, "\(update.stdout)\(update.stderr)")
        #expect(update.stderr == """
            ck: permissionFailure (10): WRITE operation not permitted
              record type Restaurant grants WRITE to _creator; user bob holds _world, _icloud
            hint: grant it in the schema (GRANT WRITE TO "_icloud" in RECORD TYPE Restaurant, then 'ck schema import'), or assign a role that has it ('ck role assign <role> <user>')

            """)
        let delete = try publicDB(s, "--as", "bob", "record", "delete", "r1")
        #expect(delete.status == 7 && delete.stderr.contains("WRITE operation not permitted"), "\(delete.stderr)")
        #expect(try publicDB(s, "record", "fetch", "r1").stdout.contains("name=Pizza Roma"), "nothing was changed")
        // alice may change her own.
        #expect(try publicDB(s, "--as", "alice", "record", "save", "Restaurant", "--name", "r1", "--policy", "changed-keys", "name=Pizza Roma!").status == 0)

        // The app's schema grants WRITE to every signed-in user: then bob may.
        try s.write(Self.grantsSchema, to: "grants.ckdb")
        let imported = try s.ck("schema", "import", "grants.ckdb")
        #expect(imported.status == 0, "\(imported.stderr)")
        let now = try publicDB(s, "--as", "bob", "record", "save", "Restaurant", "--name", "r1", "--policy", "changed-keys", "name=Pizza Roma (closed)")
        #expect(now.status == 0, "\(now.stderr)")
        #expect(try publicDB(s, "--as", "bob", "record", "delete", "r2").status == 0)

        // A READ-only type refuses creates with Web Services' ACCESS_DENIED and CloudKit's reason text.
        let notice = try publicDB(s, "--as", "alice", "-o", "json", "record", "save", "Notice", "--name", "n1", "text=Closed")
        #expect(notice.status == 7)
        let parsed = try JSONSerialization.jsonObject(with: Data(notice.stderr.utf8)) as? [String: Any]
        let error = try #require(parsed, "\(notice.stderr)")
        #expect(error["serverErrorCode"] as? String == "ACCESS_DENIED")
        #expect(error["reason"] as? String == "CREATE operation not permitted")
        #expect(error["ckErrorCode"] as? String == "permissionFailure")
        #expect(error["recordType"] as? String == "Notice")
        #expect(error["roles"] as? [String] == ["_world", "_icloud"])

        // In a batch the refusal is that record's error: the others are saved (partialFailure, exit 10).
        try s.write("""
            {"recordName": "r3", "recordType": "Restaurant", "fields": {"name": {"value": "Sushi"}}}
            {"recordName": "n2", "recordType": "Notice", "fields": {"text": {"value": "no"}}}

            """, to: "batch.jsonl")
        let batch = try publicDB(s, "--as", "alice", "record", "save", "--batch", "batch.jsonl")
        #expect(batch.status == 10, "\(batch.stdout)\(batch.stderr)")
        #expect(batch.stderr.contains("n2: permissionFailure (10): CREATE operation not permitted"), "\(batch.stderr)")
        #expect(try publicDB(s, "record", "fetch", "r3").status == 0)
        #expect(try publicDB(s, "record", "fetch", "n2").status == 3)
    }

    @Test func aCustomRoleIsAssignedAndRevoked() throws {
        let s = try Sandbox()
        try s.write(Self.grantsSchema, to: "grants.ckdb")
        #expect(try s.ck("schema", "import", "grants.ckdb").status == 0)
        let before = try publicDB(s, "--as", "carol", "record", "save", "Review", "--name", "v1", "stars=5")
        #expect(before.status == 7 && before.stderr.contains("record type Review grants CREATE to Critic; user carol holds _world, _icloud"), "\(before.stderr)")
        // Role assignment names a user the container knows and a role of the schema.
        let unknownUser = try s.ck("role", "assign", "Critic", "dave")
        #expect(unknownUser.status == 3 && unknownUser.stderr.contains("no user 'dave' in container iCloud.ck.default"), "\(unknownUser.stderr)")
        #expect(try s.ck("account", "set", "available", "--as", "carol").status == 0)
        let unknownRole = try s.ck("role", "assign", "Chef", "carol")
        #expect(unknownRole.status == 3 && unknownRole.stderr.contains("role 'Chef' is not in the development schema (it has Critic)"), "\(unknownRole.stderr)")
        let builtIn = try s.ck("role", "assign", "_icloud", "carol")
        #expect(builtIn.status == 8 && builtIn.stderr.contains("'_icloud' is a built-in role"), "\(builtIn.stderr)")
        let assigned = try s.run(["role", "assign", "Critic", "carol", "-o", "table"])
        #expect(assigned.stdout == "Assigned role Critic to carol (development)\n", "\(assigned.stderr)")
        #expect(try s.ck("role", "list").stdout == "Critic\tcarol\n")
        let review = try publicDB(s, "--as", "carol", "record", "save", "Review", "--name", "v1", "stars=5")
        #expect(review.status == 0, "\(review.stderr)")
        // The role is the development environment's: production knows nothing of it.
        #expect(try s.ck("-e", "production", "role", "list").stdout == "")
        #expect(try s.ck("role", "revoke", "Critic", "carol").status == 0)
        let after = try publicDB(s, "--as", "carol", "record", "save", "Review", "--name", "v2", "stars=1")
        #expect(after.status == 7, "\(after.stderr)")
        // WRITE is the role's too: without it carol can't change even her own review (no _creator grant).
        let own = try publicDB(s, "--as", "carol", "record", "save", "Review", "--name", "v1", "--policy", "changed-keys", "stars=4")
        #expect(own.status == 7, "\(own.stderr)")
    }

    @Test func theUserRecordIsReadByAllAndExtendedByItsOwnerOnly() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "title=x").status == 0)
        let alice = try userRecordName(s, "alice")
        // Everyone reads alice's user record in the public database; she reads hers in her private one too.
        let fetched = try publicDB(s, "--anonymous", "record", "fetch", alice)
        #expect(fetched.status == 0 && fetched.stdout == "\(alice)\tUsers\t0\t_defaultZone\n", "\(fetched.stderr)")
        #expect(try s.ck("--as", "alice", "record", "fetch", alice).stdout == "\(alice)\tUsers\t0\t_defaultZone\n")
        // Not in bob's private database.
        #expect(try s.ck("--as", "bob", "record", "fetch", alice).status == 3)
        // Her own: she adds a field (change tag 0 until the first save).
        let extended = try publicDB(s, "--as", "alice", "record", "save", "Users", "--name", alice, "--if-tag", "0", "nickname=Al")
        #expect(extended.status == 0, "\(extended.stderr)")
        #expect(try publicDB(s, "--as", "bob", "record", "fetch", alice).stdout.contains("nickname=Al"))
        // Nobody else changes it, and nobody deletes it.
        let bob = try publicDB(s, "--as", "bob", "record", "save", "Users", "--name", alice, "--policy", "changed-keys", "nickname=Hacked")
        #expect(bob.status == 7 && bob.stderr.contains("user records are created by CloudKit and changed only by their own user"), "\(bob.stderr)")
        let delete = try publicDB(s, "--as", "alice", "record", "delete", alice)
        #expect(delete.status == 7 && delete.stderr.contains("user records can't be deleted"), "\(delete.stderr)")
        // No user record is created by a client, and no record takes a user record name's shape.
        let fake = try publicDB(s, "--as", "bob", "record", "save", "Users", "--name", "_" + String(repeating: "a", count: 32), "x=1")
        #expect(fake.status == 8, "\(fake.stderr)")
        let shaped = try s.ck("--as", "bob", "record", "save", "Note", "--name", "_" + String(repeating: "b", count: 32), "x=1")
        #expect(shaped.status == 8 && shaped.stderr.contains("has the shape of a user record name"), "\(shaped.stderr)")
        // The type can't be queried.
        let query = try publicDB(s, "query", "Users")
        #expect(query.status == 8 && query.stderr.contains("Type Users is reserved by the system and can't be queried"), "\(query.stderr)")
    }

    @Test func referencesAndFiltersNameUserRecords() throws {
        let s = try Sandbox()
        try s.write(Self.grantsSchema, to: "grants.ckdb")
        #expect(try s.ck("schema", "import", "grants.ckdb").status == 0)
        let alice = try userRecordName(s, "alice")
        #expect(try publicDB(s, "--as", "alice", "record", "save", "Restaurant", "--name", "a1", "name=A").status == 0)
        #expect(try publicDB(s, "--as", "bob", "record", "save", "Restaurant", "--name", "b1", "name=B").status == 0)
        let mine = try publicDB(s, "query", "Restaurant", "creatorUserRecordID == %@", "--arg", alice)
        #expect(mine.status == 0 && mine.stdout.split(separator: "\n").map { String($0.prefix(2)) } == ["a1"], "\(mine.stdout)\(mine.stderr)")
        // A reference field may point at a user record.
        let owner = try publicDB(s, "--as", "bob", "record", "save", "Restaurant", "--name", "b1", "--policy", "changed-keys", "owner:reference=\(alice)")
        #expect(owner.status == 8 || owner.status == 0, "\(owner.stderr)")
        let note = try s.ck("--as", "alice", "record", "save", "Note", "--name", "n1", "author:reference=\(alice)")
        #expect(note.status == 0, "\(note.stderr)")
        #expect(try s.ck("--as", "alice", "record", "fetch", "n1").stdout.contains("author=\(alice)"))
    }

    @Test func accountStatesInEveryDatabase() throws {
        let s = try Sandbox()
        #expect(try publicDB(s, "--as", "alice", "record", "save", "Post", "--name", "p1", "title=hi").status == 0)
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "--name", "n1", "title=mine").status == 0)
        #expect(try s.ck("--as", "alice", "account", "status").stdout == "available\n")
        for status in ["noAccount", "restricted", "couldNotDetermine"] {
            #expect(try s.ck("--as", "alice", "account", "set", status).status == 0)
            let privateRead = try s.ck("--as", "alice", "record", "fetch", "n1")
            #expect(privateRead.status == 7 && privateRead.stderr.contains("notAuthenticated (9): user alice has no usable iCloud account (account status \(status))"),
                    "\(status): \(privateRead.stderr)")
            let shared = try s.ck("--as", "alice", "--db", "shared", "zone", "list")
            #expect(shared.status == 7, "\(status): \(shared.stderr)")
            // The public database still reads, but does not write.
            #expect(try publicDB(s, "--as", "alice", "record", "fetch", "p1").status == 0, "\(status)")
            let publicWrite = try publicDB(s, "--as", "alice", "record", "save", "Post", "--name", "p2", "title=x")
            #expect(publicWrite.status == 7 && publicWrite.stderr.contains("notAuthenticated"), "\(status): \(publicWrite.stderr)")
            #expect(try s.ck("--as", "alice", "account", "status").stdout == status + "\n")
        }
        #expect(try s.ck("--as", "alice", "account", "set", "temporarilyUnavailable").status == 0)
        let busy = try s.ck("--as", "alice", "record", "fetch", "n1")
        #expect(busy.status == 5 && busy.stderr.contains("accountTemporarilyUnavailable (36)"), "\(busy.stderr)")
        #expect(try s.ck("--as", "alice", "account", "set", "available").status == 0)
        #expect(try s.ck("--as", "alice", "record", "fetch", "n1").status == 0)
        // Bad values are refused with the accepted ones.
        let bad = try s.ck("account", "set", "signedOut")
        #expect(bad.status == 64 && bad.stderr.contains("couldNotDetermine, available, restricted, noAccount, temporarilyUnavailable"), "\(bad.stderr)")
        let both = try s.ck("--anonymous", "--as", "alice", "account", "status")
        #expect(both.status == 64, "\(both.stderr)")
        #expect(try s.ck("--anonymous", "account", "status").stdout == "noAccount\n")
        // The user list shows it.
        #expect(try s.ck("user", "list").stdout.contains("alice\t\(try userRecordName(s, "alice"))\tavailable"))
    }

    @Test func aDeviceStopsWhenTheAccountGoesAndReportsItsReturn() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Notes").status == 0)
        #expect(try s.ck("--as", "alice", "sync", "iphone").status == 0)
        #expect(try s.ck("--as", "alice", "device", "save", "iphone", "Note", "-z", "Notes", "--name", "n1", "title=offline").status == 0)
        // restricted is no sign-out: the device keeps its edits and waits.
        #expect(try s.ck("--as", "alice", "account", "set", "restricted").status == 0)
        let waiting = try s.ck("--as", "alice", "sync", "iphone")
        #expect(waiting.status == 7, "\(waiting.stdout)\(waiting.stderr)")
        #expect(waiting.stderr.contains("device iphone can't sync; its 1 pending edit is kept (the account was available at the last sync)"), "\(waiting.stderr)")
        // noAccount is a sign-out: as CKSyncEngine does, the pending edits are cleared and the data removed.
        #expect(try s.ck("--as", "alice", "account", "set", "noAccount").status == 0)
        let stopped = try s.ck("--as", "alice", "sync", "iphone")
        #expect(stopped.status == 7, "\(stopped.stdout)\(stopped.stderr)")
        #expect(stopped.stderr.contains("device iphone can't sync; the account was signed out, so its pending edits were cleared"), "\(stopped.stderr)")
        #expect(try s.ck("--as", "alice", "account", "set", "available").status == 0)
        let back = try s.run(["--as", "alice", "sync", "iphone", "-o", "table"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.stdout.contains("account changed: noAccount → available (signIn)"), "\(back.stdout)")
        #expect(try s.ck("--as", "alice", "-z", "Notes", "record", "fetch", "n1").status == 3)
    }

    @Test func exportAndImportActAsTheCaller() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Work").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Work", "record", "save", "Task", "--name", "a-task", "t=1").status == 0)
        #expect(try s.ck("--as", "bob", "record", "save", "Note", "--name", "b-secret", "t=2").status == 0)
        #expect(try publicDB(s, "--as", "bob", "record", "save", "Post", "--name", "b-post", "t=3").status == 0)
        let alice = try s.ck("--as", "alice", "export")
        #expect(alice.status == 0)
        #expect(alice.stdout.contains("a-task") && alice.stdout.contains("b-post"), "alice sees her own and public data")
        #expect(!alice.stdout.contains("b-secret") && !alice.stdout.contains("\"name\": \"bob\""), "but nothing of bob's private database")
        let everyone = try s.ck("export", "--all-users")
        #expect(everyone.stdout.contains("b-secret") && everyone.stdout.contains("a-task"))
        // Importing as alice a document with bob's private data is refused, nothing written.
        try s.write(everyone.stdout, to: "all.json")
        let fresh = try Sandbox()
        let refused = try fresh.run(["--as", "alice", "import", s.dir + "/all.json"])
        #expect(refused.status == 8, "\(refused.stderr)")
        #expect(refused.stderr.contains("it belongs to user \(try userRecordName(s, "bob")), not to the acting user alice; import as that user, or pass --all-users"),
                "\(refused.stderr)")
        #expect(!(try fresh.ck("--as", "alice", "zone", "list").stdout.contains("Work")))
        // Her own export holds bob's public post: she may see it, but loading it as alice would make her its creator.
        try s.write(alice.stdout, to: "alice.json")
        let foreignPost = try fresh.run(["--as", "alice", "import", s.dir + "/alice.json"])
        #expect(foreignPost.status == 8 && foreignPost.stderr.contains("the record's creator is another user"), "\(foreignPost.stderr)")
        // Without it, alice's document loads as alice; --replace replaces only what is hers to delete.
        #expect(try publicDB(s, "--as", "bob", "record", "delete", "b-post").status == 0)
        try s.write(try s.ck("--as", "alice", "export").stdout, to: "alice.json")
        #expect(try fresh.run(["import", "--all-users", s.dir + "/all.json"]).status == 0)
        #expect(try fresh.ck("--as", "alice", "-z", "Work", "record", "delete", "a-task").status == 0)
        let replaced = try fresh.run(["--as", "alice", "import", "--replace", s.dir + "/alice.json"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(try fresh.ck("--as", "alice", "-z", "Work", "record", "fetch", "a-task").status == 0)
        #expect(try fresh.ck("--as", "bob", "record", "fetch", "b-secret").status == 0, "bob's private data is untouched")
        // Bob's post is his alone to delete (Post grants WRITE to _creator): alice's replace keeps it and says so.
        #expect(replaced.stdout.contains("kept\t1"), "\(replaced.stdout)")
        #expect(try publicDB(fresh, "record", "fetch", "b-post").status == 0, "bob's public post stays")
    }

    @Test func zonesDroppedByResetOrReplaceReachASyncedDevice() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "title=a").status == 0)
        try s.write(try s.ck("export").stdout, to: "before.json")
        #expect(try s.ck("sync", "iphone").status == 0)
        #expect(try s.ck("device", "records", "iphone").stdout.contains("n1"))
        // A reset drops every zone: the database change feed says so and the device tosses the records.
        #expect(try s.ck("schema", "reset", "-y").status == 0)
        let changes = try s.ck("changes", "database")
        #expect(changes.stdout.contains("deleted\tNotes") || changes.stdout.contains("Notes\tdeleted"), "\(changes.stdout)")
        let sync = try s.ck("sync", "iphone")
        #expect(sync.status == 0, "\(sync.stderr)")
        #expect(!(try s.ck("device", "records", "iphone").stdout.contains("n1")), "the device kept a dropped zone's record")
        // An import that replaces drops the zones it replaces the same way.
        #expect(try s.ck("import", "before.json", "--replace").status == 0)
        #expect(try s.ck("sync", "iphone").status == 0)
        #expect(try s.ck("device", "records", "iphone").stdout.contains("n1"))
        #expect(try s.ck("-z", "Notes", "record", "delete", "n1").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n2", "title=b").status == 0)
        #expect(try s.ck("sync", "iphone").status == 0)
        #expect(try s.ck("import", "before.json", "--replace").status == 0)
        #expect(try s.ck("sync", "iphone").status == 0)
        let records = try s.ck("device", "records", "iphone").stdout
        #expect(records.contains("n1") && !records.contains("n2"), "\(records)")
    }
}
