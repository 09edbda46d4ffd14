import Foundation
import Testing

@Suite struct FoundationEndToEndTests {
    @Test func readmeFirstCommandWorksWithNoSetUp() throws {
        let s = try Sandbox(store: false)
        let r = try s.run(["record", "save", "Note", "title=Hello CloudKit"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasSuffix("\tNote\t1\t_defaultZone\ttitle=Hello CloudKit\n"))
        #expect(r.stderr.isEmpty)
        let store = s.dir + "/home/.local/share/ck"
        let files = s.files(under: store)
        #expect(files.contains("ck.json"))
        #expect(files.contains("containers/iCloud.ck.default/container.json"))
        #expect(files.contains { $0.hasPrefix("containers/iCloud.ck.default/development/private/_") && $0.hasSuffix("/_defaultZone.jsonl") })
        #expect(files.contains("containers/iCloud.ck.default/production/schema.json"))
    }

    @Test(RequiredTool.needed("jq")) func everyFileIsReadableByJq() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Notes")
        try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "title=Hi", "tags:string[]=a,b", "at=2026-01-01")
        try s.ck("--db", "public", "record", "save", "Post", "body=x")
        try s.ck("record", "delete", "-z", "Notes", "n1")
        let jqPath = try RequiredTool.require("jq")
        var checked = 0
        for f in s.files(under: s.dir + "/store") where f.hasSuffix(".json") || f.hasSuffix(".jsonl") {
            let r = try s.run(["-e", "."], program: jqPath, env: [:], stdinFile: s.dir + "/store/" + f)
            #expect(r.status == 0, "jq could not read \(f): \(r.stderr)")
            checked += 1
        }
        #expect(checked >= 8)
        let log = try String(contentsOfFile: s.dir + "/store/containers/iCloud.ck.default/development/public/_defaultZone.jsonl", encoding: .utf8)
        let r = try s.run(["-r", ".record.fields.body.value"], stdin: log, program: jqPath)
        #expect(r.stdout == "x\n")
    }

    @Test func projectStoreIsFoundFromSubdirectories() throws {
        let s = try Sandbox(store: false)
        let proj = s.dir + "/proj"
        try FileManager.default.createDirectory(atPath: proj + "/src/deep", withIntermediateDirectories: true)
        let r = try s.run(["init", "-o", "table"], cwd: proj)
        #expect(r.status == 0)
        #expect(r.stdout == "Initialized empty ck store in \(proj)/.ck\n")
        #expect(try s.run(["record", "save", "Note", "--name", "x", "t=1"], cwd: proj + "/src/deep").status == 0)
        #expect(FileManager.default.fileExists(atPath: proj + "/.ck/ck.json"))
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/home/.local/share/ck"))
        #expect(try s.run(["init", "-o", "table"], cwd: proj).stdout.hasPrefix("A ck store already exists"))
        #expect(try s.run(["init"], cwd: proj).stdout == "\(proj)/.ck\n")
        // A directory named .ck without ck.json is not a store.
        try FileManager.default.createDirectory(atPath: s.dir + "/other/.ck", withIntermediateDirectories: true)
        // The user store is used instead; a read-only command names it and does not create it.
        #expect(try s.run(["container", "show", "-o", "json"], cwd: s.dir + "/other").stderr.contains("no ck store at " + s.dir + "/home/.local/share/ck (the user store)"))
    }

    @Test func updateWithChangeTagAndConflict() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=One").status == 0)
        let ok = try s.ck("record", "save", "Note", "--name", "n1", "--if-tag", "1", "title=Two")
        #expect(ok.status == 0 && ok.stdout == "n1\tNote\t2\t_defaultZone\ttitle=Two\n")
        let stale = try s.ck("record", "save", "Note", "--name", "n1", "--if-tag", "1", "title=Three")
        #expect(stale.status == 4)
        #expect(stale.stdout.isEmpty)
        let lines = stale.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "ck: serverRecordChanged (14): client oplock error updating record")
        #expect(lines.contains { $0.hasPrefix("  server: tag 2,") && $0.hasSuffix(": title=Two") })
        #expect(lines.contains("  client: tag 1: title=Three"))
        #expect(lines.contains { $0.hasPrefix("  ancestor: tag 1,") && $0.hasSuffix(": title=One") })
        #expect(lines.last == "hint: the server has change tag 2; fetch the record, merge, and save with --if-tag 2")
        let forced = try s.ck("record", "save", "Note", "--name", "n1", "--policy", "changed-keys", "title=Four")
        #expect(forced.status == 0 && forced.stdout == "n1\tNote\t3\t_defaultZone\ttitle=Four\n")
    }

    @Test func exitCodesThroughTheBinary() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "fetch", "missing").status == 3)
        #expect(try s.ck("-z", "Nope", "record", "fetch", "x").status == 3)
        #expect(try s.ck("--db", "public", "zone", "create", "Z").status == 7)
        #expect(try s.ck("record", "save", "Note", "n:int64=abc").status == 8)
        #expect(try s.ck("-e", "production", "record", "save", "Note", "t=x").status == 8)
        #expect(try s.ck("record", "bogus").status == 64)
        #expect(try s.ck("container", "use", "iCloud.nope").status == 3)
        try s.ck("record", "save", "Note", "--name", "a", "t=x")
        let partial = try s.ck("record", "fetch", "a", "b")
        #expect(partial.status == 10)
        #expect(partial.stdout.hasPrefix("a\tNote\t"))
        #expect(partial.stderr.contains("  b: unknownItem (11): Record not found"))
    }

    @Test func largeBatchIsSplitIntoRequestsOf200() throws {
        let s = try Sandbox()
        let lines = (0..<450).map { #"{"recordName":"r\#($0)","recordType":"Note","fields":{"i":{"value":\#($0),"type":"INT64"}}}"# }
        let r = try s.run(["record", "save", "--batch", "-"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr == "ck: 450 operations: sending 3 requests of at most 200 (CloudKit's limit per request)\n")
        #expect(r.stdout.split(separator: "\n").count == 450)
        let quiet = try s.run(["record", "save", "--batch", "-", "-q", "--policy", "all-keys"], stdin: lines.joined(separator: "\n"))
        #expect(quiet.status == 0 && quiet.stderr.isEmpty)
        #expect(try s.ck("record", "fetch", "r449", "-o", "jsonl").stdout.contains(#""i":{"value":449,"type":"INT64"}"#))
        let atomic = try s.run(["record", "save", "--batch", "-", "--atomic"], stdin: lines.joined(separator: "\n"))
        #expect(atomic.status == 8)
        #expect(atomic.stderr.contains("limitExceeded"))
    }

    @Test func atomicBatchWritesNothingOnFailure() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Notes")
        try s.ck("-z", "Notes", "record", "save", "Note", "--name", "b", "n=5")
        // Both lines are valid input; creating b fails only on the server, where b exists.
        let input = #"{"recordName":"a","recordType":"Note","fields":{"n":{"value":1}}}"# + "\n" + #"{"recordName":"b","recordType":"Note","fields":{"n":{"value":2}}}"#
        let r = try s.run(["-z", "Notes", "record", "save", "--batch", "-", "--atomic"], stdin: input)
        #expect(r.status == 10)
        #expect(r.stderr.hasPrefix("ck: partialFailure (2): Failed to modify some records: 1 of 2 operations were rejected, so the atomic request applied none"))
        #expect(r.stderr.contains("  a: batchRequestFailed (22)"))
        #expect(r.stderr.contains("  b: serverRecordChanged (14)"))
        #expect(try s.ck("-z", "Notes", "record", "fetch", "a").status == 3)
        #expect(try s.ck("-z", "Notes", "record", "fetch", "b", "-o", "plain").stdout.contains("n=5"))
    }

    @Test func containerLifecycle() throws {
        let s = try Sandbox()
        #expect(try s.ck("container", "create", "iCloud.com.example.Notes", "--use").stdout == "iCloud.com.example.Notes\n")
        #expect(try s.ck("container", "list").stdout == "iCloud.ck.default\niCloud.com.example.Notes\n")
        #expect(try s.ck("container", "list", "-o", "table").stdout.contains("*  iCloud.com.example.Notes"))
        try s.ck("record", "save", "Note", "t=x")
        #expect(FileManager.default.fileExists(atPath: s.dir + "/store/containers/iCloud.com.example.Notes/development/schema.json"))
        #expect(try s.ck("-c", "iCloud.ck.default", "container", "show", "-o", "json").stdout.contains(#""current": false"#))
        #expect(try s.ck("container", "create", "com.example.Bad").status == 8)
        #expect(try s.ck("container", "delete", "iCloud.com.example.Notes", "-y").status == 0)
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/store/containers/iCloud.com.example.Notes"))
        #expect(try s.ck("container", "list").stdout == "iCloud.ck.default\n")
    }

    @Test func namesCannotEscapeTheStore() throws {
        let s = try Sandbox()
        for zone in ["../../evil", "a/b", "..", "_x"] {
            #expect(try s.ck("zone", "create", zone).status == 8, "\(zone)")
        }
        #expect(try s.ck("--as", "../evil", "record", "save", "Note", "t=x").status == 8)
        // A record name is a name, never a path: CloudKit accepts '../x', and it makes no file anywhere.
        #expect(try s.ck("record", "save", "Note", "--name", "../x", "t=x").status == 0)
        #expect(try s.ck("container", "create", "iCloud.a/../../b").status == 8)
        let outside = s.files(under: s.dir).filter { !$0.hasPrefix("store") && !$0.hasPrefix("home") }
        #expect(outside.isEmpty, "\(outside)")
    }

    @Test func tornLineWarnsOnStderr() throws {
        let s = try Sandbox()
        try s.ck("--db", "public", "record", "save", "Note", "--name", "a", "t=x")
        let log = s.dir + "/store/containers/iCloud.ck.default/development/public/_defaultZone.jsonl"
        let h = try #require(FileHandle(forWritingAtPath: log))
        h.seekToEndOfFile()
        h.write(Data("{\"seq\":9,\"op\":\"sa".utf8))
        h.closeFile()
        let r = try s.ck("--db", "public", "record", "fetch", "a")
        #expect(r.status == 0)
        #expect(r.stderr.contains("ck: warning: \(log):2: ignoring a torn last line"))
    }

    @Test func assetsAndBytesFromFiles() throws {
        let s = try Sandbox()
        try s.write("hello", to: "hello.txt")
        let r = try s.ck("record", "save", "Doc", "--name", "d", "file:asset=@hello.txt", "raw:bytes=@hello.txt", "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""sha256": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824""#))
        #expect(r.stdout.contains(#""value": "aGVsbG8=""#))
        #expect(FileManager.default.fileExists(atPath: s.dir + "/store/containers/iCloud.ck.default/development/assets/2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"))
        #expect(try s.ck("record", "save", "Doc", "f:asset=@missing.txt").status == 8)
    }
}

extension Sandbox {
    /// Runs a program with a file as its stdin.
    func run(_ args: [String], program: String, env: [String: String], stdinFile: String) throws -> Result {
        try run(args, stdin: String(contentsOfFile: stdinFile, encoding: .utf8), program: program, env: env)
    }
}
