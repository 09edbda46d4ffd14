import Foundation
import Testing

/// A store lock that is not taken closes its file once. The descriptor of a lock that failed (timed out, refused on
/// `ck serve`'s event loop, an error) was closed by the failing path and again by the object's deinit, which Swift
/// runs for an initializer that throws after setting every property: in `ck serve`, between the two closes another
/// thread could be handed the same number for a directory or a log, and the second close took it from under it
/// (lookups answered `Bad file descriptor`). Seen in strace: no close fails with EBADF.
@Suite struct FileLockDescriptorTests {
    @Test(RequiredTool.needed("strace"), RequiredTool.needed("flock"))
    func aLockThatTimesOutClosesItsFileOnce() throws {
        let strace = try RequiredTool.require("strace")
        let s = try Sandbox()
        let saved = try s.run(["record", "save", "Note", "--name", "a", "title=one"])
        try #require(saved.status == 0, "\(saved.stderr)")
        let holder = try FlockHolder(s.dir + "/store/containers/iCloud.ck.default/development/.lock")
        defer { holder.release() }
        let trace = s.dir + "/trace.txt"
        let r = try s.run(["-f", "-qq", "-o", trace, "-e", "trace=close", "--", Sandbox.binary, "record", "fetch", "a"],
                          program: strace, env: ["CK_LOCK_TIMEOUT": "0.3"])
        #expect(r.status != 0 && r.stderr.contains("gave up after 0.3 s waiting for the lock"), "\(r.status): \(r.stderr)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let failed = lines.filter { $0.contains("EBADF") }
        #expect(failed.isEmpty, "a descriptor closed twice:\n\(failed.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("close(") }, "strace saw no close at all: \(lines.prefix(5))")
    }
}
