import Foundation
import Testing

/// A process keeps the store directories it reached open (issue 29), but never past a lock it released: a
/// `ck serve` that read a container keeps seeing that container's name, not a tree another process deleted.
@Suite struct DirectoryReuseTests {
    let lookup = "/database/1/iCloud.x.y/development/private/records/lookup"

    @Test func serveReadsAContainerDeletedAndMadeAgainByAnotherProcessAfresh() throws {
        let s = try Sandbox()
        for args in [["container", "create", "iCloud.x.y"], ["-c", "iCloud.x.y", "record", "save", "Note", "--name", "a", "title=old"]] {
            let r = try s.run(args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
        }
        let server = try ServeProcess(s, arguments: ["--no-auth"])
        let before = try server.post(lookup, json: #"{"records":[{"recordName":"a"}]}"#)
        #expect(before.text.contains(#""value":"old""#), "\(before.text)")
        for args in [["container", "delete", "iCloud.x.y", "--yes"], ["container", "create", "iCloud.x.y"],
                     ["-c", "iCloud.x.y", "record", "save", "Note", "--name", "a", "title=new"]] {
            let r = try s.run(args)
            #expect(r.status == 0, "\(args): \(r.stderr)")
        }
        let after = try server.post(lookup, json: #"{"records":[{"recordName":"a"}]}"#)
        #expect(after.text.contains(#""value":"new""#), "the server read the deleted container: \(after.text)")
        // And a write lands in the new container, where the command line reads it.
        let saved = try server.post("/database/1/iCloud.x.y/development/private/records/modify", json: """
            {"operations": [{"operationType": "create", "record": {"recordType": "Note", "recordName": "b", "fields": {"title": {"value": "served"}}}}]}
            """)
        #expect(saved.status == 200, "\(saved.text)")
        let fetched = try s.run(["-c", "iCloud.x.y", "record", "fetch", "b", "-o", "plain"])
        #expect(fetched.stdout.contains("title=served"), "\(fetched.stdout) \(fetched.stderr)")
    }
}
