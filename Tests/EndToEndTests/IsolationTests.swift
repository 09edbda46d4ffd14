import Foundation
import Testing

// One user's private database is never readable or writable by another user, through any command; the public
// database is shared; development and production are separate trees.
//
// Layout: one store made by `aliceStore()`, then one section per kind of access (read, query, write, zones,
// identity, databases, environments). Notifications, devices and export are not built yet; their sections are
// marked below so the isolation checks for them land next to the others.

@Suite struct IsolationTests {
    static let aliceRecords = ["a-note-1", "a-note-2"]
    static let aliceZoned = ["a-zoned-1"]
    static let aliceZone = "AliceZone"

    /// alice has two records in her private default zone, one in her custom zone AliceZone, and `Note` is indexed
    /// for listing queries (`___recordID` queryable). bob exists only as a name.
    func aliceStore() throws -> Sandbox {
        let s = try Sandbox()
        for name in IsolationTests.aliceRecords {
            let r = try s.ck("--as", "alice", "record", "save", "Note", "--name", name, "title=secret of \(name)", "n=1")
            #expect(r.status == 0, "\(r.stderr)")
        }
        #expect(try s.ck("--as", "alice", "zone", "create", IsolationTests.aliceZone).status == 0)
        for name in IsolationTests.aliceZoned {
            let r = try s.ck("--as", "alice", "-z", IsolationTests.aliceZone, "record", "save", "Note", "--name", name, "title=zoned secret", "n=2")
            #expect(r.status == 0, "\(r.stderr)")
        }
        let index = try s.ck("schema", "index", "Note", "___recordID", "--queryable")
        #expect(index.status == 0, "\(index.stderr)")
        return s
    }

    /// The names in plain output (first column).
    func names(_ r: Sandbox.Result) -> [String] {
        r.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
    }

    /// alice's private records, fetched as alice: the proof that nothing bob did reached them.
    func expectAliceUntouched(_ s: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let r = try s.ck("--as", "alice", "record", "fetch", "a-note-1", "a-note-2", "--keys", "title")
        #expect(r.status == 0, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stdout == "a-note-1\tNote\t1\t_defaultZone\ttitle=secret of a-note-1\na-note-2\tNote\t2\t_defaultZone\ttitle=secret of a-note-2\n",
                "alice's records changed: \(r.stdout)", sourceLocation: sourceLocation)
        let z = try s.ck("--as", "alice", "-z", IsolationTests.aliceZone, "record", "fetch", "a-zoned-1", "--keys", "title")
        #expect(z.status == 0 && z.stdout == "a-zoned-1\tNote\t4\tAliceZone\ttitle=zoned secret\n", "alice's zoned record changed: \(z.stdout) \(z.stderr)",
                sourceLocation: sourceLocation)
    }

    // MARK: Reading

    @Test func anotherUserCannotFetchAlicesRecords() throws {
        let s = try aliceStore()
        for name in IsolationTests.aliceRecords {
            let r = try s.ck("--as", "bob", "record", "fetch", name)
            #expect(r.status == 3, "bob fetched \(name): \(r.stdout)")
            #expect(r.stderr == "ck: unknownItem (11): Record not found: '\(name)' in zone _defaultZone\n")
            #expect(r.stdout.isEmpty)
        }
        // Several at once: every one missing, nothing printed, the error lists each.
        let all = try s.ck("--as", "bob", "record", "fetch", "a-note-1", "a-note-2", "-o", "json")
        #expect(all.status == 10)
        #expect(!all.stdout.contains("secret") && !all.stderr.contains("secret"))
        #expect(all.stderr.contains(#""ckErrorCode":"partialFailure""#))
        // CK_USER is the same as --as.
        let env = try s.run(["record", "fetch", "a-note-1"], env: ["CK_USER": "bob"])
        #expect(env.status == 3 && env.stderr.hasPrefix("ck: unknownItem (11): Record not found: 'a-note-1'"))
        // The default user is another user too.
        let def = try s.ck("record", "fetch", "a-note-1")
        #expect(def.status == 3 && def.stderr.hasPrefix("ck: unknownItem (11):"))
        // alice herself still reads them.
        try expectAliceUntouched(s)
    }

    @Test func anotherUserDoesNotSeeAlicesZones() throws {
        let s = try aliceStore()
        let list = try s.ck("--as", "bob", "zone", "list")
        #expect(list.status == 0)
        #expect(names(list) == ["_defaultZone"], "bob sees: \(list.stdout)")
        #expect(!list.stdout.contains(IsolationTests.aliceZone))
        let aliceList = try s.ck("--as", "alice", "zone", "list")
        #expect(names(aliceList) == ["_defaultZone", IsolationTests.aliceZone])

        let show = try s.ck("--as", "bob", "zone", "show", IsolationTests.aliceZone)
        #expect(show.status == 3)
        #expect(show.stderr.hasPrefix("ck: zoneNotFound (26): Zone 'AliceZone' does not exist\n"), "\(show.stderr)")
        let showZ = try s.ck("--as", "bob", "-z", IsolationTests.aliceZone, "zone", "show")
        #expect(showZ.status == 3 && showZ.stderr.hasPrefix("ck: zoneNotFound (26):"))
        let fetch = try s.ck("--as", "bob", "-z", IsolationTests.aliceZone, "record", "fetch", "a-zoned-1")
        #expect(fetch.status == 3)
        #expect(fetch.stderr.hasPrefix("ck: zoneNotFound (26): Zone 'AliceZone' does not exist\n"))

        // bob's own default zone is his: his owner, none of alice's records counted.
        let bobDefault = try s.ck("--as", "bob", "zone", "show")
        let aliceDefault = try s.ck("--as", "alice", "zone", "show")
        #expect(bobDefault.stdout.contains("records\t0\n"), "\(bobDefault.stdout)")
        #expect(aliceDefault.stdout.contains("records\t2\n"), "\(aliceDefault.stdout)")
        let owner = { (r: Sandbox.Result) in r.stdout.split(separator: "\n").first { $0.hasPrefix("owner\t") } }
        #expect(owner(bobDefault) != nil && owner(bobDefault) != owner(aliceDefault))
    }

    // MARK: Querying

    @Test func anotherUserCannotQueryAlicesRecords() throws {
        let s = try aliceStore()
        // bob has never written: his zone has no log yet, and a query must still answer "nothing".
        let fresh = try s.ck("--as", "bob", "query", "Note")
        #expect(fresh.status == 0, "query by a user with no records yet: \(fresh.stderr)")
        #expect(fresh.stdout.isEmpty, "bob's query returned: \(fresh.stdout)")
        let freshWide = try s.ck("--as", "bob", "query", "Note", "--zone-wide")
        #expect(freshWide.status == 0, "zone-wide query by a user with no records yet: \(freshWide.stderr)")
        #expect(!freshWide.stdout.contains("a-"), "\(freshWide.stdout)")

        // Once bob has records of his own, he sees exactly those.
        #expect(try s.ck("--as", "bob", "record", "save", "Note", "--name", "b-note", "title=bob", "n=1").status == 0)
        for args in [["query", "Note"], ["query", "Note", "n >= 1"], ["query", "Note", "title BEGINSWITH 'secret'"],
                     ["query", "Note", "self CONTAINS 'secret'"], ["query", "Note", "--zone-wide"]] {
            let r = try s.run(["--as", "bob"] + args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            #expect(!r.stdout.contains("secret") && !names(r).contains { $0.hasPrefix("a-") }, "\(args) as bob returned alice's: \(r.stdout)")
        }
        #expect(names(try s.ck("--as", "bob", "query", "Note")) == ["b-note"])
        let zoned = try s.ck("--as", "bob", "-z", IsolationTests.aliceZone, "query", "Note")
        #expect(zoned.status == 3 && zoned.stderr.hasPrefix("ck: zoneNotFound (26):"), "\(zoned.stdout) \(zoned.stderr)")
        // alice sees her own, and not bob's.
        #expect(Set(names(try s.ck("--as", "alice", "query", "Note"))) == Set(IsolationTests.aliceRecords))
        #expect(Set(names(try s.ck("--as", "alice", "query", "Note", "--zone-wide"))) == Set(IsolationTests.aliceRecords + IsolationTests.aliceZoned))
    }

    // MARK: Writing

    @Test func savingAlicesRecordNameCreatesBobsOwnRecord() throws {
        let s = try aliceStore()
        // A plain create: the name is free in bob's database.
        let create = try s.ck("--as", "bob", "record", "save", "Note", "--name", "a-note-1", "title=bob's own")
        #expect(create.status == 0, "\(create.stderr)")
        #expect(create.stdout.hasPrefix("a-note-1\tNote\t"))
        // Updates under alice's change tag find no such record of bob's...
        let update = try s.ck("--as", "bob", "record", "save", "Note", "--name", "a-note-2", "--if-tag", "2", "title=hijack")
        #expect(update.status == 3, "\(update.stdout) \(update.stderr)")
        #expect(update.stderr.hasPrefix("ck: unknownItem (11):"))
        #expect(!update.stderr.contains("secret"), "the error shows alice's record: \(update.stderr)")
        // ...and force-updates make bob's own.
        let force = try s.ck("--as", "bob", "record", "save", "Note", "--name", "a-note-2", "--policy", "all-keys", "title=hijack")
        #expect(force.status == 0 && force.stdout.contains("title=hijack") && !force.stdout.contains("n=1"), "\(force.stdout) \(force.stderr)")
        // A batch whose records claim alice's zone (her owner in zoneID) still writes only bob's database.
        let alice = try s.ck("--as", "alice", "zone", "show")
        let aliceOwner = try #require(alice.stdout.split(separator: "\n").first { $0.hasPrefix("owner\t") }?.dropFirst(6))
        let line = #"{"operationType":"forceUpdate","record":{"recordName":"a-note-1","recordType":"Note","zoneID":{"zoneName":"_defaultZone","ownerRecordName":"\#(aliceOwner)"},"fields":{"title":{"value":"hijack by batch"}}}}"#
        let batch = try s.run(["--as", "bob", "record", "save", "--batch", "-"], stdin: line + "\n")
        #expect(batch.status == 0 || batch.status == 3 || batch.status == 8, "\(batch.stderr)")
        // Whatever bob did, alice's records are as she left them, and bob's are his.
        try expectAliceUntouched(s)
        let bobs = try s.ck("--as", "bob", "record", "fetch", "a-note-1", "a-note-2", "--keys", "title")
        #expect(bobs.status == 0)
        #expect(!bobs.stdout.contains("secret"))
        // In alice's custom zone name: bob has no such zone.
        let zoned = try s.ck("--as", "bob", "-z", IsolationTests.aliceZone, "record", "save", "Note", "--name", "a-zoned-1", "title=hijack")
        #expect(zoned.status == 3 && zoned.stderr.hasPrefix("ck: zoneNotFound (26):"))
        try expectAliceUntouched(s)
    }

    @Test func deletingAlicesRecordNameIsUnknownItem() throws {
        let s = try aliceStore()
        let r = try s.ck("--as", "bob", "record", "delete", "a-note-1")
        #expect(r.status == 3, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.hasPrefix("ck: unknownItem (11):"), "\(r.stderr)")
        #expect(r.stdout.isEmpty)
        let tagged = try s.ck("--as", "bob", "record", "delete", "a-note-2", "--if-tag", "2")
        #expect(tagged.status == 3 && tagged.stderr.hasPrefix("ck: unknownItem (11):"), "\(tagged.stderr)")
        let many = try s.ck("--as", "bob", "record", "delete", "-y", "a-note-1", "a-note-2")
        #expect(many.status == 10, "\(many.stderr)")
        let batch = try s.run(["--as", "bob", "record", "save", "--batch", "-"],
                              stdin: #"{"operationType":"forceDelete","record":{"recordName":"a-note-1"}}"# + "\n" + #"{"operationType":"delete","record":{"recordName":"a-note-2","recordChangeTag":"2"}}"# + "\n")
        #expect(batch.status == 10, "\(batch.stdout) \(batch.stderr)")
        let zoned = try s.ck("--as", "bob", "-z", IsolationTests.aliceZone, "record", "delete", "a-zoned-1")
        #expect(zoned.status == 3 && zoned.stderr.hasPrefix("ck: zoneNotFound (26):"))
        try expectAliceUntouched(s)
    }

    @Test func anotherUserCannotDeleteOrReplaceAlicesZone() throws {
        let s = try aliceStore()
        let delete = try s.ck("--as", "bob", "zone", "delete", "-y", IsolationTests.aliceZone)
        #expect(delete.status == 3 && delete.stderr.hasPrefix("ck: zoneNotFound (26): Zone 'AliceZone' does not exist"), "\(delete.stderr)")
        // Creating a zone of the same name makes bob's own, empty one.
        let create = try s.ck("--as", "bob", "zone", "create", IsolationTests.aliceZone)
        #expect(create.status == 0, "\(create.stderr)")
        let fetch = try s.ck("--as", "bob", "-z", IsolationTests.aliceZone, "record", "fetch", "a-zoned-1")
        #expect(fetch.status == 3 && fetch.stderr.hasPrefix("ck: unknownItem (11):"))
        // Deleting bob's leaves alice's.
        #expect(try s.ck("--as", "bob", "zone", "delete", "-y", IsolationTests.aliceZone).status == 0)
        try expectAliceUntouched(s)
        #expect(names(try s.ck("--as", "alice", "zone", "list")) == ["_defaultZone", IsolationTests.aliceZone])
    }

    // MARK: Identity

    @Test func usersAreTheirNamesExactly() throws {
        let s = try aliceStore()
        // Names that differ in case or by a character are other users.
        for other in ["Alice", "alice.", "alice_", "ALICE"] {
            let r = try s.ck("--as", other, "record", "fetch", "a-note-1")
            #expect(r.status == 3, "--as \(other) fetched alice's record: \(r.stdout)")
        }
        // Every record shows its creator's user record name; naming it with --as is refused, never acting as alice.
        let show = try s.ck("--as", "alice", "zone", "show")
        let owner = try #require(show.stdout.split(separator: "\n").first { $0.hasPrefix("owner\t") }.map { String($0.dropFirst(6)) })
        #expect(owner.count == 33 && owner.hasPrefix("_"))
        let asRecordName = try s.ck("--as", owner, "record", "fetch", "a-note-1", "--keys", "title")
        #expect(asRecordName.status == 8 && !asRecordName.stdout.contains("secret"), "\(asRecordName.stdout)")
        #expect(asRecordName.stderr.contains("'\(owner)' is a user record name, not a user name"), "\(asRecordName.stderr)")
        let viaEnv = try s.run(["record", "fetch", "a-note-1"], env: ["CK_USER": owner])
        #expect(viaEnv.status == 8 && viaEnv.stderr.contains("CK_USER: '\(owner)' is a user record name"), "\(viaEnv.stderr)")
        // An upper-case hex form, or any name beginning with '_', is no user name either.
        let upper = try s.ck("--as", "_" + owner.dropFirst().uppercased(), "record", "fetch", "a-note-1")
        #expect(upper.status == 8, "\(upper.stdout)")
    }

    // MARK: Databases

    @Test func thePublicDatabaseIsShared() throws {
        let s = try aliceStore()
        #expect(try s.ck("--as", "alice", "--db", "public", "record", "save", "Note", "--name", "p-alice", "title=hello all").status == 0)
        #expect(try s.ck("--as", "bob", "--db", "public", "record", "save", "Note", "--name", "p-bob", "title=hi").status == 0)
        for user in ["alice", "bob", "carol"] {
            let r = try s.ck("--as", user, "--db", "public", "record", "fetch", "p-alice", "p-bob", "--keys", "title")
            #expect(r.status == 0, "\(user): \(r.stderr)")
            #expect(names(r) == ["p-alice", "p-bob"], "\(user): \(r.stdout)")
            let q = try s.ck("--as", user, "--db", "public", "query", "Note")
            #expect(q.status == 0, "\(user): \(q.stderr)")
            #expect(Set(names(q)) == ["p-alice", "p-bob"], "\(user) public query: \(q.stdout)")
        }
        // Public and private are different databases, for the same user and name.
        let priv = try s.ck("--as", "alice", "record", "fetch", "p-alice")
        #expect(priv.status == 3)
        let pub = try s.ck("--as", "alice", "--db", "public", "record", "fetch", "a-note-1")
        #expect(pub.status == 3)
        // The public database has no custom zones: alice's private zone is not there.
        let zone = try s.ck("--as", "alice", "--db", "public", "-z", IsolationTests.aliceZone, "record", "fetch", "a-zoned-1")
        #expect(zone.status == 3 && zone.stderr.hasPrefix("ck: zoneNotFound (26):"))
        // Public records are created by their user.
        let json = try s.ck("--db", "public", "record", "fetch", "p-alice", "-o", "json")
        let owner = try #require(try s.ck("--as", "alice", "zone", "show").stdout.split(separator: "\n").first { $0.hasPrefix("owner\t") }?.dropFirst(6))
        #expect(json.stdout.contains(#""userRecordName": "\#(owner)""#))
    }

    @Test func theSharedDatabaseExposesNoOneElsesZones() throws {
        let s = try aliceStore()
        for user in ["alice", "bob"] {
            let r = try s.ck("--as", user, "--db", "shared", "record", "fetch", "a-note-1")
            #expect(r.status == 3 && r.stderr.hasPrefix("ck: zoneNotFound (26):"), "\(user): \(r.stdout) \(r.stderr)")
            let z = try s.ck("--as", user, "--db", "shared", "-z", IsolationTests.aliceZone, "record", "fetch", "a-zoned-1")
            #expect(z.status == 3 && !z.stdout.contains("secret"))
            let list = try s.ck("--as", user, "--db", "shared", "zone", "list")
            #expect(!list.stdout.contains(IsolationTests.aliceZone), "\(user) shared zone list: \(list.stdout)")
        }
    }

    // MARK: Environments

    @Test func developmentAndProductionAreSeparate() throws {
        let s = try aliceStore()
        // Production's schema is empty until deployed: nothing of development shows through.
        let before = try s.ck("--as", "alice", "-e", "production", "record", "fetch", "a-note-1")
        #expect(before.status == 3 && before.stderr.hasPrefix("ck: unknownItem (11):"), "\(before.stderr)")
        let deploy = try s.ck("schema", "deploy", "-y")
        #expect(deploy.status == 0, "\(deploy.stderr)")
        // Deploying copies the schema, never records or zones.
        let after = try s.ck("--as", "alice", "-e", "production", "record", "fetch", "a-note-1")
        #expect(after.status == 3)
        let zones = try s.ck("--as", "alice", "-e", "production", "zone", "list")
        #expect(names(zones) == ["_defaultZone"], "\(zones.stdout)")
        let q = try s.ck("--as", "alice", "-e", "production", "query", "Note")
        #expect(!q.stdout.contains("secret"), "\(q.stdout)")
        // The same name in production is another record; development keeps its own.
        let prod = try s.ck("--as", "alice", "-e", "production", "record", "save", "Note", "--name", "a-note-1", "title=prod")
        #expect(prod.status == 0, "\(prod.stderr)")
        try expectAliceUntouched(s)
        let fetchProd = try s.ck("--as", "alice", "-e", "production", "record", "fetch", "a-note-1", "--keys", "title")
        #expect(fetchProd.stdout.hasSuffix("\ttitle=prod\n"), "\(fetchProd.stdout)")
        // Users are separate in production too.
        let bob = try s.ck("--as", "bob", "-e", "production", "record", "fetch", "a-note-1")
        #expect(bob.status == 3)
        // CK_ENV selects the same trees.
        let env = try s.run(["--as", "alice", "record", "fetch", "a-note-1", "--keys", "title"], env: ["CK_ENV": "production"])
        #expect(env.stdout.hasSuffix("\ttitle=prod\n"), "\(env.stdout)")
    }

    // MARK: Not built yet
    //
    // - Notifications and subscriptions: a subscription of bob's must never fire for alice's private records, and
    //   `ck` must not list alice's notifications to bob.
    // - Devices: a device registered by alice is not visible or usable as bob.
    // - Export: `ck export --as bob` must not contain alice's private zones or records.
    //
    // Add them here with aliceStore() when the commands exist.
}
