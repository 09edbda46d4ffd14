import Foundation
import Testing

/// The index survives a copy of the store (issue 29): `cp -a` (a CI cache restore) and `cp -r` give the logs new
/// inodes and times, and the index is kept because the logs' bytes are the ones it indexed; a log that really
/// changed is indexed again. "Kept" is seen two ways: `ck doctor` on the copy does not call the index out of date,
/// and a query on the copy writes only a handful of times to the index (strace), where indexing 300 records and
/// their field values again writes far more.
@Suite struct IndexCopyTests {
    static let records = 300

    /// A store with zone Z holding `records` Notes (r001… with title t001… and n = 1…) saved in one batch, then
    /// r301 and r302 saved one by one (a line of their own each), queried once so the field values are indexed too.
    func seeded() throws -> Sandbox {
        let s = try Sandbox()
        let lines = (1...Self.records).map { i in
            let n = String(format: "%03d", i)
            return #"{"recordName":"r\#(n)","recordType":"Note","fields":{"title":{"value":"t\#(n)","type":"STRING"},"n":{"value":\#(i),"type":"INT64"}}}"#
        }
        try s.write(lines.joined(separator: "\n") + "\n", to: "batch.jsonl")
        for setup in [["zone", "create", "Z"], ["-q", "-z", "Z", "record", "save", "--batch", s.dir + "/batch.jsonl"],
                      ["-z", "Z", "record", "save", "Note", "--name", "r301", "title=t301"],
                      ["-z", "Z", "record", "save", "Note", "--name", "r302", "title=t302"],
                      ["-z", "Z", "query", "Note", "title == 't007'"]] {
            let r = try s.run(setup)
            #expect(r.status == 0, "\(setup): \(r.stderr)")
        }
        return s
    }

    /// Copies the sandbox's store to `name` with `cp` and `flags`, and returns the copy's path.
    func copy(_ s: Sandbox, _ flags: String, to name: String) throws -> String {
        let dest = s.dir + "/" + name
        let r = try s.run([flags, s.dir + "/store", dest], program: "/bin/cp")
        #expect(r.status == 0, "\(r.stderr)")
        return dest
    }

    /// The zone log of Z below `store`.
    func log(_ store: String) throws -> String {
        let files = FileManager.default.enumerator(atPath: store)?.compactMap { $0 as? String } ?? []
        let found = try #require(files.first { $0.hasSuffix("/Z.jsonl") })
        return store + "/" + found
    }

    /// Runs ck on `store` under strace and returns its result and how many writes it made to the index and its WAL
    /// (not its -shm, which SQLite sets up afresh in every process whether it writes or not).
    func traced(_ s: Sandbox, store: String, _ args: [String]) throws -> (result: Sandbox.Result, indexWrites: Int) {
        let strace = try RequiredTool.require("strace")
        let trace = s.dir + "/trace-\(UUID().uuidString).txt"
        let r = try s.run(["-f", "-qq", "-y", "-o", trace, "-e", "trace=write,pwrite64,pwritev,pwritev2", "--", Sandbox.binary] + args,
                          program: strace, env: ["CK_DATA_DIR": store])
        let writes = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter {
            $0.contains("/.index.sqlite") && !$0.contains(".index.sqlite-shm>")
        }
        return (r, writes.count)
    }

    /// Whether `ck doctor` on `store` calls the index out of date.
    func doctorSaysStale(_ s: Sandbox, store: String) throws -> Bool {
        let r = try s.run(["doctor"], env: ["CK_DATA_DIR": store])
        return (r.stdout + r.stderr).contains("out of date")
    }

    @Test(RequiredTool.needed("strace"), arguments: ["-a", "-r"])
    func aCopiedStoreIsNotIndexedAgain(flags: String) throws {
        let s = try seeded()
        let original = try s.ck("-z", "Z", "query", "Note", "title == 't042'")
        #expect(original.status == 0 && original.stdout.contains("r042"), "\(original.stderr)")
        #expect(try !doctorSaysStale(s, store: s.dir + "/store"))

        let copy = try copy(s, flags, to: "copy")
        #expect(try !doctorSaysStale(s, store: copy), "doctor finds the index of a \(flags) copy out of date")
        let (r, writes) = try traced(s, store: copy, ["-z", "Z", "query", "Note", "title == 't042'"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == original.stdout)
        // Recording the copy's new inode and times is one small transaction; indexing again is dozens of pages.
        #expect(writes <= 6, "a query on a \(flags) copy wrote \(writes) times to the index")
        // Once recorded, the next command writes nothing at all.
        let (again, none) = try traced(s, store: copy, ["-z", "Z", "record", "fetch", "r042"])
        #expect(again.status == 0 && again.stdout.contains("t042"), "\(again.stderr)")
        #expect(none == 0, "a fetch after the copy was recognised wrote \(none) times to the index")
        #expect(try !doctorSaysStale(s, store: copy))
    }

    /// The control for the bound above: a copy whose log really changed is indexed again, and writes far more.
    @Test(RequiredTool.needed("strace"))
    func aChangedLogInACopyWritesTheIndexAgain() throws {
        let s = try seeded()
        let copy = try copy(s, "-a", to: "copy")
        let path = try log(copy)
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: #""value":"t042""#, with: #""value":"x042""#)
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        #expect(try doctorSaysStale(s, store: copy))
        let (r, writes) = try traced(s, store: copy, ["-z", "Z", "query", "Note", "title == 'x042'"])
        #expect(r.status == 0 && r.stdout.contains("r042"), "\(r.stderr)")
        #expect(writes > 20, "indexing 300 records again wrote only \(writes) times")
    }

    /// Each way a copied log can really change is noticed, and queries answer from the changed log.
    @Test func aLogChangedInACopyIsIndexedAgain() throws {
        let s = try seeded()
        let q = { (store: String, title: String) throws -> Sandbox.Result in
            try s.run(["-z", "Z", "query", "Note", "title == '\(title)'"], env: ["CK_DATA_DIR": store])
        }

        // Edited by hand at the same length: the new value is found, the old one is not.
        let edited = try copy(s, "-a", to: "edited")
        let editedLog = try log(edited)
        let before = try Data(contentsOf: URL(fileURLWithPath: editedLog))
        let text = try String(contentsOfFile: editedLog, encoding: .utf8)
        try text.replacingOccurrences(of: #""value":"t042""#, with: #""value":"x042""#)
            .write(toFile: editedLog, atomically: false, encoding: .utf8)
        #expect(try Data(contentsOf: URL(fileURLWithPath: editedLog)).count == before.count)
        #expect(try doctorSaysStale(s, store: edited))
        #expect(try q(edited, "x042").stdout.contains("r042"))
        #expect(try !q(edited, "t042").stdout.contains("r042"))

        // Appended by hand: a line for a new record, with a higher sequence number.
        let appended = try copy(s, "-a", to: "appended")
        let appendedLog = try log(appended)
        let lines = try String(contentsOfFile: appendedLog, encoding: .utf8).split(separator: "\n")
        let last = try #require(lines.last { $0.contains(#""recordName":"r302""#) })
        let extra = String(last).replacingOccurrences(of: #""recordName":"r302""#, with: #""recordName":"r999""#)
            .replacingOccurrences(of: #""value":"t302""#, with: #""value":"t999""#)
            .replacingOccurrences(of: #"{"seq":"#, with: #"{"seq":9"#)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: appendedLog))
        try handle.seekToEnd()
        try handle.write(contentsOf: Data((extra + "\n").utf8))
        try handle.close()
        #expect(try q(appended, "t999").stdout.contains("r999"))

        // Truncated by hand: the last record's line is gone, and so is the record.
        let truncated = try copy(s, "-a", to: "truncated")
        let truncatedLog = try log(truncated)
        let kept = try String(contentsOfFile: truncatedLog, encoding: .utf8).split(separator: "\n").dropLast()
        try (kept.joined(separator: "\n") + "\n").write(toFile: truncatedLog, atomically: false, encoding: .utf8)
        #expect(try q(truncated, "t301").stdout.contains("r301"))
        #expect(try !q(truncated, "t302").stdout.contains("r302"))

        // Replaced by another file (renamed over it): the records are the new file's.
        let replaced = try copy(s, "-a", to: "replaced")
        let replacedLog = try log(replaced)
        let single = try #require(try String(contentsOfFile: replacedLog, encoding: .utf8).split(separator: "\n")
            .last { $0.contains(#""recordName":"r301""#) })
        try (single + "\n").write(toFile: replacedLog + ".new", atomically: false, encoding: .utf8)
        #expect(rename(replacedLog + ".new", replacedLog) == 0)
        #expect(try q(replaced, "t301").stdout.contains("r301"))
        #expect(try !q(replaced, "t042").stdout.contains("r042"))
    }
}
