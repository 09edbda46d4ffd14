import CKCore
import Foundation
import Testing

/// `create` saves, as CloudKit's save does: creating what exists succeeds and says what happened to it (docs/cli.md,
/// "What create means"), so a set-up script can run twice.
@Suite struct CreateTests {
    @Test func creatingAnExistingContainerLeavesIt() throws {
        let s = try Sandbox()
        let first = try s.ck("container", "create", "iCloud.com.example.Notes", "-o", "table")
        #expect(first.status == 0 && first.stdout == "Created container iCloud.com.example.Notes\n" && first.stderr.isEmpty)
        try s.ck("-c", "iCloud.com.example.Notes", "record", "save", "Note", "--name", "n1", "title=Kept")
        let again = try s.ck("container", "create", "iCloud.com.example.Notes", "--use", "-o", "table")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stdout == "Container iCloud.com.example.Notes (now current)\n")
        #expect(again.stderr == "ck: container 'iCloud.com.example.Notes' already exists; it is left as it is\n")
        #expect(try s.ck("record", "fetch", "n1").stdout.hasSuffix("title=Kept\n"), "the data is still there, and --use selected it")
        let json = try s.ck("container", "create", "iCloud.com.example.Notes", "-o", "json", "-q")
        #expect(json.status == 0 && json.stderr.isEmpty)
        #expect(try JSON.parse(json.stdout)["created"] == .bool(false), "\(json.stdout)")
    }

    @Test func creatingAnExistingZoneKeepsItAndItsRecords() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes", "--capabilities", "fetchChanges").status == 0)
        try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "title=Kept")
        let again = try s.ck("zone", "create", "Notes", "-o", "table")
        #expect(again.status == 0)
        #expect(again.stdout == "Zone Notes (capabilities: fetchChanges)\n", "\(again.stdout)")
        #expect(again.stderr.contains("zone 'Notes' already exists; saved as CloudKit saves an existing zone"))
        #expect(try s.ck("-z", "Notes", "record", "fetch", "n1").stdout.hasSuffix("title=Kept\n"))
    }

    @Test func creatingAnExistingSubscriptionReplacesIt() throws {
        let s = try Sandbox()
        try s.ck("record", "save", "Note", "priority=1")
        let first = try s.ck("subscription", "create", "query", "Note", "priority >= 5", "--id", "hot", "-o", "table")
        #expect(first.status == 0 && first.stderr.isEmpty)
        #expect(first.stdout.hasPrefix("Created query subscription hot: Note where priority >= 5"))
        let again = try s.ck("subscription", "create", "query", "Note", "priority >= 3", "--id", "hot", "-o", "table")
        #expect(again.status == 0)
        #expect(again.stdout.hasPrefix("Replaced query subscription hot: Note where priority >= 3"), "\(again.stdout)")
        #expect(again.stderr == "ck: subscription 'hot' already existed; replaced, as CloudKit's save replaces it\n")
        let list = try s.ck("subscription", "list")
        #expect(list.stdout.split(separator: "\n").count == 1 && list.stdout.contains("priority >= 3"), "\(list.stdout)")
    }
}
