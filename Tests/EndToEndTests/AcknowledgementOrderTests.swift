import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A write is acknowledged only once it is durable: the zone log's fsync comes before the command prints the saved
/// record, and before `ck serve` sends the HTTP reply, also now that the last fsync runs after the store's lock is
/// released (group commit). Checked in the system calls strace records.
@Suite struct AcknowledgementOrderTests {
    /// The index of the last line that fsyncs the zone log `Z.jsonl` (strace -y names each descriptor's file).
    static func lastLogSync(_ lines: [Substring]) -> Int? {
        lines.lastIndex { $0.contains("fsync(") && $0.contains("/Z.jsonl>") }
    }

    @Test(RequiredTool.needed("strace")) func theCommandLinePrintsASaveOnlyAfterItsLogIsSynced() throws {
        let strace = try RequiredTool.require("strace")
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Z").status == 0)
        let trace = s.dir + "/trace.txt"
        let r = try s.run(["-f", "-qq", "-y", "-s", "120", "-o", trace, "-e", "trace=fsync,fdatasync,write", "--",
                           Sandbox.binary, "-z", "Z", "record", "save", "Note", "--name", "ack-1", "title=kept", "-o", "plain"],
                          program: strace)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.hasPrefix("ack-1\tNote\t"), "\(r.stdout)")
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let sync = try #require(Self.lastLogSync(lines), "no fsync of Z.jsonl in:\n\(lines.joined(separator: "\n"))")
        let printed = try #require(lines.firstIndex { $0.contains("write(1<") && $0.contains("ack-1") }, "no write of the result")
        #expect(sync < printed, "the result was printed (line \(printed)) before the log was synced (line \(sync))")
    }

    @Test(RequiredTool.needed("strace")) func theServerRepliesToAModifyOnlyAfterItsLogIsSynced() throws {
        let strace = try RequiredTool.require("strace")
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Z").status == 0)
        let trace = s.dir + "/serve-trace.txt"
        let server = try ServeProcess(s, arguments: ["--no-auth"], wrapper: [strace, "-f", "-qq", "-y", "-s", "64", "-o", trace,
                                                                            "-e", "trace=fsync,fdatasync,write,writev,sendmsg,sendto"])
        // The server's own pid: a signal to strace would leave ck running.
        let pid = try #require(try server.get("/_ck/health").json["pid"]?.int64Value)
        let reply = try server.post("/database/1/iCloud.ck.default/development/private/records/modify", json: """
            {"zoneID": {"zoneName": "Z"}, "operations": [{"operationType": "create",
             "record": {"recordType": "Note", "recordName": "ack-2", "fields": {"title": {"value": "kept"}}}}]}
            """)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.text.contains("\"recordChangeTag\""), "\(reply.text)")
        kill(pid_t(pid), SIGTERM)
        server.process.waitUntilExit()
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        let sync = try #require(Self.lastLogSync(lines), "no fsync of Z.jsonl in:\n\(lines.joined(separator: "\n"))")
        // Replies go to sockets: the first is the health check's, the second the modify's.
        let replies = lines.indices.filter { lines[$0].contains("socket:[") && lines[$0].contains("HTTP/1.1 200") }
        #expect(replies.count == 2, "\(lines.joined(separator: "\n"))")
        let sent = try #require(replies.last)
        #expect(sync < sent, "the reply was sent (line \(sent)) before the log was synced (line \(sync))")
    }
}
