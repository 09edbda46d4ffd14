import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A store handed over by someone else (a cloned repository's `.ck/`) can't turn ck against its user: a planted
/// intent record or a symbolic link in place of any directory or file of the store makes the command fail naming
/// the link, nothing outside the store changes, and doctor reports it (docs/store.md, "Links").
@Suite struct StoreSymlinkTests {
    let user = "_38691fd977d484b8b25e1808632b7d11"
    let container = "iCloud.ck.default"
    let refusal = ": is a symbolic link; ck does not follow links inside the store"

    /// Every entry below `dir` (links not followed) with its content: a file's bytes (base64), a link's target.
    func snapshot(_ dir: String) -> [String: String] {
        var out: [String: String] = [:]
        func walk(_ path: String, _ rel: String) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                let full = path + "/" + name, key = rel + name
                var st = stat()
                guard lstat(full, &st) == 0 else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: out[key + "/"] = "dir"; walk(full, key + "/")
                case S_IFLNK: out[key] = "link → " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: full)) ?? "?")
                default: out[key] = (try? Data(contentsOf: URL(fileURLWithPath: full)))?.base64EncodedString() ?? "<unreadable>"
                }
            }
        }
        walk(dir, "")
        return out
    }

    /// A store with a record in the default private zone, a custom zone Z with a record, a kv key and a public
    /// record; returns the sandbox and the store root.
    func populated() throws -> (Sandbox, String) {
        let s = try Sandbox()
        for args in [["zone", "create", "Z"], ["record", "save", "Note", "--name", "a", "t=1"],
                     ["-z", "Z", "record", "save", "Note", "--name", "z", "t=1"], ["kv", "set", "k", "v"],
                     ["--db", "public", "record", "save", "Note", "--name", "p", "t=1"]] {
            let r = try s.run(args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
        }
        return (s, s.dir + "/store")
    }

    /// Moves the store's `relative` out to `<sandbox>/outside/<name>` and leaves a link to it in its place.
    func plantLink(_ s: Sandbox, _ root: String, _ relative: String) throws -> (link: String, outside: String) {
        let outside = s.dir + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let link = root + "/" + relative
        let target = outside + "/" + (relative as NSString).lastPathComponent
        #expect(rename(link, target) == 0, "cannot move \(link) aside")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        return (link, outside)
    }

    struct Attack {
        let relative: String
        /// Commands that must refuse, naming the link.
        let refused: [[String]]
    }

    var env: String { "containers/\(container)/development" }

    var attacks: [Attack] {
        let save = ["record", "save", "Note", "--name", "n", "t=2"]
        let fetch = ["record", "fetch", "a"]
        let dropZone = ["zone", "delete", "Z", "-y"]
        return [
            Attack(relative: "containers", refused: [save, fetch, ["zone", "list"]]),
            Attack(relative: "containers/\(container)", refused: [save, fetch, ["kv", "set", "k2", "v"], ["user", "list"]]),
            Attack(relative: env, refused: [save, fetch, ["kv", "set", "k2", "v"], ["fault", "add", "--error", "zoneBusy"],
                                            ["-z", "Z", "subscription", "create", "zone", "--id", "zs"], ["record", "save", "Photo", "--name", "q", "x=1"]]),
            Attack(relative: env + "/private", refused: [save, fetch, dropZone, ["zone", "list"]]),
            Attack(relative: env + "/private/\(user)", refused: [save, fetch, dropZone]),
            Attack(relative: env + "/public", refused: [["--db", "public", "record", "save", "Note", "--name", "p2", "t=1"], ["--db", "public", "record", "fetch", "p"]]),
            Attack(relative: env + "/kv", refused: [["kv", "set", "k2", "v"], ["kv", "get", "k"]]),
            Attack(relative: env + "/private/\(user)/_defaultZone.jsonl", refused: [save, fetch]),
            Attack(relative: env + "/private/\(user)/Z.jsonl", refused: [dropZone, ["-z", "Z", "record", "save", "Note", "--name", "y", "t=1"]]),
            Attack(relative: "containers/\(container)/container.json", refused: [["user", "list"], save]),
            // SQLite opens the index by name: the link is refused before it can follow it.
            Attack(relative: env + "/.index.sqlite", refused: [save, fetch]),
        ]
    }

    @Test func aLinkInPlaceOfADirectoryOrFileOfTheStoreIsRefusedAndNothingOutsideChanges() throws {
        for attack in attacks {
            let (s, root) = try populated()
            let (link, outside) = try plantLink(s, root, attack.relative)
            let before = snapshot(outside)
            #expect(!before.isEmpty, "\(attack.relative): nothing was moved outside")
            for args in attack.refused {
                let r = try s.run(args)
                #expect(r.status == 1, "\(attack.relative): \(args) exited \(r.status): \(r.stderr)")
                #expect(r.stderr.contains(link + refusal), "\(attack.relative): \(args): \(r.stderr)")
                #expect(r.stderr.contains("ck doctor"), "\(attack.relative): \(args): \(r.stderr)")
                #expect(snapshot(outside) == before, "\(attack.relative): \(args) changed the outside directory")
            }
            let doctor = try s.ck("doctor")
            #expect(doctor.status == 1, "\(attack.relative): \(doctor.stdout)")
            #expect(doctor.stdout.contains("problem\t\(link)\ta symbolic link: ck refuses to follow links inside the store"),
                    "\(attack.relative): \(doctor.stdout)")
            #expect(snapshot(outside) == before, "\(attack.relative): doctor changed the outside directory")
        }
    }

    /// doctor --repair moves the link itself into lost+found, never what it points to.
    @Test func repairMovesTheLinkNotItsTarget() throws {
        let (s, root) = try populated()
        let (link, outside) = try plantLink(s, root, env + "/private")
        let before = snapshot(outside)
        let repair = try s.ck("doctor", "--repair")
        #expect(repair.stdout.contains("problem\t\(link)\ta symbolic link: ck refuses to follow links inside the store"), "\(repair.stdout)")
        #expect(repair.stdout.contains("the link itself (not what it points to) moved to \(root)/lost+found/"), "\(repair.stdout)")
        #expect(snapshot(outside) == before)
        var st = stat()
        #expect(lstat(link, &st) != 0, "the link is still in the store")
        let moved = snapshot(root + "/lost+found").filter { $0.value == "link → " + outside + "/private" }
        #expect(moved.count == 1, "\(snapshot(root + "/lost+found"))")
        // The store works again (the private records are outside now, so the user starts empty).
        #expect(try s.ck("record", "save", "Note", "--name", "n", "t=2").status == 0)
        #expect(snapshot(outside) == before)
    }

    /// Writes the intent record of an interrupted operation into `base` with an empty pending tree.
    func plantIntent(_ base: String, operation: String, steps: [String]) throws {
        for dir in ["old", "new"] {
            try FileManager.default.createDirectory(atPath: base + "/.pending-1/" + dir, withIntermediateDirectories: true)
        }
        let list = steps.map { #"{"path":"\#($0)","replaced":false}"# }.joined(separator: ",")
        try #"{"format":1,"operation":"\#(operation)","pending":".pending-1","steps":[\#(list)]}"#
            .write(toFile: base + "/.intent.json", atomically: true, encoding: .utf8)
    }

    /// A fake home with an .ssh directory, outside the store.
    func victim(_ s: Sandbox) throws -> String {
        let home = s.dir + "/victim"
        try FileManager.default.createDirectory(atPath: home + "/.ssh", withIntermediateDirectories: true)
        try "secret key".write(toFile: home + "/.ssh/id_ed25519", atomically: true, encoding: .utf8)
        return home
    }

    @Test func aPlantedIntentRecordNeverDeletesOutsideTheStore() throws {
        let s = try Sandbox(store: false)
        #expect(try s.ck("init").status == 0)
        let store = s.dir + "/.ck"
        let home = try victim(s)
        try FileManager.default.createSymbolicLink(atPath: store + "/home", withDestinationPath: home)
        try plantIntent(store, operation: "container delete \(container)", steps: ["home/.ssh"])
        let before = snapshot(home)

        let r = try s.ck("zone", "list")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("\(store)/.intent.json: step \"home/.ssh\" is not a path a 'container delete \(container)' changes; nothing was done"), "\(r.stderr)")
        #expect(r.stderr.contains("ck doctor"), "\(r.stderr)")
        #expect(snapshot(home) == before, "the planted intent changed the fake home")
        #expect(FileManager.default.fileExists(atPath: home + "/.ssh/id_ed25519"))

        let doctor = try s.ck("doctor")
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("problem\t\(store)/.intent.json\tstep \"home/.ssh\" is not a path a 'container delete \(container)' changes"), "\(doctor.stdout)")
        #expect(doctor.stdout.contains("problem\t\(store)/home\ta symbolic link"), "\(doctor.stdout)")
        #expect(snapshot(home) == before)

        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        #expect(repair.stdout.contains("\(store)/.intent.json\tstep \"home/.ssh\""), "\(repair.stdout)")
        #expect(repair.stdout.contains("moved to \(store)/lost+found/"), "\(repair.stdout)")
        #expect(snapshot(home) == before)
        #expect(!FileManager.default.fileExists(atPath: store + "/.intent.json"))
        #expect(try s.ck("zone", "list").status == 0)
        #expect(snapshot(home) == before)
    }

    /// A step its operation may name, but reached through a link: recovery refuses the link, and moves nothing.
    @Test func anIntentStepThroughALinkIsNeverFollowed() throws {
        let s = try Sandbox()
        #expect(try s.ck("init").status == 0)
        let store = s.dir + "/store"
        let home = try victim(s)
        // devices/ → the fake home: a container delete of ".ssh" would name devices/.ssh. Refused as a name;
        // a container delete of "x" names devices/x, reached only through the link.
        try FileManager.default.createDirectory(atPath: home + "/x", withIntermediateDirectories: true)
        try "data".write(toFile: home + "/x/f", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: store + "/devices", withDestinationPath: home)
        try plantIntent(store, operation: "container delete x", steps: ["devices/x"])
        let before = snapshot(home)
        let r = try s.ck("zone", "list")
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.contains("\(store)/devices" + refusal), "\(r.stderr)")
        #expect(snapshot(home) == before, "recovery followed the link")

        // An environment intent naming a path its operations never change (the lock, a file at the root).
        let env = store + "/" + self.env
        try plantIntent(env, operation: "zone delete", steps: [".lock"])
        try FileManager.default.removeItem(atPath: store + "/devices")
        try FileManager.default.removeItem(atPath: store + "/.intent.json")
        try FileManager.default.removeItem(atPath: store + "/.pending-1")
        let e = try s.ck("record", "save", "Note", "--name", "n", "t=1")
        #expect(e.status == 1, "\(e.stderr)")
        #expect(e.stderr.contains("\(env)/.intent.json: step \".lock\" is not a path a 'zone delete' changes"), "\(e.stderr)")
        let doctor = try s.ck("doctor")
        #expect(doctor.stdout.contains("problem\t\(env)/.intent.json\tstep \".lock\""), "\(doctor.stdout)")
        #expect(FileManager.default.fileExists(atPath: env + "/.lock"))
    }

    /// A link above the store root (a --data-dir that is a link) is the user's choice and is followed.
    @Test func aLinkAboveTheStoreRootIsFine() throws {
        let s = try Sandbox(store: false)
        let real = s.dir + "/real"
        try FileManager.default.createDirectory(atPath: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: s.dir + "/via", withDestinationPath: real)
        let save = try s.ck("--data-dir", "via/store", "record", "save", "Note", "--name", "a", "t=1")
        #expect(save.status == 0, "\(save.stderr)")
        #expect(try s.ck("--data-dir", "via/store", "record", "fetch", "a").status == 0)
        #expect(FileManager.default.fileExists(atPath: real + "/store/ck.json"))
        let doctor = try s.ck("--data-dir", "via/store", "doctor")
        #expect(doctor.status == 0, "\(doctor.stdout)")
    }
}
