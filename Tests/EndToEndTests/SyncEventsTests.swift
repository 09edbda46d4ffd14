import Foundation
import Testing

/// `ck sync --events` (CKSyncEngine's events as JSON Lines), account changes on a device, and the three reasons
/// a zone leaves a device (deleted, purged, encryptedDataReset), through the binary.
@Suite struct SyncEventsTests {
    /// The JSON objects of a JSON Lines output.
    func lines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
        }
    }

    func names(_ events: [[String: Any]]) -> [String] { events.map { $0["event"] as? String ?? "?" } }

    func recordNames(_ list: Any?) -> [String] {
        ((list as? [[String: Any]]) ?? []).map { ($0["recordName"] as? String) ?? (($0["recordID"] as? [String: Any])?["recordName"] as? String) ?? "?" }
    }

    /// As docs/store.md derives it (sha256 of `ck-user:NAME`), not by asking ck.
    func userRecordName(_ s: Sandbox, _ user: String) throws -> String {
        let r = try s.run(["-c", "printf 'ck-user:%s' \"$1\" | sha256sum | cut -c1-32", "sh", user], program: "/bin/sh")
        try #require(r.status == 0 && r.stdout.count == 33, "\(r.stderr)")
        return "_" + r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func aSyncThatPushesAndPullsPostsTheEngineEventsInOrder() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "title=one").status == 0)
        let first = try s.ck("sync", "phone", "--events")
        #expect(first.status == 0, "\(first.stderr)")
        let firstEvents = try lines(first.stdout)
        #expect(names(firstEvents) == ["accountChange", "willFetchChanges", "fetchedDatabaseChanges", "willFetchRecordZoneChanges",
                                       "fetchedRecordZoneChanges", "stateUpdate", "didFetchRecordZoneChanges", "stateUpdate", "didFetchChanges"],
                "\(first.stdout)")
        #expect(firstEvents[0]["changeType"] as? String == "signIn")
        #expect(firstEvents[0]["currentUser"] as? String == (try userRecordName(s, "default")))
        // The second sync pushes an edit and pulls a deletion and that edit back.
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n2", "-z", "Notes", "title=two").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "delete", "n1", "-y").status == 0)
        let r = try s.ck("sync", "phone", "-o", "jsonl")
        #expect(r.status == 0, "\(r.stderr)")
        let events = try lines(r.stdout)
        #expect(names(events) == ["willSendChanges", "sentRecordZoneChanges", "stateUpdate", "didSendChanges",
                                  "willFetchChanges", "fetchedDatabaseChanges", "willFetchRecordZoneChanges", "fetchedRecordZoneChanges",
                                  "stateUpdate", "didFetchRecordZoneChanges", "stateUpdate", "didFetchChanges"], "\(r.stdout)")
        guard events.count == 12 else { return }
        #expect(recordNames(events[1]["savedRecords"]) == ["n2"])
        #expect((events[1]["failedRecordSaves"] as? [Any])?.isEmpty == true)
        let afterPush = try #require(events[2]["stateSerialization"] as? [String: Any])
        #expect(afterPush["pendingRecordZoneChanges"] as? Int == 0)
        #expect(((events[5]["modifications"] as? [[String: Any]]) ?? []).map { $0["zoneName"] as? String } == ["Notes"], "\(events[5])")
        #expect((events[6]["zoneID"] as? [String: Any])?["zoneName"] as? String == "Notes")
        let fetched = events[7]
        #expect(recordNames(fetched["modifications"]) == ["n2"], "the pushed record comes back, in full")
        #expect(((fetched["modifications"] as? [[String: Any]])?.first?["fields"] as? [String: Any])?["title"] != nil)
        let deletions = try #require(fetched["deletions"] as? [[String: Any]])
        #expect(deletions.count == 1 && recordNames(deletions) == ["n1"] && deletions[0]["recordType"] as? String == "Note", "\(deletions)")
        let state = try #require(events[10]["stateSerialization"] as? [String: Any])
        #expect(state["databaseToken"] is String)
        #expect(((state["zoneTokens"] as? [[String: Any]]) ?? []).map { $0["zoneName"] as? String } == ["Notes"])
        // --events means the same stream whatever -o says.
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n3", "-z", "Notes", "title=three").status == 0)
        let table = try s.run(["sync", "phone", "--events", "-o", "table"])
        #expect(names(try lines(table.stdout)).prefix(2) == ["willSendChanges", "sentRecordZoneChanges"], "\(table.stdout)")
    }

    @Test func aConflictIsAFailedSaveWithTheServerRecordThenTheMergedSave() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "title=one").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n1", "-z", "Notes", "body=phone").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "--policy", "changed-keys", "title=server").status == 0)
        let r = try s.ck("sync", "phone", "--events")
        #expect(r.status == 0, "\(r.stderr)")
        let sent = try lines(r.stdout).filter { $0["event"] as? String == "sentRecordZoneChanges" }
        try #require(sent.count >= 1, "\(r.stdout)")
        let failed = try #require((sent[0]["failedRecordSaves"] as? [[String: Any]])?.first, "\(sent[0])")
        #expect((failed["error"] as? [String: Any])?["ckErrorCode"] as? String == "serverRecordChanged")
        #expect(((failed["serverRecord"] as? [String: Any])?["fields"] as? [String: Any])?["title"] != nil, "the server's record comes with the failure")
    }

    @Test func jsonListsThePulledRecordNamesAndTheDeletedIDsWithTypes() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "title=one").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Task", "--name", "t1", "title=task").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "delete", "t1", "-y").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n2", "title=two").status == 0)
        let r = try s.ck("sync", "phone", "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let pulled = try #require((doc["pulled"] as? [[String: Any]])?.first)
        #expect(pulled["zoneName"] as? String == "Notes")
        #expect(pulled["modifiedRecordNames"] as? [String] == ["n2"], "\(pulled)")
        let deleted = pulled["deletedRecordIDs"] as? [[String: String]]
        #expect(deleted == [["recordName": "t1", "recordType": "Task"]], "\(pulled)")
    }

    @Test func anAccountSwitchClearsPendingEditsAndThePreviousAccountsData() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Notes").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Notes", "record", "save", "Note", "--name", "a1", "title=alice").status == 0)
        #expect(try s.ck("--as", "bob", "zone", "create", "Work").status == 0)
        #expect(try s.ck("--as", "bob", "-z", "Work", "record", "save", "Task", "--name", "b1", "title=bob").status == 0)
        #expect(try s.ck("--as", "alice", "sync", "phone").status == 0)
        #expect(try s.ck("--as", "alice", "device", "save", "phone", "Note", "--name", "a2", "-z", "Notes", "title=unsent").status == 0)
        let switched = try s.ck("--as", "alice", "device", "switch-account", "phone", "--to", "bob")
        #expect(switched.status == 0, "\(switched.stderr)")
        #expect(switched.stdout == "phone\tswitched\talice\tbob\n")
        #expect(try s.ck("--as", "alice", "device", "list").stdout.isEmpty, "the device is bob's now")
        let r = try s.ck("--as", "bob", "sync", "phone", "--events")
        #expect(r.status == 0, "\(r.stderr)")
        let events = try lines(r.stdout)
        let change = try #require(events.first)
        #expect(change["event"] as? String == "accountChange")
        #expect(change["changeType"] as? String == "switchAccounts")
        #expect(change["previousUser"] as? String == (try userRecordName(s, "alice")))
        #expect(change["currentUser"] as? String == (try userRecordName(s, "bob")))
        #expect(change["clearedPendingChanges"] as? Int == 1 && change["removedRecords"] as? Int == 1, "\(change)")
        #expect(!names(events).contains("willSendChanges"), "alice's pending edit is not sent: \(r.stdout)")
        #expect(try s.ck("--as", "alice", "-z", "Notes", "record", "fetch", "a2").status == 3)
        let records = try s.ck("--as", "bob", "device", "records", "phone")
        #expect(records.stdout.hasPrefix("Work\tb1\tTask\t") && !records.stdout.contains("Notes"), "\(records.stdout)")
        // A second switch to a user who has a device of that name is refused.
        #expect(try s.ck("--as", "carol", "sync", "phone").status == 0)
        let taken = try s.ck("--as", "bob", "device", "switch-account", "phone", "--to", "carol")
        #expect(taken.status != 0 && taken.stderr.contains("user 'carol' already has a device 'phone'"), "\(taken.stderr)")
    }

    @Test func signOutClearsTheDeviceAndSignInStartsFresh() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n1", "title=one").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n2", "-z", "Notes", "title=offline").status == 0)
        #expect(try s.ck("account", "set", "noAccount").status == 0)
        let out = try s.ck("sync", "phone", "--events")
        #expect(out.status == 7, "\(out.stderr)")
        #expect(out.stderr.contains("its pending edits were cleared and its data removed from the device"), "\(out.stderr)")
        let events = try lines(out.stdout)
        #expect(names(events) == ["accountChange", "stateUpdate"], "\(out.stdout)")
        #expect(events.first?["changeType"] as? String == "signOut")
        #expect(events.first?["clearedPendingChanges"] as? Int == 1 && events.first?["removedRecords"] as? Int == 1)
        #expect(try s.ck("device", "records", "phone").stdout.isEmpty)
        #expect(try s.ck("account", "set", "available").status == 0)
        let back = try s.ck("sync", "phone", "--events")
        #expect(back.status == 0, "\(back.stderr)")
        let backEvents = try lines(back.stdout)
        #expect(backEvents.first?["changeType"] as? String == "signIn", "\(back.stdout)")
        #expect(!names(backEvents).contains("willSendChanges"))
        #expect(try s.ck("device", "records", "phone").stdout.hasPrefix("Notes\tn1\tNote\t"), "fetched again from the start")
        #expect(try s.ck("-z", "Notes", "record", "fetch", "n2").status == 3, "the edit made before the sign-out was never sent")
    }

    @Test func deletedPurgedAndEncryptedDataResetZonesOnADevice() throws {
        let s = try Sandbox()
        for z in ["A", "B", "C"] {
            #expect(try s.ck("zone", "create", z).status == 0)
            #expect(try s.ck("-z", z, "record", "save", "Note", "--name", z.lowercased() + "1", "title=server").status == 0)
        }
        #expect(try s.ck("sync", "phone").status == 0)
        for z in ["A", "B", "C"] {
            let n = z.lowercased()
            #expect(try s.ck("device", "save", "phone", "Note", "--name", n + "1", "-z", z, "title=edited").status == 0)
            #expect(try s.ck("device", "save", "phone", "Note", "--name", n + "2", "-z", z, "title=new").status == 0)
        }
        #expect(try s.ck("zone", "delete", "A", "-y").stdout == "A\tdeleted\t1\n")
        #expect(try s.ck("zone", "purge", "B", "-y").stdout == "B\tpurged\t1\n")
        #expect(try s.ck("zone", "reset-encrypted", "C", "-y").stdout == "C\tencryptedDataReset\t1\n")
        let feed = try s.ck("changes", "database", "-o", "plain")
        #expect(feed.stdout.hasPrefix("deleted\tA\npurged\tB\nencryptedDataReset\tC\n"), "\(feed.stdout)")
        #expect(try s.ck("changes", "database", "-o", "json").stdout.contains("\"encryptedDataReset\": true"))
        let r = try s.ck("sync", "phone", "--events")
        // A's new record stays pending (created on the device, its zone deleted): exit 10, as before.
        #expect(r.status == 10, "\(r.stdout)\(r.stderr)")
        let events = try lines(r.stdout)
        let db = try #require(events.first { $0["event"] as? String == "fetchedDatabaseChanges" }, "\(r.stdout)")
        let reasons = ((db["deletions"] as? [[String: String]]) ?? []).map { "\($0["zoneName"] ?? "?")=\($0["reason"] ?? "?")" }
        #expect(reasons == ["A=deleted", "B=purged", "C=encryptedDataReset"], "\(db)")
        // deleted: the zone is wiped, the edit of a1 dropped, the new a2 pending; purged: nothing left, nothing sent;
        // encryptedDataReset: the zone is back on the server with what the device held.
        let records = try s.ck("device", "records", "phone").stdout.split(separator: "\n").map { $0.split(separator: "\t").prefix(2).joined(separator: " ") }
        #expect(records == ["A a2", "C c1", "C c2"], "\(records)")
        let b = try s.ck("-z", "B", "record", "fetch", "b2")
        #expect(b.status == 3 && b.stderr.contains("userDeletedZone"), "\(b.stderr)")
        #expect(try s.ck("-z", "C", "record", "fetch", "c1", "-o", "plain").stdout.hasSuffix("\ttitle=edited\n"))
        #expect(try s.ck("-z", "C", "record", "fetch", "c2").status == 0)
        // The purge is never undone by a later sync.
        let again = try s.ck("sync", "phone", "-o", "json")
        #expect(!again.stdout.contains("\"B\""), "\(again.stdout)")
        #expect(!(try s.ck("zone", "list", "-o", "name").stdout.contains("B")))
    }
}
