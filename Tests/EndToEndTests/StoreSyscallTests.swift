import Foundation
import Testing

/// A short command opens each store directory about once (issue 29): the link-free walk starts at a directory
/// already reached, rather than at the store root for every file. Counted in the openat calls strace records
/// that name the store (by path or by the directory they are relative to). Each bound is the count with every
/// directory opened once (the store files the command reads, its listings, and the directories on the way), with
/// a little room; opening every directory from the root for each file takes three to six times as many.
@Suite struct StoreSyscallTests {
    /// The openat/open calls in `trace` that touch the store below `root` (strace -y names each descriptor's path).
    static func storeOpens(_ trace: String, root: String) throws -> [Substring] {
        try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter {
            ($0.contains("openat(") || $0.contains("open(")) && $0.contains(root)
        }
    }

    /// Runs `args` under strace in a store with zone Z holding records, and returns the store opens it made.
    func opens(_ args: [String]) throws -> [Substring] {
        let strace = try RequiredTool.require("strace")
        let s = try Sandbox()
        for setup in [["zone", "create", "Z"], ["-z", "Z", "record", "save", "Note", "--name", "a", "title=one"],
                      ["-z", "Z", "record", "save", "Note", "--name", "b", "title=two"],
                      ["-z", "Z", "schema", "index", "Note", "___recordID", "--queryable"]] {
            let r = try s.run(setup)
            #expect(r.status == 0, "\(setup): \(r.stderr)")
        }
        let trace = s.dir + "/trace.txt"
        let r = try s.run(["-f", "-qq", "-y", "-s", "200", "-o", trace, "-e", "trace=open,openat,openat2", "--", Sandbox.binary] + args,
                          program: strace)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return try Self.storeOpens(trace, root: s.dir + "/store")
    }

    @Test(RequiredTool.needed("strace"), arguments: [
        (["-z", "Z", "record", "save", "Note", "--name", "c", "title=three"], 30),
        (["-z", "Z", "record", "fetch", "a"], 22),
        (["-z", "Z", "query", "Note"], 22),
        (["zone", "list"], 14),
    ])
    func aShortCommandOpensTheStoreAboutOncePerDirectory(args: [String], bound: Int) throws {
        let lines = try opens(args)
        #expect(lines.count <= bound, "\(args): \(lines.count) opens of the store, more than \(bound):\n\(lines.joined(separator: "\n"))")
    }
}
