import Foundation
import Testing

/// Hints and messages point the right way: an error names where a value came from only when it is about that value.
@Suite struct HintEndToEndTests {
    /// "(from CK_ZONE)" goes on errors about the zone, not on errors that merely name it (a missing record or record
    /// type, a compacted token), and one error gets one such note.
    @Test func environmentVariablesAreNamedOnlyOnErrorsAboutTheirValue() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Notes")
        let zone = ["CK_ZONE": "Notes"]
        #expect(try s.run(["record", "save", "Note", "--name", "a", "t=1"], env: zone).status == 0)
        let token = try s.run(["changes", "zone", "-o", "plain"], env: zone).stdout
            .split(separator: "\n").last.map { String($0.split(separator: "\t")[1]) } ?? ""
        #expect(try s.run(["record", "delete", "a", "-y"], env: zone).status == 0)

        let missing = try s.run(["record", "fetch", "a"], env: zone)
        #expect(missing.stderr == "ck: unknownItem (11): Record not found: 'a' in zone Notes\n")
        let type = try s.run(["query", "Notes", "t == 1"], env: zone)
        #expect(type.stderr.hasPrefix("ck: unknownItem (11): Did not find record type: Notes\n"), "\(type.stderr)")
        try s.ck("gc")
        let expired = try s.run(["changes", "zone", "--since", token], env: zone)
        #expect(expired.status == 9)
        #expect(expired.stderr.hasPrefix("ck: changeTokenExpired (21): The change token is too old: the history of zone 'Notes' before it was compacted\n"),
                "\(expired.stderr)")

        // An error about the zone still says where it came from, once, though the user has the same name.
        let absent = try s.run(["record", "fetch", "a"], env: ["CK_ZONE": "zed", "CK_USER": "zed"])
        #expect(absent.stderr.hasPrefix("ck: zoneNotFound (26): Zone 'zed' does not exist (from CK_ZONE)\n"), "\(absent.stderr)")
        let container = try s.run(["record", "fetch", "a"], env: ["CK_CONTAINER": "iCloud.com.example.Nope"])
        #expect(container.stderr.hasPrefix("ck: badContainer (5): container 'iCloud.com.example.Nope' does not exist in \(s.dir)/store (from CK_CONTAINER)\n"),
                "\(container.stderr)")
    }

    /// Runs ck on a terminal (script(1) gives it a pty), with `input` typed, and returns what the terminal showed.
    func onTerminal(_ s: Sandbox, _ args: String, input: String = "") throws -> String {
        let script = "/usr/bin/script"
        try #require(FileManager.default.isExecutableFile(atPath: script), "this test needs script(1) (util-linux) to give ck a terminal")
        let r = try s.run(["-qec", "'\(Sandbox.binary)' \(args)", "/dev/null"], stdin: input, program: script)
        return r.stdout.replacingOccurrences(of: "\r", with: "")
    }

    /// Input read from a terminal is announced with how to end it, not waited for in silence; piped, nothing is said.
    @Test func standardInputOnATerminalSaysWhatItWaitsFor() throws {
        let s = try Sandbox()
        let line = #"{"recordName": "typed-1", "recordType": "Note", "fields": {"title": {"value": "typed"}}}"#
        let shown = try onTerminal(s, "record save --batch - -o name", input: line + "\n\u{4}")
        #expect(shown.contains("ck: reading the batch (one JSON request a line) from the terminal; end it with Ctrl-D at the start of a line (Ctrl-C cancels)"), "\(shown)")
        #expect(try s.ck("record", "fetch", "typed-1", "-o", "name").stdout == "typed-1\n")
        let fields = try onTerminal(s, "record save Note --name typed-2 --fields-stdin -o name", input: #"{"title": {"value": "x"}}"# + "\n\u{4}")
        #expect(fields.contains("ck: reading the fields (one JSON object) from the terminal;"), "\(fields)")
        let piped = try s.ck("record", "save", "--batch", "-", "-o", "name", stdin: line.replacingOccurrences(of: "typed-1", with: "piped-1") + "\n")
        #expect(piped.status == 0 && piped.stderr.isEmpty, "\(piped.stderr)")
    }

    /// A batch line that is valid JSON with a value of the wrong type is not told to fix its JSON syntax.
    @Test func aWrongTypedBatchValueGetsAHintAboutItsLineNotJSONSyntax() throws {
        let s = try Sandbox()
        try s.write(#"{"recordName": "a", "recordType": "Note", "fields": {"n": {"value": "abc", "type": "INT64"}}}"# + "\n", to: "typed.jsonl")
        let typed = try s.ck("record", "save", "--batch", "typed.jsonl")
        #expect(typed.status == 8)
        #expect(typed.stderr.contains("$.fields.n.value: expected an integer for INT64, found string"), "\(typed.stderr)")
        #expect(typed.stderr.contains("hint: nothing was saved: fix line 1 and run the command again"), "\(typed.stderr)")
        #expect(!typed.stderr.contains("must be one JSON object"), "\(typed.stderr)")
        // A line that is not JSON still gets the syntax hint.
        try s.write(#"{"recordName": "a","# + "\n", to: "broken.jsonl")
        let broken = try s.ck("record", "save", "--batch", "broken.jsonl")
        #expect(broken.stderr.contains("hint: each line must be one JSON object (a record or an operation); nothing was saved"), "\(broken.stderr)")
    }

    /// One thing is said in the singular: one kept edit, one field with bad indexes, one matching record.
    @Test func oneThingIsSingular() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Work")
        try s.ck("device", "save", "phone", "Note", "--name", "k1", "-z", "Work", "t=1")
        try s.ck("fault", "add", "--error", "serverRejectedRequest", "--op", "save", "--type", "Note", "--times", "1")
        let sync = try s.ck("sync", "phone")
        #expect(sync.status == 10)
        #expect(sync.stderr.hasPrefix("ck: partialFailure (2): 1 edit stays pending on device 'phone'\n"), "\(sync.stderr)")

        let schema = try s.ck("schema", "validate", "-", stdin: "DEFINE SCHEMA\nRECORD TYPE A (x INT64 SEARCHABLE);\n")
        #expect(schema.stderr.hasPrefix("ck: invalidArguments (12): <stdin>: 1 field carries indexes their type can't have\n"), "\(schema.stderr)")

        let target = ["--team-id", "T", "--container-id", "iCloud.com.example.One", "--environment", "development", "--database-type", "private", "-q"]
        #expect(try s.run(["cktool", "create-record", "--record-type", "Note", "--fields-json", #"{"n": {"type": "int64Type", "value": 1}}"#] + target).status == 0)
        let dry = try s.run(["cktool", "delete-records", "--record-type", "Note", "--filters", "n == 1"] + target)
        #expect(dry.stdout == "Dry run. Found 1 matching record to delete.\n")
        let done = try s.run(["cktool", "delete-records", "--record-type", "Note", "--filters", "n == 1", "--dry-run", "false", "-y"] + target)
        #expect(done.stdout == "Deleted 1 record.\n")
    }

    /// `ck --help` shows that ck takes options and which help topics there are.
    @Test func mainHelpShowsOptionsAndTopics() throws {
        let s = try Sandbox()
        let help = try s.ck("--help").stdout
        #expect(help.contains("\nUSAGE: ck <subcommand> [options]\n"))
        #expect(help.contains("""

            HELP TOPICS: clock, environment, exit-codes, faults, formats, kv, model, output,
            permissions, predicates, sharing, store (see 'ck help <topic>').

            """), "\(help)")
    }

    /// On a terminal, a confirmed deploy lists its changes once (with the question), and a sync that has nothing to
    /// do says so; piped, that sync prints nothing, for scripts.
    @Test func onATerminalDeployListsOnceAndAnIdleSyncSaysSo() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Book", "--name", "b1", "title=Dune")
        let deploy = try onTerminal(s, "schema deploy", input: "y\n")
        #expect(deploy.components(separatedBy: "+ record type Book\n").count == 2, "listed once: \(deploy)")
        #expect(deploy.contains("Deploy 3 changes to production? [y/N] "), "\(deploy)")
        #expect(try s.ck("-e", "production", "schema", "show", "Book").status == 0, "deployed")

        try s.ck("zone", "create", "Work")
        try s.ck("-z", "Work", "sync", "phone")
        #expect(try onTerminal(s, "-z Work sync phone") == "phone is up to date: nothing to push or pull\n")
        let piped = try s.ck("-z", "Work", "sync", "phone")
        #expect(piped.status == 0 && piped.stdout == "" && piped.stderr == "")
    }

    /// A write only a custom role may make names that role and the user in the command to run, and that command works.
    @Test func aPermissionFailureNamesTheRoleToAssign() throws {
        let s = try Sandbox()
        let schema = """
            DEFINE SCHEMA
            CREATE ROLE Moderator;
            RECORD TYPE Post (title STRING, GRANT WRITE TO "Moderator", GRANT CREATE TO "_icloud", GRANT READ TO "_world");

            """
        #expect(try s.ck("schema", "import", "-", stdin: schema).status == 0)
        #expect(try s.ck("--db", "public", "record", "save", "Post", "--name", "p1", "title=a").status == 0)
        let denied = try s.ck("--as", "bob", "--db", "public", "record", "save", "Post", "--name", "p1", "title=b", "--policy", "changed-keys")
        #expect(denied.status == 7)
        // A refused write lists nobody, and a role goes to a listed user: the hint's commands list bob first.
        #expect(denied.stderr.contains("\nhint: assign the role that has it: 'ck user create bob', then 'ck role assign Moderator bob', or grant it in the schema"),
                "\(denied.stderr)")
        #expect(try s.ck("user", "create", "bob").status == 0)
        #expect(try s.ck("role", "assign", "Moderator", "bob").status == 0)
        #expect(try s.ck("--as", "bob", "--db", "public", "record", "save", "Post", "--name", "p1", "title=b", "--policy", "changed-keys").status == 0)
        // A listed user is told the one command.
        try s.ck("user", "create", "carol")
        let listed = try s.ck("--as", "carol", "--db", "public", "record", "save", "Post", "--name", "p1", "title=c", "--policy", "changed-keys")
        #expect(listed.status == 7)
        #expect(listed.stderr.contains("\nhint: assign the role that has it: 'ck role assign Moderator carol', or grant it in the schema"), "\(listed.stderr)")
    }

    /// ck exec takes no --replace: a second --import into the same environment says what to do instead.
    @Test func execTwiceImportingOneDocumentHintsNoReplace() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "n1", "t=1")
        try s.ck("export", "--file", "seed.json")
        let r = try s.ck("exec", "--import", "seed.json", "--import", "seed.json", "--", "true")
        #expect(r.status != 0)
        #expect(!r.stderr.contains("--replace"), "\(r.stderr)")
        #expect(r.stderr.contains("\nhint: --import seed.json is given twice; an earlier --import filled this environment already: merge the documents into one, or give each a different container or environment\n"),
                "\(r.stderr)")
    }

    /// A device edit without -z names the user's custom zones instead of suggesting to create one.
    @Test func deviceSaveWithoutZoneNamesTheZonesThatExist() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Work")
        try s.ck("zone", "create", "Home")
        let r = try s.ck("device", "save", "phone", "Note", "title=x")
        #expect(r.status == 8)
        #expect(r.stderr.hasSuffix("\nhint: pass -z with a custom zone of yours: Home, Work (e.g. -z Home)\n"), "\(r.stderr)")
        #expect(try s.ck("device", "list").stdout == "", "the refused edit made no device")
        try s.ck("sync", "phone")
        let removed = try s.ck("device", "remove", "phone", "n1")
        #expect(removed.stderr.hasSuffix("\nhint: pass -z with a custom zone of yours: Home, Work (e.g. -z Home)\n"), "\(removed.stderr)")
        // With no custom zone yet, making one is the next step.
        let fresh = try Sandbox()
        let none = try fresh.ck("device", "save", "phone", "Note", "title=x")
        #expect(none.stderr.hasSuffix("\nhint: create a zone ('ck zone create Notes') and pass -z Notes\n"), "\(none.stderr)")
    }
}
