import Foundation
import Testing

/// Damaged or dangling store files (issue 28, "doctor and debris"): they never block work they need not block,
/// doctor names each one with its fix, and `doctor --repair` keeps what it moves in lost+found.
@Suite struct StoreDebrisTests {
    func env(_ s: Sandbox) -> String { s.dir + "/store/containers/iCloud.ck.default/development" }

    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func aDamagedFaultsFileWarnsThenDoctorMovesItAside() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        #expect(try s.ck("fault", "add", "--error", "requestRateLimited", "--op", "save").status == 0)
        let faults = env(s) + "/faults.json"
        let damaged = "{\"rules\": [\n"
        try damaged.write(toFile: faults, atomically: true, encoding: .utf8)

        // Reads and writes go on without fault rules (the rule above would refuse the save), naming the file.
        let fetch = try s.ck("record", "fetch", "a")
        #expect(fetch.status == 0)
        #expect(fetch.stdout.hasPrefix("a\tNote\t"))
        #expect(fetch.stderr.contains("ck: warning: \(faults):2:1: invalid JSON"))
        #expect(fetch.stderr.contains("'ck doctor --repair'"))
        let save = try s.ck("record", "save", "Note", "--name", "b", "t=2")
        #expect(save.status == 0, "\(save.stderr)")
        #expect(try read(faults) == damaged, "a damaged file is neither consumed nor overwritten")
        // ck fault itself would rewrite the rules: it refuses, naming the file.
        let list = try s.ck("fault", "list")
        #expect(list.status == 1)
        #expect(list.stderr.contains("\(faults):2:1: invalid JSON"))

        let check = try s.ck("doctor")
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem\t\(faults):2:1\tinvalid JSON"))
        #expect(try read(faults) == damaged, "doctor without --repair changes nothing")

        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        #expect(!FileManager.default.fileExists(atPath: faults))
        let kept = s.files(under: s.dir + "/store/lost+found").filter { $0.hasSuffix("/development/faults.json") }
        #expect(kept.count == 1)
        #expect(try kept.first.map { try read(s.dir + "/store/lost+found/" + $0) } == damaged)
        #expect(try s.ck("doctor").status == 0)
        let after = try s.ck("record", "fetch", "a")
        #expect(after.status == 0 && after.stderr.isEmpty)
    }

    @Test func aFaultsFileWithAnInvalidRuleIsNamedByDoctor() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let faults = env(s) + "/faults.json"
        // Valid JSON, but no CloudKit error is called "nope".
        try "{\"format\": 1, \"nextID\": 2, \"rules\": [{\"id\": \"f1\", \"error\": \"nope\"}]}\n"
            .write(toFile: faults, atomically: true, encoding: .utf8)
        let fetch = try s.ck("record", "fetch", "a")
        #expect(fetch.status == 0)
        #expect(fetch.stderr.contains("\(faults):1: rules[0] (f1): \"error\" must name a CloudKit error"))
        let check = try s.ck("doctor")
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem\t\(faults):1\trules[0] (f1)"))
        #expect(try s.ck("doctor", "--repair").status == 0)
        #expect(!FileManager.default.fileExists(atPath: faults))
        #expect(try s.ck("doctor").status == 0)
    }

    @Test func aDamagedServeAuthFileIsNamedAndMovedAside() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let auth = s.dir + "/store/containers/iCloud.ck.default/auth.json"
        try "[1, 2".write(toFile: auth, atomically: true, encoding: .utf8)
        let check = try s.ck("doctor")
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem\t\(auth):1:"))
        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        #expect(!FileManager.default.fileExists(atPath: auth))
        #expect(s.files(under: s.dir + "/store/lost+found").contains { $0.hasSuffix("/iCloud.ck.default/auth.json") })
        #expect(try s.ck("doctor").status == 0)

        // serve.json that is not what ck serve writes stops 'ck serve log'; doctor names it and moves it aside.
        let serve = s.dir + "/store/serve.json"
        try "{\"url\": 3}".write(toFile: serve, atomically: true, encoding: .utf8)
        #expect(try s.ck("serve", "log").status == 1)
        let stale = try s.ck("doctor")
        #expect(stale.status == 1 && stale.stdout.contains("problem\t\(serve)\tnot a ck serve advertisement ({url, pid, started})\t"), "\(stale.stdout)")
        #expect(try s.ck("doctor", "--repair").status == 0)
        #expect(!FileManager.default.fileExists(atPath: serve))
        #expect(try s.ck("doctor").status == 0)
    }

    @Test func ckJSONNamingAMissingContainerIsReportedWithTheFix() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let config = s.dir + "/store/ck.json"
        let dangling = "{\"format\": 1, \"currentContainer\": \"iCloud.gone.app\"}\n"
        try dangling.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(try s.ck("record", "fetch", "a").status == 3, "every command without --container fails")

        let check = try s.ck("doctor")
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem\t\(config)\tnames 'iCloud.gone.app' as the current container, but the store has no such container\t"
                                      + "'ck container use iCloud.ck.default', 'ck container create iCloud.gone.app --use'"), "\(check.stdout)")
        #expect(try read(config) == dangling, "doctor without --repair changes nothing")

        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        let kept = s.files(under: s.dir + "/store/lost+found").filter { $0.hasSuffix("/ck.json") }
        #expect(try kept.first.map { try read(s.dir + "/store/lost+found/" + $0) } == dangling)
        #expect(try s.ck("record", "fetch", "a").stdout.hasPrefix("a\tNote\t"), "the only container is current again")
        #expect(try s.ck("doctor").status == 0)
    }

    @Test func aDeleteThatDeletesNothingCreatesNoStoreAndListsNoUser() throws {
        let s = try Sandbox()
        let store = s.dir + "/store"
        let fresh = try s.ck("record", "delete", "x")
        #expect(fresh.status == 3)
        #expect(fresh.stderr.hasPrefix("ck: badContainer (5): no ck store at \(store) (from CK_DATA_DIR); 'ck record delete' only removes and there is nothing to remove, so it does not create one\n"), "\(fresh.stderr)")
        #expect(try s.ck("zone", "delete", "Work", "-y").status == 3)
        #expect(try s.ck("kv", "remove", "k").status == 3)
        #expect(!FileManager.default.fileExists(atPath: store), "no store was made")

        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let users = try s.ck("user", "list").stdout
        // bob deletes a record he does not have: nothing changes, and the container does not learn of him.
        let missing = try s.ck("--as", "bob", "record", "delete", "x")
        #expect(missing.status == 3 && missing.stderr.hasPrefix("ck: unknownItem (11): Record not found: 'x'"))
        #expect(try s.ck("user", "list").stdout == users)
        // Once he writes, he is listed.
        #expect(try s.ck("--as", "bob", "record", "save", "Note", "--name", "b", "t=2").status == 0)
        #expect(try s.ck("user", "list").stdout.contains("bob\t"))
    }

    @Test(RequiredTool.needed("flock")) func aWaiterGivesUpOnAStuckLockNamingItsHolder() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let lock = env(s) + "/.lock"
        // A stuck holder: flock(1) takes the environment's lock and keeps it until its command ends, which is
        // when the test closes the command's stdin (or, should ck wait for ever, after 30 s: then the save passes
        // and the test fails instead of hanging).
        let holder = try FlockHolder(lock)
        defer { holder.release() }

        let pid = holder.pid
        let r = try s.run(["record", "save", "Note", "--name", "b", "t=2"], env: ["CK_LOCK_TIMEOUT": "0.5"])
        #expect(r.status == 5)
        #expect(r.stderr.contains("ck: serviceUnavailable (6): gave up after 0.5 s waiting for the lock on \(lock), held by pid \(pid) (\(holder.program) -x -o "), "\(r.stderr)")
        #expect(r.stderr.contains("hint: if it is stuck, stop it ('kill \(pid)') and try again; CK_LOCK_TIMEOUT sets how many seconds to wait (default 300)\n"))
        let bad = try s.run(["record", "fetch", "a"], env: ["CK_LOCK_TIMEOUT": "soon"])
        #expect(bad.status == 8 && bad.stderr.hasPrefix("ck: invalidArguments (12): CK_LOCK_TIMEOUT: 'soon' is not a number of seconds greater than 0\n"))

        holder.release()
        // The waiter wrote nothing; with the holder gone, ck goes on.
        #expect(try s.ck("record", "fetch", "b").status == 3)
        #expect(try s.ck("record", "fetch", "a").stdout.hasPrefix("a\tNote\t"))
    }

    /// A root pending tree of a container delete or import killed before it committed (no intent record): nothing
    /// refers to it, so the next command removes it, and only it (never through a link).
    @Test func aDeadRootPendingTreeGoesWithTheNextCommand() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let store = s.dir + "/store"
        let pending = store + "/.pending-5eed"
        try FileManager.default.createDirectory(atPath: pending + "/new/0/development", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: pending + "/old", withIntermediateDirectories: true)
        try "{}".write(toFile: pending + "/new/0/container.json", atomically: true, encoding: .utf8)
        // A link in it to a directory outside the store: removing the tree must not follow it.
        let outside = s.dir + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try "keep".write(toFile: outside + "/keep.txt", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: pending + "/old/0", withDestinationPath: outside)

        let save = try s.ck("record", "save", "Note", "--name", "b", "t=2")
        #expect(save.status == 0, "\(save.stderr)")
        #expect(!FileManager.default.fileExists(atPath: pending), "the dead pending tree outlived the write")
        #expect(try read(outside + "/keep.txt") == "keep")
        let check = try s.ck("doctor")
        #expect(check.status == 0 && !check.stdout.contains(".pending-"), "\(check.stdout)")
        #expect(try s.ck("record", "fetch", "a", "b").status == 0)
    }

    /// A pending tree whose process still runs (it holds the tree's lock, as an import building a new container
    /// does outside the root lock) is not a leftover: other commands leave it alone.
    @Test(RequiredTool.needed("flock")) func aLivePendingTreeIsLeftAlone() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let pending = s.dir + "/store/.pending-11fe"
        try FileManager.default.createDirectory(atPath: pending + "/new", withIntermediateDirectories: true)
        let holder = try FlockHolder(pending)
        defer { holder.release() }

        #expect(try s.ck("record", "save", "Note", "--name", "b", "t=2").status == 0)
        #expect(try s.ck("doctor", "--repair").status == 0)
        #expect(FileManager.default.fileExists(atPath: pending + "/new"), "a live operation's tree was removed")
        holder.release()
        // Its process gone, the tree is a leftover like any other.
        #expect(try s.ck("record", "save", "Note", "--name", "c", "t=3").status == 0)
        #expect(!FileManager.default.fileExists(atPath: pending))
    }

    /// A temporary file of a user's key-value store (a rewrite cut short): doctor names it for what it is and
    /// --repair moves it into lost+found.
    @Test func aKeyValueTemporaryFileIsMovedAsideByRepair() throws {
        let s = try Sandbox()
        #expect(try s.ck("kv", "set", "theme", "dark").status == 0)
        let user = "_38691fd977d484b8b25e1808632b7d11"
        let temp = env(s) + "/kv/.\(user).json.tmp-3f2a-4242"
        try "{\"format\": 1, \"kee".write(toFile: temp, atomically: true, encoding: .utf8)

        let check = try s.ck("doctor")
        #expect(check.status == 0)
        #expect(check.stdout.contains("warning\t\(temp)\ttemporary file of the key-value store left by an interrupted write (never read)\tharmless; 'ck doctor --repair' moves it into lost+found"), "\(check.stdout)")
        #expect(FileManager.default.fileExists(atPath: temp), "doctor without --repair changes nothing")

        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        #expect(!FileManager.default.fileExists(atPath: temp))
        let kept = s.files(under: s.dir + "/store/lost+found").filter { $0.hasSuffix("/development/kv/.\(user).json.tmp-3f2a-4242") }
        #expect(kept.count == 1, "\(s.files(under: s.dir + "/store/lost+found"))")
        #expect(try kept.first.map { try read(s.dir + "/store/lost+found/" + $0) } == "{\"format\": 1, \"kee")
        let after = try s.ck("doctor")
        #expect(after.status == 0 && !after.stdout.contains("tmp-"), "\(after.stdout)")
        #expect(try s.ck("kv", "get", "theme").stdout == "dark\n")
    }

    /// An older ck's `container create` killed before container.json: environments half made, no container.json.
    /// Doctor names it; --repair moves it into lost+found; the identifier can then be created anew.
    @Test func aHalfMadeContainerIsNamedAndMovedAsideByDoctor() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let half = s.dir + "/store/containers/iCloud.com.example.Half"
        try FileManager.default.createDirectory(atPath: half + "/development/public", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: half + "/development/private", withIntermediateDirectories: true)
        try "{\"format\": 1, \"recordTypes\": {}, \"roles\": []}\n".write(toFile: half + "/development/schema.json", atomically: true, encoding: .utf8)

        let check = try s.ck("doctor")
        #expect(check.status == 1)
        #expect(check.stdout.contains("problem\t\(half)\ta half-made container: no container.json and no data (a 'container create' that was interrupted)"), "\(check.stdout)")
        #expect(FileManager.default.fileExists(atPath: half + "/development/schema.json"))

        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        #expect(!FileManager.default.fileExists(atPath: half))
        #expect(s.files(under: s.dir + "/store/lost+found").contains { $0.hasSuffix("containers/iCloud.com.example.Half/development/schema.json") })
        let after = try s.ck("doctor")
        #expect(after.status == 0, "\(after.stdout)")
        #expect(try s.ck("container", "create", "iCloud.com.example.Half").status == 0)
        #expect(try s.ck("-c", "iCloud.com.example.Half", "record", "save", "Note", "--name", "x", "t=1").status == 0)
        #expect(try s.ck("doctor").status == 0)
    }

    /// `container create` killed at each call that changes a file (strace, as KillPointTests): the container is
    /// there whole or not at all, doctor finds no problem, and the next command leaves no pending tree.
    @Test(RequiredTool.needed("strace")) func aKilledContainerCreateLeavesAllOrNothing() throws {
        let strace = try RequiredTool.require("strace")
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let store = s.dir + "/store"
        let pristine = s.dir + "/pristine"
        try FileManager.default.copyItem(atPath: store, toPath: pristine)
        let id = "iCloud.com.example.New"
        let trace = s.dir + "/trace.txt"
        let listed = try s.run(["-f", "-qq", "-o", trace, "-e", "trace=" + KillPoints.calls, "--", Sandbox.binary, "container", "create", id], program: strace)
        #expect(listed.status == 0, "\(listed.stderr)")
        let points = KillPoints.changingCalls(try String(contentsOfFile: trace, encoding: .utf8))
        #expect(points.count > 5)
        var whole = 0, none = 0
        for p in points {
            try? FileManager.default.removeItem(atPath: store)
            try FileManager.default.copyItem(atPath: pristine, toPath: store)
            let killed = try s.run(["-f", "-qq", "-o", "/dev/null", "-e", "trace=" + KillPoints.calls,
                                    "-e", "inject=\(p.call):signal=KILL:when=\(p.occurrence)", "--", Sandbox.binary, "container", "create", id],
                                   program: strace)
            let at = "\(p.call) #\(p.occurrence)"
            #expect(killed.status != 0, "\(at): not killed")
            let dir = store + "/containers/" + id
            let listing = try s.ck("container", "list").stdout
            if FileManager.default.fileExists(atPath: dir + "/container.json") {
                whole += 1
                for e in ["development", "production"] {
                    for f in ["schema.json", "zones.json", "public", "private", "assets"] {
                        #expect(FileManager.default.fileExists(atPath: dir + "/" + e + "/" + f), "\(at): \(e)/\(f) missing")
                    }
                }
                #expect(listing.contains(id), "\(at): \(listing)")
            } else {
                none += 1
                #expect(!FileManager.default.fileExists(atPath: dir), "\(at): a half container was left")
                #expect(!listing.contains(id), "\(at): \(listing)")
            }
            let doctor = try s.ck("doctor")
            #expect(doctor.status == 0, "\(at): \(doctor.stdout.prefix(400))")
            let left = s.files(under: store).filter { ($0 as NSString).lastPathComponent.hasPrefix(".pending-") || $0.hasSuffix(".intent.json") }
            #expect(left.isEmpty, "\(at): left: \(left.prefix(3))")
        }
        #expect(whole > 0 && none > 0, "kill points: \(whole) whole, \(none) none")
    }
}

/// flock(1) holding an exclusive lock on a file, as a stuck process would, until `release` (or 30 s: then the test
/// fails instead of hanging).
final class FlockHolder {
    let program: String
    private let process = Process()
    private let input = Pipe()

    /// Starts flock on `path` and returns once it holds the lock.
    init(_ path: String) throws {
        program = try RequiredTool.require("flock")
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = ["-x", "-o", path, "-c", "echo held; exec timeout 30 head -n 1"]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = input
        try process.run()
        #expect(String(decoding: out.fileHandleForReading.availableData, as: UTF8.self) == "held\n")
    }

    var pid: Int32 { process.processIdentifier }

    /// Lets go of the lock (closes flock's stdin) and waits for it to end.
    func release() {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}
