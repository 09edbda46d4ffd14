import Foundation
import Testing

/// `ck exec`: a command run against a temporary store seeded from fixtures, its status passed back, the store removed.
@Suite struct ExecTests {
    /// A sandbox whose temporary directory is its own, so what exec leaves there can be checked.
    func sandbox() throws -> Sandbox {
        let s = try Sandbox()
        try FileManager.default.createDirectory(atPath: s.dir + "/tmp", withIntermediateDirectories: true)
        s.environment["TMPDIR"] = s.dir + "/tmp"
        s.environment["CK"] = Sandbox.binary
        try s.write(FixturesTests.minimal, to: "fixtures.json")
        return s
    }

    func leftovers(_ s: Sandbox) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: s.dir + "/tmp") }

    @Test func seedsRunsPassesStreamsAndCleansUp() throws {
        let s = try sandbox()
        let r = try s.run(["exec", "--import", "fixtures.json", "--", "sh", "-c",
                           "\"$CK\" record fetch n1; \"$CK\" -z Work record fetch t1; echo \"$CK_CONTAINER $CK_ENV\"; cat; echo oops >&2; test -f \"$CK_DATA_DIR/ck.json\""],
                       stdin: "from stdin\n")
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(r.stdout)")
        #expect(lines.first?.hasPrefix("n1\tNote\t") == true)
        #expect(lines.dropFirst().first?.hasPrefix("t1\tTask\t") == true)
        #expect(Array(lines.suffix(2)) == ["iCloud.ck.default development", "from stdin"])
        #expect(r.stderr == "oops\n")
        #expect(try leftovers(s).isEmpty, "the temporary store is removed")
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/store"), "the user's own store is not touched")
    }

    @Test func exitStatusIsTheCommands() throws {
        let s = try sandbox()
        #expect(try s.run(["exec", "--", "sh", "-c", "exit 7"]).status == 7)
        #expect(try s.run(["exec", "--", "sh", "-c", "kill -TERM $$"]).status == 128 + 15)
        let missing = try s.run(["exec", "--", "no-such-command-here"])
        #expect(missing.status == 127)
        #expect(missing.stderr == "ck: cannot run 'no-such-command-here': No such file or directory\n")
        #expect(try s.run(["exec"]).status == 64)
        #expect(try leftovers(s).isEmpty)
    }

    @Test func exportsOnExitEvenWhenTheCommandFails() throws {
        let s = try sandbox()
        let r = try s.run(["exec", "--import", "fixtures.json", "--export-on-exit", "after.json", "--", "sh", "-c",
                           "\"$CK\" record save Note --name added title=new >/dev/null && exit 3"])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr == "ck: wrote after.json\n")
        let after = try String(contentsOfFile: s.dir + "/after.json", encoding: .utf8)
        #expect(after.contains("\"recordName\": \"added\"") && after.contains("\"recordName\": \"n1\""))
        #expect(try leftovers(s).isEmpty)
        // What was exported loads as a fixture again.
        let again = try s.run(["exec", "--import", "after.json", "--", "sh", "-c", "\"$CK\" record fetch added"])
        #expect(again.status == 0 && again.stdout.hasPrefix("added\tNote\t"), "\(again.stderr)")
    }

    @Test func aFailedSeedRunsNothingAndCleansUp() throws {
        let s = try sandbox()
        try s.write("{\"format\": \"ck-fixtures/1\", \"records\": [{\"record\": {}}]}", to: "bad.json")
        let r = try s.run(["exec", "--import", "bad.json", "--", "sh", "-c", "echo ran"])
        #expect(r.status == 8)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("bad.json: $.records[0].record.recordName: invalidArguments (12): missing"), "\(r.stderr)")
        #expect(try leftovers(s).isEmpty)
    }

    @Test func sigtermIsPassedOnAndTheStoreStillGoes() throws {
        let s = try sandbox()
        // A shell starts ck exec in the background, waits until its child is ready, sends ck SIGTERM and reports
        // ck's status: the child exits 5 on TERM, so 5 means the signal was passed on and waited for.
        let child = "trap 'exit 5' TERM; : > ready; while :; do sleep 1 & wait $!; done"
        let script = """
            "$CK" exec --import fixtures.json --export-on-exit after.json -- sh -c "$CHILD" &
            pid=$!
            while [ ! -f ready ]; do sleep 0.1; done
            kill -TERM $pid
            wait $pid
            echo "status $?"
            """
        let r = try s.run(["-c", script], program: "/bin/sh", env: ["CHILD": child])
        #expect(r.stdout == "status 5\n", "\(r.stderr)")
        #expect(r.stderr == "ck: wrote after.json\n")
        #expect(FileManager.default.fileExists(atPath: s.dir + "/after.json"))
        #expect(try leftovers(s).isEmpty)
    }
}
