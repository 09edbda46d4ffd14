import Foundation
import Testing

/// `ck serve` keeps record-index connections open between requests (IndexPool) and drops one whose
/// `.index.sqlite` was replaced meanwhile: read through the server's open descriptors in /proc.
@Suite struct ServeIndexPoolTests {
    static let lookup = "/database/1/iCloud.ck.default/development/private/records/lookup"

    /// The server's descriptors open on an index file, as /proc shows their targets.
    func indexDescriptors(_ server: ServeProcess) -> [String] {
        let dir = "/proc/\(server.process.processIdentifier)/fd"
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []
        return fds.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: dir + "/" + $0) }
            .filter { $0.contains(".index.sqlite") && !$0.contains("-wal") && !$0.contains("-shm") }
    }

    func title(_ server: ServeProcess, _ name: String) throws -> String? {
        let r = try server.post(Self.lookup, json: #"{"records":[{"recordName":"\#(name)"}]}"#)
        #expect(r.status == 200, "\(r.text)")
        let record = r.json["records"]?.arrayValue?.first
        return record?["fields"]?["title"]?["value"]?.stringValue
    }

    @Test func aConnectionIsKeptBetweenRequestsAndDroppedWhenTheIndexIsReplaced() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=one").status == 0)
        let server = try ServeProcess(s, arguments: ["--no-auth"])
        #expect(try title(server, "n1") == "one")
        #expect(try title(server, "n1") == "one")
        // Between requests the connection stays open (without the pool every request closes its own).
        let kept = indexDescriptors(server)
        #expect(kept.count == 1 && !kept[0].hasSuffix("(deleted)"), "\(kept)")
        // Another process replaces the index (a cache: removed and rebuilt) and writes: the server reads the new
        // state and lets the connection to the removed file go.
        let index = s.dir + "/store/containers/iCloud.ck.default/development/.index.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: index + suffix) }
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=two", "--policy", "changed-keys").status == 0)
        #expect(FileManager.default.fileExists(atPath: index))
        #expect(try title(server, "n1") == "two")
        let after = indexDescriptors(server)
        #expect(after.count == 1 && !after[0].hasSuffix("(deleted)"), "\(after)")
    }
}
