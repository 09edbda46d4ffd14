import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Checked output, symlinks planted in the store, and what interrupted operations leave for doctor
/// (docs/reliability.md).
@Suite struct StoreSafetyTests {
    let user = "_38691fd977d484b8b25e1808632b7d11"
    func env(_ s: Sandbox) -> String { s.dir + "/store/containers/iCloud.ck.default/development" }

    /// Runs ck with stdout going to /dev/full (every write fails with ENOSPC).
    func toFull(_ s: Sandbox, _ args: [String]) throws -> (status: Int32, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Sandbox.binary)
        p.arguments = args
        p.environment = s.environment
        p.currentDirectoryURL = URL(fileURLWithPath: s.dir)
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let err = Pipe()
        p.standardOutput = full
        p.standardError = err
        try p.run()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: e, as: UTF8.self))
    }

    @Test func outputToAFullDiskFails() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        try s.ck("zone", "create", "Z")
        try s.ck("-z", "Z", "record", "save", "Note", "--name", "z", "t=1")
        for args in [["export"], ["record", "fetch", "a"], ["query", "Note", "t == 1"], ["-z", "Z", "changes", "zone"], ["zone", "list"]] {
            let r = try toFull(s, args)
            #expect(r.status == 1, "\(args) to /dev/full exited \(r.status)")
            #expect(r.stderr.contains("ck: internalError (1): cannot write to standard output: No space left on device"), "\(args): \(r.stderr)")
        }
    }

    @Test func fileOutputRefusesSymlinksAndWritesFIFOsInPlace() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        try s.write("keep", to: "target.json")
        try FileManager.default.createSymbolicLink(atPath: s.dir + "/link.json", withDestinationPath: s.dir + "/target.json")
        let r = try s.ck("export", "--file", "link.json")
        #expect(r.status == 8)
        #expect(r.stderr.contains("\(s.dir)/link.json is a symbolic link; ck does not write through it"))
        #expect(try String(contentsOfFile: s.dir + "/target.json", encoding: .utf8) == "keep")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: s.dir + "/link.json")) == s.dir + "/target.json")

        // A FIFO stays a FIFO: the document goes through it.
        let fifo = s.dir + "/pipe"
        #expect(mkfifo(fifo, 0o644) == 0)
        nonisolated(unsafe) var got = Data()
        let reader = Thread { got = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data() }
        reader.start()
        #expect(try s.ck("export", "--file", "pipe").status == 0)
        while !reader.isFinished { usleep(1000) }
        #expect(String(decoding: got, as: UTF8.self).contains("\"recordName\" : \"a\"") || String(decoding: got, as: UTF8.self).contains("\"recordName\": \"a\""))
        var st = stat()
        #expect(lstat(fifo, &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)

        // /dev/null stays the device.
        #expect(try s.ck("export", "--file", "/dev/null").status == 0)
        #expect(lstat("/dev/null", &st) == 0 && (st.st_mode & S_IFMT) == S_IFCHR)
    }

    @Test func symlinksInTheStoreAreNeverFollowed() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Z")
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        let outside = s.dir + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try s.write("precious", to: "outside/schema.json")

        // schema.json → a file outside: a save that changes the schema refuses and the file is untouched.
        let schema = env(s) + "/schema.json"
        try FileManager.default.removeItem(atPath: schema)
        try FileManager.default.createSymbolicLink(atPath: schema, withDestinationPath: outside + "/schema.json")
        let save = try s.ck("record", "save", "Photo", "--name", "p", "title=x")
        #expect(save.status != 0)
        #expect(save.stderr.contains("\(schema): is a symbolic link; ck does not follow links inside the store"), "\(save.stderr)")
        #expect(try String(contentsOfFile: outside + "/schema.json", encoding: .utf8) == "precious")
        try FileManager.default.removeItem(atPath: schema)

        // A dangling link for a zone log that does not exist yet: nothing is created outside.
        let log = env(s) + "/private/\(user)/Z.jsonl"
        try FileManager.default.createSymbolicLink(atPath: log, withDestinationPath: outside + "/Z.jsonl")
        #expect(try s.ck("-z", "Z", "record", "save", "Note", "--name", "z", "t=1").status != 0)
        #expect(!FileManager.default.fileExists(atPath: outside + "/Z.jsonl"))

        // A dangling link for notifications/: nothing is created outside either.
        try s.ck("-z", "Z", "subscription", "create", "zone", "--id", "zs")
        try FileManager.default.removeItem(atPath: log)
        try FileManager.default.createSymbolicLink(atPath: env(s) + "/notifications", withDestinationPath: outside + "/n")
        #expect(try s.ck("-z", "Z", "record", "save", "Note", "--name", "z", "t=1").status != 0)
        #expect(!FileManager.default.fileExists(atPath: outside + "/n"))

        // doctor names the links.
        try FileManager.default.createSymbolicLink(atPath: env(s) + "/assets/" + String(repeating: "a", count: 64), withDestinationPath: "/etc/passwd")
        let doctor = try s.ck("doctor")
        #expect(doctor.status == 1)
        #expect(doctor.stdout.contains("problem\t\(env(s))/assets/\(String(repeating: "a", count: 64))\ta symbolic link: ck refuses to follow links inside the store"), "\(doctor.stdout)")
    }

    /// A link planted for a directory of the store (devices/, assets/, private/<user>/, lost+found/): the command
    /// that would write there refuses, naming the link, and nothing is made outside the store.
    @Test func linksPlantedForStoreDirectoriesAreRefused() throws {
        let s = try Sandbox()
        #expect(try s.ck("init").status == 0)
        let outside = s.dir + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try s.write("asset bytes", to: "a.bin")
        func refused(_ link: String, _ args: [String]) throws {
            try? FileManager.default.removeItem(atPath: link)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside + "/" + (link as NSString).lastPathComponent)
            let r = try s.run(args)
            #expect(r.status != 0, "\(args) with \(link) a link exited 0")
            #expect(r.stderr.contains("\(link): is a symbolic link; ck does not follow links inside the store"), "\(args): \(r.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty, "\(args) made a file outside the store")
            try FileManager.default.removeItem(atPath: link)
        }
        try refused(s.dir + "/store/devices", ["sync", "phone"])
        try refused(env(s) + "/assets", ["record", "save", "Photo", "--name", "p", "img:asset=@a.bin"])
        try FileManager.default.createDirectory(atPath: env(s) + "/assets", withIntermediateDirectories: false)
        try refused(env(s) + "/private/\(user)", ["record", "save", "Note", "--name", "n", "t=1"])

        // lost+found/: a write that must keep an interrupted request's lines there refuses, and so does doctor's
        // repair, which then claims nothing repaired: the log keeps the lines.
        let batch = (0..<3).map { #"{"recordName":"b\#($0)","recordType":"Note","fields":{"u":{"value":"x","type":"STRING"}}}"# }.joined(separator: "\n")
        #expect(try s.ck("record", "save", "--batch", "-", stdin: batch + "\n").status == 0)
        let log = env(s) + "/private/\(user)/_defaultZone.jsonl"
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        // A crash cut the request's last line short: its whole lines must go to lost+found with the torn tail.
        try (lines.prefix(2).joined(separator: "\n") + "\n" + lines[2].prefix(30)).write(toFile: log, atomically: false, encoding: .utf8)
        let cut = try String(contentsOfFile: log, encoding: .utf8)
        let lostFound = s.dir + "/store/lost+found"
        try FileManager.default.createSymbolicLink(atPath: lostFound, withDestinationPath: outside + "/lf")
        let save = try s.ck("record", "save", "Note", "--name", "c", "t=2")
        #expect(save.status != 0 && save.stderr.contains("\(lostFound): is a symbolic link"), "\(save.stderr)")
        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 1)
        #expect(repair.stdout.contains("can't keep what a repair removes"), "\(repair.stdout)")
        #expect(!repair.stdout.contains("repaired"), "\(repair.stdout)")
        #expect(try String(contentsOfFile: log, encoding: .utf8) == cut)
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty, "a file was made outside the store")
        try FileManager.default.removeItem(atPath: lostFound)
        #expect(try s.ck("doctor", "--repair").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "c", "t=2").status == 0)

        // doctor names a file ck does not make.
        try s.write("mine", to: "store/containers/iCloud.ck.default/development/notes.txt")
        let doctor = try s.ck("doctor")
        #expect(doctor.stdout.contains("warning\t\(env(s))/notes.txt\tnot a file ck makes\tmove it out of the store"), "\(doctor.stdout)")
    }

    /// A zone delete replaces the owner's notification log with one that has its notification: a torn tail a
    /// crash left there is dropped, and every whole line is kept.
    @Test func aZoneDeleteKeepsTheNotificationLogWhole() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Z").status == 0)
        #expect(try s.ck("subscription", "create", "database", "--id", "db").status == 0)
        #expect(try s.ck("-z", "Z", "record", "save", "Note", "--name", "a", "t=1").status == 0)
        let log = env(s) + "/notifications/\(user).jsonl"
        let whole = try String(contentsOfFile: log, encoding: .utf8)
        #expect(whole.hasSuffix("\n") && whole.split(separator: "\n").count == 1, "\(whole)")
        let h = try #require(FileHandle(forWritingAtPath: log))
        h.seekToEndOfFile()
        h.write(Data(#"{"op":"notify","notifi"#.utf8))
        h.closeFile()
        #expect(try s.ck("zone", "delete", "Z", "-y").status == 0)
        let after = try String(contentsOfFile: log, encoding: .utf8)
        let lines = after.split(separator: "\n")
        #expect(after.hasPrefix(whole) && after.hasSuffix("\n") && lines.count == 2, "\(after)")
        for line in lines { #expect((try? JSONSerialization.jsonObject(with: Data(line.utf8))) != nil, "not a whole line: \(line)") }
        let list = try s.ck("notification", "list", "-o", "plain")
        #expect(list.status == 0 && list.stdout.split(separator: "\n").count == 2, "\(list.stdout)\(list.stderr)")
    }

    @Test func theLinesOfAnInterruptedRequestGoToLostAndFound() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=one")
        let batch = (0..<5).map { #"{"recordName":"b\#($0)","recordType":"Note","fields":{"t":{"value":"x","type":"STRING"}}}"# }.joined(separator: "\n")
        try s.ck("record", "save", "--batch", "-", stdin: batch + "\n")
        let log = env(s) + "/private/\(user)/_defaultZone.jsonl"
        let lines = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 6)
        // A crash cut the request's last line short (no newline): its 4 whole lines are an incomplete request.
        let torn = String(lines[5].prefix(40))
        try (lines.prefix(5).joined(separator: "\n") + "\n" + torn).write(toFile: log, atomically: false, encoding: .utf8)
        let doctor = try s.ck("doctor")
        #expect(doctor.stdout.contains("warning\t\(log):2\tlines 2–5: an incomplete request of several lines (an interrupted write), never applied"), "\(doctor.stdout)")

        try s.ck("record", "save", "Note", "--name", "c", "t=two")
        let cut = s.files(under: s.dir + "/store/lost+found").filter { $0.hasSuffix("_defaultZone.jsonl.cut-\(lines[0].utf8.count + 1)") }
        #expect(cut.count == 1, "\(s.files(under: s.dir + "/store/lost+found"))")
        if let path = cut.first {
            let kept = try String(contentsOfFile: s.dir + "/store/lost+found/" + path, encoding: .utf8)
            #expect(kept == lines[1...4].joined(separator: "\n") + "\n" + torn)
        }
    }

    @Test func doctorReportsAndFinishesInterruptedOperations() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Z")
        try s.ck("sync", "phone")
        // ck's own devices/ is not a stranger.
        let clean = try s.ck("doctor")
        #expect(clean.status == 0)
        #expect(!clean.stdout.contains("devices"), "\(clean.stdout)")

        // A tree half removed, and a committed zone delete whose swap never happened.
        try FileManager.default.createDirectory(atPath: env(s) + "/private/\(user)/.deleting-x1", withIntermediateDirectories: true)
        let pending = env(s) + "/.pending-1a"
        try FileManager.default.createDirectory(atPath: pending + "/new", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: pending + "/old", withIntermediateDirectories: true)
        try #"{"format":1,"lastSeq":9,"zones":[],"deletedZones":[]}"#.write(toFile: pending + "/new/0", atomically: false, encoding: .utf8)
        try #"{"format":1,"operation":"zone delete Z","pending":".pending-1a","steps":[{"path":"zones.json","replaced":true}]}"#
            .write(toFile: env(s) + "/.intent.json", atomically: false, encoding: .utf8)
        let report = try s.ck("doctor")
        #expect(report.status == 0)
        #expect(report.stdout.contains("warning\t\(env(s))\tan interrupted operation on several files (.intent.json)"), "\(report.stdout)")
        #expect(report.stdout.contains("warning\t\(env(s))/private/\(user)/.deleting-x1\tleft by a removal that was interrupted"), "\(report.stdout)")
        #expect(FileManager.default.fileExists(atPath: env(s) + "/.intent.json"), "doctor without --repair changes nothing")

        let repair = try s.ck("doctor", "--repair")
        #expect(repair.stdout.contains("finished 'zone delete Z'"), "\(repair.stdout)")
        #expect(!FileManager.default.fileExists(atPath: env(s) + "/.intent.json"))
        #expect(!FileManager.default.fileExists(atPath: pending))
        #expect(!FileManager.default.fileExists(atPath: env(s) + "/private/\(user)/.deleting-x1"))
        #expect(try s.ck("zone", "list").stdout == "_defaultZone\t\(user)\t-\n")
    }

    @Test func rebuildingZonesNeverLowersTheSequence() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Z")
        try s.ck("-z", "Z", "record", "save", "Note", "--name", "a", "v:int64=1")
        // A zones.json cut short whose lastSeq (500, as if from a long history) is still readable.
        try #"{"format": 1, "lastSeq": 500, "zones": [{"#.write(toFile: env(s) + "/zones.json", atomically: false, encoding: .utf8)
        #expect(try s.ck("doctor", "--repair").status == 0)
        let rebuilt = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: env(s) + "/zones.json"))) as? [String: Any])
        // 500, then one new number for the one zone rebuilt.
        #expect((rebuilt["lastSeq"] as? NSNumber)?.intValue == 501)
        let zone = try #require((rebuilt["zones"] as? [[String: Any]])?.first)
        #expect((zone["zoneName"] as? String) == "Z")
        #expect((zone["compactedSeq"] as? NSNumber)?.intValue == 500)
        // The next save takes 502: change tag "dy" in base 36.
        #expect(try s.ck("-z", "Z", "record", "save", "Note", "--name", "b", "v:int64=2").stdout == "b\tNote\tdy\tZ\tv=2\n")
    }

    @Test func invalidUTF8InAnArgumentIsRefused() throws {
        let s = try Sandbox()
        // Through a shell: Process passes only valid strings. Byte 0xFF after "t=x" in the 6th argument.
        let r = try s.run(["-c", #"exec "$0" record save Note --name a "t=x$(printf '\377')""#, Sandbox.binary], program: "/bin/sh")
        #expect(r.status == 8)
        #expect(r.stderr == "ck: invalidArguments (12): argument 6 is not valid UTF-8 (byte 4)\n")
        #expect(try s.ck("record", "fetch", "a").status == 3, "nothing was saved")
    }

    @Test func doctorRefusesANewerStoreFormat() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "--name", "a", "t=1")
        try #"{"format": 2, "currentContainer": "iCloud.ck.default"}"#.write(toFile: s.dir + "/store/ck.json", atomically: false, encoding: .utf8)
        for args in [["doctor"], ["doctor", "--repair"]] {
            let r = try s.run(args)
            #expect(r.status == 1)
            #expect(r.stderr.contains("ck: incompatibleVersion"), "\(r.stderr)")
            #expect(r.stderr.contains("store format 2 is newer than this ck understands (1)"), "\(r.stderr)")
        }
        #expect(try String(contentsOfFile: s.dir + "/store/ck.json", encoding: .utf8).contains("\"format\": 2"))
    }

    @Test func aDamagedSubscriptionsFileStopsOnlySubscriptionWork() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Z").status == 0)
        #expect(try s.ck("-z", "Z", "subscription", "create", "zone", "--id", "zs").status == 0)
        let path = s.dir + "/store/containers/iCloud.ck.default/development/subscriptions.json"
        try "{garbage".write(toFile: path, atomically: true, encoding: .utf8)
        // Saves go on, and say their notifications could not be matched.
        let save = try s.ck("-z", "Z", "record", "save", "Note", "--name", "n1", "title=x")
        #expect(save.status == 0, "\(save.stderr)")
        #expect(save.stderr.contains("ck: warning: notifications for this change could not be matched: \(path):1:2"), "\(save.stderr)")
        #expect(try s.ck("-z", "Z", "record", "fetch", "n1").status == 0)
        // Subscription work is refused, naming the file, and the file is left as it was.
        let list = try s.ck("subscription", "list")
        #expect(list.status != 0 && list.stderr.contains(path), "\(list.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{garbage")
    }

    @Test func aPredicateTooDeepForSQLiteIsEvaluatedWithoutIt() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "a", "title=x", "n=1").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "b", "title=y", "n=2").status == 0)
        // 1200 conditions: past SQLite's expression depth of 1000, which once surfaced as an index "internalError".
        let long = Array(repeating: "title == 'x'", count: 1199).joined(separator: " AND ") + " AND n >= 1"
        let r = try s.ck("query", "Note", long)
        #expect(r.status == 0 && r.stdout.hasPrefix("a\tNote\t") && !r.stdout.contains("b\tNote"), "\(r.stdout)\(r.stderr)")
        let none = try s.ck("query", "Note", long + " AND n > 5")
        #expect(none.status == 0 && none.stdout.isEmpty, "\(none.stderr)")
    }

    @Test func aWriterWaitingForTheLockSaysSo() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "a", "title=x").status == 0)
        let lock = s.dir + "/store/containers/iCloud.ck.default/development/.lock"
        // Another holder keeps the environment's lock for a second and a half.
        let fd = open(lock, O_RDWR)
        #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) { flock(fd, LOCK_UN); close(fd) }
        let waited = try s.ck("record", "save", "Note", "--name", "b", "title=y")
        #expect(waited.status == 0, "\(waited.stderr)")
        #expect(waited.stderr == "ck: waiting for another ck to finish with the store (\(lock))…\n", "\(waited.stderr)")
        // Quiet, and uncontended: nothing is said.
        #expect(try s.ck("-q", "record", "save", "Note", "--name", "c", "title=z").stderr.isEmpty)
        let fd2 = open(lock, O_RDWR)
        #expect(fd2 >= 0 && flock(fd2, LOCK_EX) == 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 1.5) { flock(fd2, LOCK_UN); close(fd2) }
        let quiet = try s.ck("-q", "record", "save", "Note", "--name", "d", "title=w")
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    @Test func aContainerFileOfTheWrongShapeIsReportedNeverOverwritten() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "a", "title=x").status == 0)
        let path = s.dir + "/store/containers/iCloud.ck.default/container.json"
        let text = try String(contentsOfFile: path, encoding: .utf8)
        let bad = text.replacingOccurrences(of: "\"accountStatus\" : \"available\"", with: "\"accountStatus\" : \"asleep\"")
            .replacingOccurrences(of: "\"accountStatus\": \"available\"", with: "\"accountStatus\": \"asleep\"")
        #expect(bad != text)
        try bad.write(toFile: path, atomically: true, encoding: .utf8)
        let save = try s.ck("--as", "bob", "record", "save", "Note", "--name", "b", "title=y")
        #expect(save.status == 1 && save.stderr.contains("\(path): users.default.accountStatus is not one of"), "\(save.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == bad, "container.json was overwritten")
        let doctor = try s.ck("doctor")
        #expect(doctor.status != 0 && doctor.stdout.contains("users.default.accountStatus is not one of"), "\(doctor.stdout)")
        #expect(try s.ck("doctor", "--repair").status == 0)
        #expect(try s.ck("--as", "bob", "record", "save", "Note", "--name", "b", "title=y").status == 0)
    }

    @Test func doctorRefusesOutOfOrderAndRepeatedSequenceNumbers() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Z").status == 0)
        #expect(try s.ck("zone", "create", "Y").status == 0)
        for n in ["a", "b"] { #expect(try s.ck("-z", "Z", "record", "save", "Note", "--name", n, "t=1").status == 0) }
        #expect(try s.ck("-z", "Y", "record", "save", "Note", "--name", "y", "t=1").status == 0)
        #expect(try s.ck("doctor").status == 0)
        let owner = try #require(try s.ck("zone", "show", "Z").stdout.split(separator: "\n").first { $0.hasPrefix("owner\t") }?.dropFirst(6))
        let dir = s.dir + "/store/containers/iCloud.ck.default/development/private/\(owner)/"
        // Swap Z's two lines: the second now has a lower number than the first.
        let z = try String(contentsOfFile: dir + "Z.jsonl", encoding: .utf8).split(separator: "\n")
        try (z.reversed().joined(separator: "\n") + "\n").write(toFile: dir + "Z.jsonl", atomically: true, encoding: .utf8)
        let swapped = try s.ck("doctor")
        #expect(swapped.status != 0 && swapped.stdout.contains("Z.jsonl:2\tsequence number"), "\(swapped.stdout)")
        #expect(swapped.stdout.contains("(out of order or repeated)"))
        // Put Z back; then give Y's line a number Z already uses.
        try (z.joined(separator: "\n") + "\n").write(toFile: dir + "Z.jsonl", atomically: true, encoding: .utf8)
        let y = try String(contentsOfFile: dir + "Y.jsonl", encoding: .utf8)
        let used = try #require(z.first.flatMap { $0.split(separator: ",").first })
        try y.replacingOccurrences(of: String(try #require(y.split(separator: ",").first)), with: String(used)).write(toFile: dir + "Y.jsonl", atomically: true, encoding: .utf8)
        let repeated = try s.ck("doctor")
        #expect(repeated.status != 0 && repeated.stdout.contains("is used again (first at"), "\(repeated.stdout)")
    }

    @Test func doctorChecksDeviceReplicas() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Z").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("sync", "tablet").status == 0)
        #expect(try s.ck("doctor").status == 0, "healthy replicas pass")
        let dir = try #require(s.files(under: s.dir + "/store/devices").first { $0.hasSuffix("phone.sqlite") })
        let phone = s.dir + "/store/devices/" + dir
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: phone))
        try "x".write(toFile: (phone as NSString).deletingLastPathComponent + "/notes.txt", atomically: true, encoding: .utf8)
        let r = try s.ck("doctor")
        #expect(r.status != 0, "\(r.stdout)")
        #expect(r.stdout.contains("problem\t\(phone)\tcan't be read as SQLite") || r.stdout.contains("problem\t\(phone)\tSQLite's integrity check fails"), "\(r.stdout)")
        #expect(r.stdout.contains("notes.txt\tis not a file ck makes"), "\(r.stdout)")
        #expect(!r.stdout.contains("tablet.sqlite"), "the healthy replica is not reported")
    }

    @Test func aDeviceFileThatIsALinkIsNeverFollowed() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Z").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        let phone = try #require(s.files(under: s.dir + "/store/devices").first { $0.hasSuffix("phone.sqlite") })
        let dir = (s.dir + "/store/devices/" + phone as NSString).deletingLastPathComponent
        let outside = s.dir + "/outside.sqlite"
        try FileManager.default.createSymbolicLink(atPath: dir + "/evil.sqlite", withDestinationPath: outside)
        let r = try s.ck("sync", "evil")
        #expect(r.status != 0, "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: outside), "a file was made outside the store")
        #expect(try s.ck("doctor").stdout.contains("evil.sqlite\tis a symbolic link"))
    }
}
