import Foundation
import Testing

/// `ck doctor` checks share consistency (sharing.md §7–8) in zone logs edited by hand: it reports each broken rule
/// naming the zone, the records and the rule, repairs what CloudKit's own rules settle, and reports the rest.
@Suite struct SharingDoctorTests {
    func env(_ s: Sandbox) -> String { s.dir + "/store/containers/iCloud.ck.default/development" }

    /// The log of alice's zone `zone`.
    func log(_ s: Sandbox, _ zone: String) throws -> String {
        let rel = try #require(s.files(under: env(s)).first { $0.hasPrefix("private/") && $0.hasSuffix("/\(zone).jsonl") })
        return env(s) + "/" + rel
    }

    func lines(_ path: String) throws -> [[String: Any]] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    func write(_ lines: [[String: Any]], to path: String) throws {
        let text = try lines.map { String(decoding: try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys]), as: UTF8.self) }
        try (text.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// The highest sequence number of the environment's logs: a line appended by hand takes the next.
    func highestSeq(_ s: Sandbox) throws -> Int {
        var m = 0
        for f in s.files(under: env(s)) where f.hasSuffix(".jsonl") && !f.hasPrefix("notifications") {
            for l in try lines(env(s) + "/" + f) { m = max(m, l["seq"] as? Int ?? 0) }
        }
        return m
    }

    /// The last save line of a record.
    func lastSave(_ lines: [[String: Any]], _ name: String) throws -> [String: Any] {
        try #require(lines.last { ($0["record"] as? [String: Any])?["recordName"] as? String == name })
    }

    func share(_ s: Sandbox, _ root: String, invite: [String] = ["bob"]) throws {
        #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "List", "--name", root, "title=\(root)").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", root).status == 0)
        for u in invite { #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "invite", root, u).status == 0) }
    }

    @Test func aShareWithoutItsRootIsDeletedAndADanglingReferenceCleared() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Lists").status == 0)
        try share(s, "list-1")
        try share(s, "list-2")
        let path = try log(s, "Lists")
        var all = try lines(path)
        let owner = try #require((try lastSave(all, "list-1")["record"] as? [String: Any])?["created"] as? [String: Any])["userRecordName"] as? String
        // list-1 deleted without its share; share-list-2 deleted without clearing list-2's reference.
        let next = try highestSeq(s)
        all.append(["seq": next + 1, "op": "delete", "recordName": "list-1", "recordType": "List", "at": 0, "userRecordName": owner ?? ""])
        all.append(["seq": next + 2, "op": "delete", "recordName": "share-list-2", "recordType": "cloudkit.share", "at": 0, "userRecordName": owner ?? ""])
        try write(all, to: path)
        let before = try String(contentsOfFile: path, encoding: .utf8)

        let check = try s.ck("doctor")
        #expect(check.status == 1, "\(check.stdout)")
        #expect(check.stdout.contains("problem\t\(path)\tzone Lists of \(owner ?? ""): share 'share-list-1' shares 'list-1', which does not exist (rule: a share is deleted with its root)"), "\(check.stdout)")
        #expect(check.stdout.contains("zone Lists of \(owner ?? ""): record 'list-2' names share 'share-list-2', which does not exist (rule: a root's share reference names the share of that root)"), "\(check.stdout)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before, "doctor without --repair changes nothing")

        let repair = try s.ck("doctor", "--repair")
        #expect(repair.status == 0, "\(repair.stdout)")
        #expect(try s.ck("doctor").status == 0)
        #expect(try s.ck("--as", "alice", "share", "list", "-o", "name").stdout == "", "the orphaned share is gone")
        let fetched = try s.ck("--as", "alice", "-z", "Lists", "record", "fetch", "list-2", "-o", "json")
        let root = ((try JSONSerialization.jsonObject(with: Data(fetched.stdout.utf8)) as? [String: Any])?["records"] as? [[String: Any]])?.first
        #expect(root?["share"] == nil, "\(fetched.stdout)")
        #expect((root?["shortGUID"] as? String)?.isEmpty == false, "the root keeps its short GUID, so a reshare keeps its URL")
        // The zone works again: list-2 can be shared anew.
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-2").status == 0)
    }

    @Test func brokenParticipantListsAndNestedSharesAreReportedNotRepaired() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Lists").status == 0)
        try share(s, "list-1")
        try share(s, "list-2")
        try share(s, "list-3")
        try share(s, "inner", invite: [])
        let path = try log(s, "Lists")
        var all = try lines(path)
        func editShare(_ name: String, _ change: (inout [String: Any]) -> Void) throws {
            let i = try #require(all.lastIndex { ($0["record"] as? [String: Any])?["recordName"] as? String == name })
            var record = try #require(all[i]["record"] as? [String: Any])
            change(&record)
            all[i]["record"] = record
        }
        // share-list-1 names bob twice; share-list-2 has 101 participants; share-list-3 has no participant keys.
        try editShare("share-list-1") { r in
            var p = r["participants"] as? [[String: Any]] ?? []
            if let bob = p.last { p.append(bob) }
            r["participants"] = p
        }
        try editShare("share-list-2") { r in
            var p = r["participants"] as? [[String: Any]] ?? []
            for i in 0..<100 {
                let id = String(format: "_%032x", i + 1)
                p.append(["type": "USER", "acceptanceStatus": "INVITED", "participantId": id, "permission": "READ_ONLY",
                          "userIdentity": ["userRecordName": id, "nameComponents": ["givenName": "user\(i)"]]])
            }
            r["participants"] = p
        }
        try editShare("share-list-3") { r in
            r["participants"] = nil
            r["owner"] = nil
            r["publicPermission"] = nil
        }
        // inner moves below list-1: its records are reached by two shares.
        try editShare("inner") { r in r["parent"] = ["recordName": "list-1"] }
        try write(all, to: path)
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let owner = try #require((try lastSave(all, "list-1")["record"] as? [String: Any])?["created"] as? [String: Any])["userRecordName"] as? String ?? ""
        let zone = "zone Lists of \(owner)"

        for args in [["doctor"], ["doctor", "--repair"]] {
            let r = try s.run(args)
            #expect(r.status == 1, "\(args): \(r.stdout)")
            #expect(r.stdout.contains("problem\t\(path)\t\(zone): share 'share-list-1' lists _"), "\(r.stdout)")
            #expect(r.stdout.contains("more than once (rule: each user is a participant once)"), "\(r.stdout)")
            #expect(r.stdout.contains("\(zone): share 'share-list-2' has 102 participants (rule: a share has at most 100 participants)"), "\(r.stdout)")
            #expect(r.stdout.contains("\(zone): share 'share-list-3' has no participants and no owner (rule: a share lists its owner as a participant)"), "\(r.stdout)")
            #expect(r.stdout.contains("\(zone): 'inner' and the records below it are reached by two shares, 'share-inner' and 'share-list-1' (of 'list-1' above it) (rule: a record belongs to one share)"), "\(r.stdout)")
            #expect(try String(contentsOfFile: path, encoding: .utf8) == before, "\(args): nothing of this is repaired")
        }
    }

    @Test func aShareInTheDefaultZoneIsReported() throws {
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Lists").status == 0)
        try share(s, "list-1", invite: [])
        #expect(try s.ck("--as", "alice", "record", "save", "Note", "--name", "n", "t=1").status == 0)
        let path = try log(s, "_defaultZone")
        var all = try lines(path)
        var line = try lastSave(try lines(try log(s, "Lists")), "share-list-1")
        line["seq"] = try highestSeq(s) + 1
        var record = try #require(line["record"] as? [String: Any])
        var zoneID = try #require(record["zoneID"] as? [String: Any])
        zoneID["zoneName"] = "_defaultZone"
        zoneID["zoneType"] = "DEFAULT_ZONE"
        record["zoneID"] = zoneID
        record["rootRecordName"] = "n"
        line["record"] = record
        all.append(line)
        try write(all, to: path)
        let owner = try #require((record["created"] as? [String: Any])?["userRecordName"] as? String)
        let r = try s.ck("doctor")
        #expect(r.status == 1)
        #expect(r.stdout.contains("problem\t\(path)\tzone _defaultZone of \(owner): share 'share-list-1' is in the default zone (rule: a share lives in a custom zone of its owner's private database)"), "\(r.stdout)")
    }
}
