import Foundation
import Testing
import CKModel

/// Names that create things (docs/cli.md): a user, device, container or zone name that does not exist and differs
/// from an existing one only in case or by one edit is refused with a "did you mean" instead of being created on
/// first use; `ck user create` / `ck device create` / `ck container create` / `ck zone create` make it on purpose.
/// Reading commands never create. The very first user and device are still made on first use.
@Suite struct NearMissNameTests {
    /// Every file of the sandbox's store, for "created nothing" checks.
    func storeFiles(_ s: Sandbox) -> [String] { s.files(under: s.dir + "/store") }

    /// The first column of a plain listing (`ck user list`, `ck container list`), sorted.
    func listed(_ s: Sandbox, _ args: String...) throws -> [String] {
        try s.run(args + ["-o", "plain"]).stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted()
    }

    @Test func aUserNearMissIsRefusedAndCreatesNothing() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "--name", "n1", "title=Hi").status == 0)
        let before = storeFiles(s)
        let typo = try s.ck("--as", "alcie", "record", "save", "Note", "--name", "n2", "title=Typo")
        #expect(typo.status == 3, "a name that does not exist is a not-found error")
        #expect(typo.stdout.isEmpty)
        #expect(typo.stderr == """
            ck: unknownItem (11): user 'alcie' does not exist in container iCloud.ck.default, and ck does not create it on first use: it is close to 'alice'
            hint: did you mean 'alice'? To make a new user 'alcie' anyway, 'ck user create alcie'

            """)
        // Case only, on a read and on a write; and setting the account status or a quota, which list a user too.
        for args in [["--as", "ALICE", "zone", "list"], ["--as", "ALICE", "record", "fetch", "n1"],
                     ["--as", "Alice", "record", "save", "Note", "title=x"], ["account", "set", "noAccount", "--as", "alicd"],
                     ["quota", "set", "1MB", "--as", "alicee"]] {
            let r = try s.run(args)
            #expect(r.status == 3, "\(args): \(r.stderr)")
            #expect(r.stderr.contains("did you mean 'alice'?"), "\(args): \(r.stderr)")
        }
        #expect(try listed(s, "user", "list") == ["alice"])
        #expect(storeFiles(s) == before)
        // The real name still works.
        #expect(try s.ck("--as", "alice", "record", "fetch", "n1", "-o", "name").stdout == "n1\n")
    }

    @Test func userCreateMakesANearMissOnPurpose() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "title=Hi").status == 0)
        let created = try s.ck("user", "create", "alcie", "-o", "plain")
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.hasPrefix("name\talcie\n"))
        #expect(created.stderr.isEmpty)
        let saved = try s.ck("--as", "alcie", "record", "save", "Note", "--name", "mine", "title=Mine")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try s.ck("--as", "alcie", "record", "fetch", "mine", "-o", "name").stdout == "mine\n")
        #expect(try listed(s, "user", "list") == ["alcie", "alice"])
        // Creating again changes nothing and says so; a bad name is rejected input.
        let again = try s.ck("user", "create", "alcie", "-o", "plain")
        #expect(again.status == 0)
        #expect(again.stderr == "ck: user 'alcie' already exists; it is left as it is\n")
        #expect(try s.ck("user", "create", "no/slash").status == 8)
    }

    @Test func firstUseOfANameThatIsNoNearMissStillCreates() throws {
        let s = try Sandbox()
        // The very first user of a fresh store.
        let first = try s.ck("--as", "bob", "record", "save", "Note", "title=First")
        #expect(first.status == 0, "\(first.stderr)")
        // Names far from bob, and numbered siblings (digits are not typos), are new users too.
        for user in ["carol", "user1", "user2"] {
            let r = try s.ck("--as", user, "record", "save", "Note", "title=x")
            #expect(r.status == 0, "\(user): \(r.stderr)")
        }
        #expect(try listed(s, "user", "list") == ["bob", "carol", "user1", "user2"])
    }

    @Test func showingAUserNeverCreatesIt() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "title=Hi").status == 0)
        let before = storeFiles(s)
        let zed = try s.ck("--as", "zed", "user", "show")
        #expect(zed.status == 3)
        #expect(zed.stdout.isEmpty)
        #expect(zed.stderr == "ck: unknownItem (11): no user 'zed' in container iCloud.ck.default\nhint: known users: alice\n")
        let close = try s.ck("user", "show", "alicee")
        #expect(close.status == 3)
        #expect(close.stderr.contains("hint: did you mean 'alice'?"))
        #expect(try listed(s, "user", "list") == ["alice"])
        #expect(storeFiles(s) == before)
    }

    @Test func aDeviceNearMissIsRefusedAndDeviceCreateMakesIt() throws {
        let s = try Sandbox()
        let devices = s.dir + "/store/devices"
        // The first device is made on first use.
        #expect(try s.ck("--as", "alice", "sync", "mac").status == 0)
        let typo = try s.ck("--as", "alice", "sync", "MAC")
        #expect(typo.status == 3)
        #expect(typo.stderr == """
            ck: unknownItem (11): device 'MAC' does not exist for user 'alice' in iCloud.ck.default, and ck does not create it on first use: it is close to 'mac'
            hint: did you mean 'mac'? To make a new device 'MAC' anyway, 'ck device create MAC'

            """)
        #expect(!storeFiles(s).contains { $0.hasSuffix("/MAC.sqlite") })
        #expect(try s.ck("--as", "alice", "device", "list", "-o", "name").stdout == "mac\n")
        // Reading a missing device points at the close one.
        let show = try s.ck("--as", "alice", "device", "show", "mca")
        #expect(show.status == 3)
        #expect(show.stderr.contains("hint: did you mean 'mac'?"))
        // A mistyped user makes no device file either.
        #expect(try s.ck("--as", "alcie", "sync", "phone").status == 3)
        #expect(s.files(under: devices).filter { $0.hasSuffix(".sqlite") }.count == 1)
        // Explicitly, the near miss is made; then it syncs like any device.
        let made = try s.ck("--as", "alice", "device", "create", "MAC", "-o", "plain")
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stdout.hasPrefix("device\tMAC\n"))
        #expect(try s.ck("--as", "alice", "sync", "MAC").status == 0)
        #expect(try s.ck("--as", "alice", "device", "list", "-o", "name").stdout == "MAC\nmac\n")
    }

    @Test func aContainerNearMissIsRefusedWhereItWouldBeCreated() throws {
        let s = try Sandbox()
        #expect(try s.ck("container", "create", "iCloud.com.example.app").status == 0)
        // cktool's containers are made on first use; a near miss is not.
        let cktool = try s.run(["cktool", "query-records", "--team-id", "XYZ1234567", "--container-id", "iCloud.com.exmaple.app",
                                "--environment", "development", "--database-type", "public", "--record-type", "Book"])
        #expect(cktool.status == 1, "cktool's exit code for a failed operation")
        #expect(cktool.stderr.contains("ck: badContainer (5): container 'iCloud.com.exmaple.app' does not exist in "))
        #expect(cktool.stderr.contains("hint: did you mean 'iCloud.com.example.app'? To make a new container 'iCloud.com.exmaple.app' anyway, 'ck container create iCloud.com.exmaple.app'"))
        // An import naming the near miss makes nothing either.
        try s.write(#"{"format": "ck-fixtures/1", "container": "iCloud.com.exmaple.app", "records": []}"#, to: "seed.json")
        let imported = try s.ck("import", "seed.json")
        #expect(imported.status == 3, "\(imported.stderr)")
        #expect(imported.stderr.contains("did you mean 'iCloud.com.example.app'?"))
        // -c never creates, and now says which container was meant.
        let flag = try s.ck("-c", "iCloud.com.exmaple.app", "record", "save", "Note", "title=x")
        #expect(flag.status == 3)
        #expect(flag.stderr.contains("hint: did you mean 'iCloud.com.example.app'? Or create it with 'ck container create iCloud.com.exmaple.app'"))
        #expect(try listed(s, "container", "list") == ["iCloud.ck.default", "iCloud.com.example.app"])
        // Explicitly it is made.
        #expect(try s.ck("container", "create", "iCloud.com.exmaple.app").status == 0)
    }

    @Test func aZoneNearMissIsRefusedWhereItWouldBeCreated() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Notes").status == 0)
        // An offline edit on a new device in -z notes would make a second zone at the next sync.
        let edit = try s.ck("--as", "alice", "device", "save", "tablet", "Note", "-z", "notes", "title=x")
        #expect(edit.status == 3)
        #expect(edit.stderr == """
            ck: zoneNotFound (26): zone 'notes' does not exist in the private database of user 'alice', and ck does not create it on first use: it is close to 'Notes'
            hint: did you mean 'Notes'? To make a new zone 'notes' anyway, 'ck zone create notes'

            """)
        #expect(!storeFiles(s).contains { $0.hasSuffix("/tablet.sqlite") }, "a refused edit leaves no device behind")
        // On a device that exists too.
        #expect(try s.ck("--as", "alice", "sync", "tablet").status == 0)
        let again = try s.ck("--as", "alice", "device", "save", "tablet", "Note", "-z", "NOTES", "title=x")
        #expect(again.status == 3)
        #expect(again.stderr.contains("did you mean 'Notes'?"))
        // A record save names the close zone rather than failing plainly.
        let save = try s.ck("--as", "alice", "-z", "notes", "record", "save", "Note", "title=x")
        #expect(save.status == 3)
        #expect(save.stderr.contains("hint: did you mean 'Notes'?"))
        // A zone far from Notes is still made on the device's first edit in it; Notes itself works.
        #expect(try s.ck("--as", "alice", "device", "save", "tablet", "Note", "-z", "Todo", "title=x").status == 0)
        #expect(try s.ck("--as", "alice", "device", "save", "tablet", "Note", "-z", "Notes", "title=x").status == 0)
        #expect(try s.ck("--as", "alice", "zone", "create", "notes").status == 0)
        #expect(try s.ck("--as", "alice", "device", "save", "tablet", "Note", "-z", "notes", "title=x").status == 0)
    }

    @Test func aWebTokenForANearMissUserIsRefused() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "title=Hi").status == 0)
        let token = try s.ck("serve", "token", "create", "--as", "alcie")
        #expect(token.status == 3)
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("user 'alcie' does not exist in container iCloud.ck.default"))
        #expect(try s.ck("serve", "token", "list", "-o", "plain").stdout.isEmpty)
        #expect(try s.ck("serve", "token", "create", "--as", "alice").status == 0)
    }

    @Test func aServerActingAsANearMissUserIsRefusedBeforeListening() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Notes").status == 0)
        let zones = "/database/1/iCloud.ck.default/development/private/zones/list"
        // Started, it would refuse every request of that container; refused at once, it never listens.
        let r = try s.ck("serve", "--no-auth", "--as", "ALICE", "--port", "0")
        #expect(r.status == 3, "\(r.stdout) \(r.stderr)")
        #expect(!r.stdout.contains("listening"), "\(r.stdout)")
        #expect(r.stderr.contains("user 'ALICE' does not exist in container iCloud.ck.default"), "\(r.stderr)")
        #expect(r.stderr.contains("close to 'alice'"), "\(r.stderr)")
        #expect(try listed(s, "user", "list") == ["alice"])
        // The real name is served.
        let right = try ServeProcess(s, arguments: ["--no-auth", "--as", "alice"])
        let ok = try right.post(zones, json: "{}")
        #expect(ok.status == 200, "\(ok.text)")
        #expect(ok.text.contains("\"Notes\""))
    }
}
