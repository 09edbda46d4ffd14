import Foundation
import Testing

/// Database subscriptions in a participant's shared database (issue 25; sharing.md §8, cloudkit.md §14): they
/// fire when a record the participant's accepted shares reach changes, whoever saved it, and when a shared zone
/// appears in or leaves the shared database; never for the owner's records outside the shares.
@Suite struct SharingNotificationTests {
    /// alice's zone Lists: a shared root with one item below it, and a private note outside the hierarchy.
    func shared(_ s: Sandbox, with users: [String] = ["bob"], permission: String = "readOnly") throws -> String {
        #expect(try s.ck("--as", "alice", "zone", "create", "Lists").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "List", "--name", "list-1", "title=Groceries").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "milk", "--parent", "list-1", "name=Milk").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Note", "--name", "diary", "text=private").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1").status == 0)
        for user in users {
            #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", user, "--permission", permission).status == 0)
        }
        let shown = try s.ck("--as", "alice", "-z", "Lists", "share", "show", "list-1", "-o", "json")
        let json = (try? JSONSerialization.jsonObject(with: Data(shown.stdout.utf8))) as? [String: Any]
        return json?["url"] as? String ?? ""
    }

    func subscribe(_ s: Sandbox, _ user: String) throws {
        let r = try s.ck("--as", user, "--db", "shared", "subscription", "create", "database", "--id", "shared-db")
        #expect(r.status == 0, "\(r.stderr)")
    }

    /// A user's notifications, oldest first.
    func notifications(_ s: Sandbox, _ user: String) throws -> [[String: Any]] {
        let r = try s.ck("--as", user, "notification", "list", "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        let doc = (try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8))) as? [String: Any]
        return doc?["notifications"] as? [[String: Any]] ?? []
    }

    /// alice saves a List in her zone Lists, shares it, invites bob, and bob accepts through the share's URL.
    func sharedWithBob(_ s: Sandbox, _ name: String, title: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "List", "--name", name, "title=\(title)").status == 0, sourceLocation: sourceLocation)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", name).status == 0, sourceLocation: sourceLocation)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", name, "bob").status == 0, sourceLocation: sourceLocation)
        let shown = try s.ck("--as", "alice", "-z", "Lists", "share", "show", name, "-o", "json")
        let url = ((try? JSONSerialization.jsonObject(with: Data(shown.stdout.utf8))) as? [String: Any])?["url"] as? String ?? ""
        #expect(try s.ck("--as", "bob", "share", "accept", url).status == 0, sourceLocation: sourceLocation)
    }

    /// Expects `user` to have `count` notifications.
    func expect(_ s: Sandbox, _ user: String, _ count: Int, _ why: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let list = try notifications(s, user)
        #expect(list.count == count, Comment(rawValue: "\(user) has \(list.count)" + (why.map { ": \($0)" } ?? "")), sourceLocation: sourceLocation)
    }

    @Test func theZoneAppearsChangesAndGoesWithoutLeakingTheRest() throws {
        let s = try Sandbox()
        try subscribe(s, "bob")
        let link = try shared(s)
        // Invited but not yet accepted: nothing of alice's zone is in bob's shared database.
        try expect(s, "bob", 0)
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)
        let appeared = try notifications(s, "bob")
        #expect(appeared.count == 1, "accepting brings the zone into the shared database")
        let n = appeared.first ?? [:]
        #expect(n["notificationType"] as? String == "database" && n["databaseScope"] as? String == "SHARED")
        #expect(n["subscriptionID"] as? String == "shared-db")

        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "milk", "name=Oat milk", "--policy", "changed-keys").status == 0)
        try expect(s, "bob", 2, "a shared record changed")
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "eggs", "--parent", "list-1", "name=Eggs").status == 0)
        try expect(s, "bob", 3, "a record created under the root")

        // The owner's records outside the share never notify the participant.
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Note", "--name", "diary", "text=still private", "--policy", "changed-keys").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Note", "--name", "plans", "text=secret").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "delete", "plans", "-y").status == 0)
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "--name", "elsewhere", "text=default zone").status == 0)
        try expect(s, "bob", 3)

        // A record moved out of the share was reached before the change: bob's copy goes, so he hears of it.
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "eggs", "--parent", "diary", "--policy", "changed-keys").status == 0)
        try expect(s, "bob", 4)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "eggs", "name=Brown eggs", "--policy", "changed-keys").status == 0)
        try expect(s, "bob", 4, "eggs is outside the share now")

        // Removed: the zone leaves bob's shared database (one notification), and later changes are not his.
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "remove", "list-1", "bob").status == 0)
        try expect(s, "bob", 5)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "milk", "name=Whole milk", "--policy", "changed-keys").status == 0)
        try expect(s, "bob", 5)
        // The owner's own subscriptions are not touched by the participant's.
        try expect(s, "alice", 0)
    }

    @Test func aParticipantsWriteNotifiesTheOtherParticipants() throws {
        let s = try Sandbox()
        let link = try shared(s, with: ["bob", "carol"], permission: "readWrite")
        for user in ["bob", "carol"] { #expect(try s.ck("--as", user, "share", "accept", link).status == 0) }
        try subscribe(s, "carol")
        let saved = try s.ck("--as", "bob", "--db", "shared", "-z", "Lists", "record", "save", "Item", "--name", "bread", "--parent", "list-1", "name=Bread")
        #expect(saved.status == 0, "\(saved.stderr)")
        try expect(s, "carol", 1)
        // bob leaving rewrites the share record, which carol's shared database shows: she hears of it once.
        #expect(try s.ck("--as", "bob", "share", "leave", link).status == 0)
        try expect(s, "carol", 2)
        // dave, not a participant, subscribed too: he hears nothing of alice's zone.
        try subscribe(s, "dave")
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "Item", "--name", "milk", "name=Whole milk", "--policy", "changed-keys").status == 0)
        try expect(s, "carol", 3)
        try expect(s, "dave", 0)
    }

    @Test func theZoneGoesWhenTheParticipantLeavesOrTheShareRootOrZoneIsDeleted() throws {
        let s = try Sandbox()
        let link = try shared(s)
        try subscribe(s, "bob")
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)
        #expect(try s.ck("--as", "bob", "share", "leave", link).status == 0)
        try expect(s, "bob", 2, "accepted, then left")

        // alice invites bob again; he accepts; deleting the root deletes the share, and the zone goes.
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", "list-1", "bob").status == 0)
        try expect(s, "bob", 2, "invited again, not yet accepted")
        #expect(try s.ck("--as", "bob", "share", "accept", link).status == 0)
        try expect(s, "bob", 3)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "delete", "list-1", "-y").status == 0)
        try expect(s, "bob", 4)

        // A share deleted by its owner.
        try sharedWithBob(s, "list-2", title: "Hardware")
        try expect(s, "bob", 5)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "delete", "list-2").status == 0)
        try expect(s, "bob", 6)

        // The owner's zone deleted with an accepted share in it.
        try sharedWithBob(s, "list-3", title: "Books")
        try expect(s, "bob", 7)
        #expect(try s.ck("--as", "alice", "zone", "delete", "Lists", "-y").status == 0)
        try expect(s, "bob", 8)
    }
}
