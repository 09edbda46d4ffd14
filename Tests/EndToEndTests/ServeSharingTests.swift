import Foundation
import Testing
import CKModel

/// Sharing over `ck serve` (sharing.md §10): a share made in records/modify, records/resolve and records/accept on
/// /public/, and the /shared/ database routes, with two users each holding their own web auth token. Expected
/// values are written from the reference (key names, INVITED/ACCEPTED, SHARED/PRIVATE, NOT_FOUND, ACCESS_DENIED).
final class SharingFixture {
    static let base = "/database/1/iCloud.ck.default/development"
    /// ck's user record names: "_" and the first 32 hex digits of SHA-256("ck-user:" + name).
    static let alice = "_0a57258488baa90f757a41c406456800"
    static let bob = "_b15e78f3306bddc091629d5b570339fa"
    static let carol = "_772ccf5b214855d494e67b2f1e1acb7b"

    let sandbox: Sandbox
    let server: ServeProcess
    var tokens: [String: String] = [:]
    /// The short GUID of alice's share of list-1, as her records/modify answered it.
    var guid = ""
    /// alice's records/modify answer that made the share.
    var created: JSON = .null

    /// alice, bob and carol; alice's zone Lists holding list-1 ("Groceries") and item-1 (Milk) under it, shared
    /// with bob read-only in one records/modify (root + share), and `other`, outside the share.
    init() throws {
        sandbox = try Sandbox()
        try SharingFixture.cli(sandbox, "init")
        for u in ["alice", "bob", "carol"] {
            try SharingFixture.cli(sandbox, "user", "create", u)
            tokens[u] = try SharingFixture.cli(sandbox, "serve", "token", "create", "--as", u).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        try SharingFixture.cli(sandbox, "zone", "create", "Lists", "--as", "alice")
        server = try ServeProcess(sandbox)
        let made = try ok("alice", "private/records/modify", """
            {"zoneID": {"zoneName": "Lists"}, "operations": [
              {"operationType": "create", "record": {"recordName": "list-1", "recordType": "List", "fields": {"title": {"value": "Groceries"}}}},
              {"operationType": "create", "record": {"recordName": "item-1", "recordType": "Item", "parent": {"recordName": "list-1"},
                                                     "fields": {"name": {"value": "Milk"}}}},
              {"operationType": "create", "record": {"recordName": "other", "recordType": "Item", "fields": {"name": {"value": "Not shared"}}}}]}
            """)
        let tag = try #require(made["records"]?.arrayValue?.first?["recordChangeTag"]?.stringValue)
        // Development indexes no system field by itself: bob's queries need recordName queryable.
        try SharingFixture.cli(sandbox, "schema", "index", "Item", "___recordID", "--queryable")
        created = try ok("alice", "private/records/modify", """
            {"zoneID": {"zoneName": "Lists"}, "operations": [
              {"operationType": "update", "record": {"recordName": "list-1", "recordType": "List", "recordChangeTag": "\(tag)",
                                                     "createShortGUID": true, "fields": {}}},
              {"operationType": "create", "record": {"recordName": "share-list-1", "recordType": "cloudkit.share",
                "fields": {"cloudkit.title": {"value": "Groceries"}},
                "forRecord": {"recordName": "list-1", "recordChangeTag": "\(tag)"},
                "publicPermission": "NONE",
                "participants": [{"userIdentity": {"userRecordName": "\(SharingFixture.bob)"}, "type": "USER", "permission": "READ_ONLY"}]}}]}
            """)
        guid = try #require(created["records"]?.arrayValue?.last?["shortGUID"]?.stringValue)
    }

    deinit { server.stop() }

    @discardableResult
    static func cli(_ sandbox: Sandbox, _ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let r = try sandbox.run(args)
        try #require(r.status == 0, "ck \(args.joined(separator: " ")): \(r.stderr)", sourceLocation: sourceLocation)
        return r.stdout
    }

    /// POST `body` to `…/development/OP` as `user` (nil: no token).
    func post(_ user: String?, _ op: String, _ body: String) throws -> HTTPClientReply {
        let headers = user.map { [("X-Apple-CloudKit-Web-Auth-Token", tokens[$0] ?? "")] } ?? []
        return try server.post(SharingFixture.base + "/" + op, json: body, headers: headers)
    }

    /// A POST that must answer 200: its body.
    func ok(_ user: String?, _ op: String, _ body: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let r = try post(user, op, body)
        try #require(r.status == 200, "\(op) answered \(r.status): \(r.text)", sourceLocation: sourceLocation)
        return r.json
    }

    /// The first result of a records/resolve or records/accept of alice's share.
    func metadata(_ user: String, _ op: String, item: String? = nil) throws -> JSON {
        let r = try ok(user, "public/records/" + op, "{\"shortGUIDs\": [\(item ?? "{\"value\": \"\(guid)\"}")]}")
        return try #require(r["results"]?.arrayValue?.first)
    }

    /// A participant dictionary as the reference shows it (sharing.md §10.2).
    static func participant(_ urn: String, _ name: String, type: String, status: String, permission: String) -> JSON {
        .object(["participantId": .string(urn),
                 "userIdentity": .object(["userRecordName": .string(urn), "nameComponents": .object(["givenName": .string(name)])]),
                 "type": .string(type), "acceptanceStatus": .string(status), "permission": .string(permission)])
    }

    static func zoneID(_ owner: String, _ name: String = "Lists") -> JSON {
        .object(["zoneName": .string(name), "ownerRecordName": .string(owner), "zoneType": .string("REGULAR_CUSTOM_ZONE")])
    }

    static func names(_ records: JSON?) -> [String] { (records?.arrayValue ?? []).compactMap { $0["recordName"]?.stringValue } }
}

@Suite struct ServeSharingTests {
    typealias F = SharingFixture

    @Test func aShareMadeInRecordsModifyCarriesTheShareKeys() throws {
        let f = try SharingFixture()
        let records = try #require(f.created["records"]?.arrayValue)
        #expect(records.count == 2)
        let root = records[0], share = records[1]
        // CloudKit's short GUIDs: "0" and 24 letters or digits (sharing.md §10.3's example has 25 characters).
        #expect(f.guid.count == 25 && f.guid.hasPrefix("0"))
        #expect(root["recordName"] == .string("list-1"))
        #expect(root["shortGUID"] == .string(f.guid))
        #expect(root["share"]?["recordName"] == .string("share-list-1"))
        #expect(share["recordType"] == .string("cloudkit.share"))
        #expect(share["shortGUID"] == .string(f.guid))
        #expect(share["publicPermission"] == .string("NONE"))
        let alice = F.participant(F.alice, "alice", type: "OWNER", status: "ACCEPTED", permission: "READ_WRITE")
        let bob = F.participant(F.bob, "bob", type: "USER", status: "INVITED", permission: "READ_ONLY")
        #expect(share["participants"] == .array([alice, bob]))
        #expect(share["owner"] == alice)
        #expect(share["currentUserParticipant"] == alice)
        #expect(share["fields"]?["cloudkit.title"]?["value"] == .string("Groceries"))
        // records/lookup by the owner shows the same keys; the root still points at its share.
        let looked = try f.ok("alice", "private/records/lookup", #"{"zoneID": {"zoneName": "Lists"}, "records": [{"recordName": "list-1"}, {"recordName": "share-list-1"}]}"#)
        let found = try #require(looked["records"]?.arrayValue)
        #expect(found[0]["share"]?["recordName"] == .string("share-list-1"))
        #expect(found[0]["shortGUID"] == .string(f.guid))
        #expect(found[1]["participants"] == .array([alice, bob]))
        #expect(found[1]["currentUserParticipant"] == alice)
    }

    @Test func participantsByLookupInfoAndPrivateUserAreRead() throws {
        let f = try SharingFixture()
        let share = try #require(f.created["records"]?.arrayValue?.last)
        let tag = try #require(share["recordChangeTag"]?.stringValue)
        // PRIVATE_USER (pyicloud's spelling) and lookupInfo.userRecordName both name an invited user.
        let r = try f.ok("alice", "private/records/modify", """
            {"zoneID": {"zoneName": "Lists"}, "operations": [{"operationType": "update", "record": {
              "recordName": "share-list-1", "recordType": "cloudkit.share", "recordChangeTag": "\(tag)", "fields": {},
              "participants": [{"userIdentity": {"userRecordName": "\(F.bob)"}, "type": "USER", "permission": "READ_ONLY"},
                               {"lookupInfo": {"userRecordName": "\(F.carol)"}, "type": "PRIVATE_USER", "permission": "READ_WRITE"}]}}]}
            """)
        let saved = try #require(r["records"]?.arrayValue?.first)
        #expect(saved["participants"]?.arrayValue?.last == F.participant(F.carol, "carol", type: "USER", status: "INVITED", permission: "READ_WRITE"))
        // An e-mail address names nobody ck knows: the request is refused, naming the place.
        let bad = try f.post("alice", "private/records/modify", """
            {"zoneID": {"zoneName": "Lists"}, "operations": [{"operationType": "update", "record": {
              "recordName": "share-list-1", "recordType": "cloudkit.share", "recordChangeTag": "\(tag)",
              "participants": [{"lookupInfo": {"emailAddress": "bob@example.com"}, "permission": "READ_ONLY"}]}}]}
            """)
        #expect(bad.status == 400)
        #expect(bad.json["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(bad.json["reason"]?.stringValue?.hasPrefix("operations[0].record.participants[0].lookupInfo.emailAddress:") == true, "\(bad.text)")
        // Share keys on a record that is no share are refused.
        let notShare = try f.post("alice", "private/records/modify", """
            {"zoneID": {"zoneName": "Lists"}, "operations": [{"operationType": "create", "record": {
              "recordName": "x", "recordType": "List", "publicPermission": "READ_ONLY"}}]}
            """)
        #expect(notShare.status == 400)
        #expect(notShare.json["reason"]?.stringValue?.hasPrefix("operations[0].record.publicPermission: only a share record") == true, "\(notShare.text)")
    }

    @Test func bobResolvesAsInvitedAcceptsAndSeesAlicesZone() throws {
        let f = try SharingFixture()
        #expect(try f.ok("bob", "shared/zones/list", "{}")["zones"] == .array([]))
        let resolved = try f.metadata("bob", "resolve")
        #expect(resolved["databaseScope"] == .string("SHARED"))
        #expect(resolved["participantType"] == .string("USER"))
        #expect(resolved["participantStatus"] == .string("INVITED"))
        #expect(resolved["participantPermission"] == .string("READ_ONLY"))
        #expect(resolved["ownerIdentity"]?["userRecordName"] == .string(F.alice))
        #expect(resolved["zoneID"] == F.zoneID(F.alice))
        #expect(resolved["containerIdentifier"] == .string("iCloud.ck.default"))
        #expect(resolved["environment"] == .string("development"))
        #expect(resolved["rootRecordName"] == .string("list-1"))
        #expect(resolved["shortGUID"] == .object(["value": .string(f.guid), "shouldFetchRootRecord": .bool(true)]))
        #expect(resolved["rootRecord"]?["fields"]?["title"]?["value"] == .string("Groceries"))
        #expect(resolved["share"]?["currentUserParticipant"] == F.participant(F.bob, "bob", type: "USER", status: "INVITED", permission: "READ_ONLY"))
        // shouldFetchRootRecord:false leaves the root out; rootRecordDesiredKeys picks its fields.
        let noRoot = try f.metadata("bob", "resolve", item: "{\"value\": \"\(f.guid)\", \"shouldFetchRootRecord\": false}")
        #expect(noRoot["rootRecord"] == nil)
        #expect(noRoot["shortGUID"]?["shouldFetchRootRecord"] == .bool(false))
        let keys = try f.metadata("bob", "resolve", item: "{\"value\": \"\(f.guid)\", \"rootRecordDesiredKeys\": []}")
        #expect(keys["rootRecord"]?["fields"] == .object([:]))
        #expect(keys["rootRecord"]?["recordName"] == .string("list-1"))
        // The owner resolving sees the private scope.
        let own = try f.metadata("alice", "resolve", item: "\"\(f.guid)\"")
        #expect(own["databaseScope"] == .string("PRIVATE"))
        #expect(own["participantType"] == .string("OWNER"))
        // Resolving changes nothing: bob's shared database is still empty until he accepts.
        #expect(try f.ok("bob", "shared/zones/list", "{}")["zones"] == .array([]))
        let accepted = try f.metadata("bob", "accept")
        #expect(accepted["databaseScope"] == .string("SHARED"))
        #expect(accepted["participantStatus"] == .string("ACCEPTED"))
        #expect(accepted["share"]?["participants"]?.arrayValue?.last == F.participant(F.bob, "bob", type: "USER", status: "ACCEPTED", permission: "READ_ONLY"))
        let zones = try f.ok("bob", "shared/zones/list", "{}")["zones"]?.arrayValue ?? []
        #expect(zones.map { $0["zoneID"] } == [F.zoneID(F.alice)])
        // The database feed shows the zone too, with its owner (sharing.md §10.5).
        let feed = try f.ok("bob", "shared/changes/database", "{}")
        #expect(feed["zones"]?.arrayValue?.map { $0["zoneID"] } == [F.zoneID(F.alice)])
        // zones/lookup with the owner finds it; another owner's zone of that name is not there.
        let looked = try f.ok("bob", "shared/zones/lookup", "{\"zones\": [{\"zoneName\": \"Lists\", \"ownerRecordName\": \"\(F.alice)\"}, {\"zoneName\": \"Lists\", \"ownerRecordName\": \"\(F.carol)\"}]}")
        let items = looked["zones"]?.arrayValue ?? []
        #expect(items.count == 2)
        #expect(items.first?["zoneID"] == F.zoneID(F.alice))
        #expect(items.last?["serverErrorCode"] == .string("ZONE_NOT_FOUND"))
        #expect(items.last?["zoneID"] == F.zoneID(F.carol))
        // Carol, not invited, may not accept: ACCESS_DENIED in her result's place.
        let carol = try f.metadata("carol", "accept")
        #expect(carol["serverErrorCode"] == .string("ACCESS_DENIED"))
        #expect(carol["shortGUID"] == .object(["value": .string(f.guid)]))
    }

    @Test func bobReadsTheSharedRecordsAndCantWriteAReadOnlyShare() throws {
        let f = try SharingFixture()
        _ = try f.metadata("bob", "accept")
        let zone = "{\"zoneName\": \"Lists\", \"ownerRecordName\": \"\(F.alice)\"}"
        let q = try f.ok("bob", "shared/records/query", "{\"zoneID\": \(zone), \"query\": {\"recordType\": \"Item\"}}")
        #expect(F.names(q["records"]) == ["item-1"])
        #expect(q["records"]?.arrayValue?.first?["zoneID"] == F.zoneID(F.alice))
        // A query must name its zone in the shared database.
        let noZone = try f.post("bob", "shared/records/query", #"{"query": {"recordType": "Item"}}"#)
        #expect(noZone.status == 400)
        #expect(noZone.json["serverErrorCode"] == .string("BAD_REQUEST"))
        let looked = try f.ok("bob", "shared/records/lookup", "{\"zoneID\": \(zone), \"records\": [{\"recordName\": \"list-1\"}, {\"recordName\": \"share-list-1\"}, {\"recordName\": \"other\"}]}")
        let found = looked["records"]?.arrayValue ?? []
        #expect(F.names(looked["records"]) == ["list-1", "share-list-1", "other"])
        // A record of alice's zone outside the share is not there for bob.
        #expect(found.last?["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(found.last?["fields"] == nil)
        #expect(found.first?["shortGUID"] == .string(f.guid))
        #expect(found[1]["currentUserParticipant"] == F.participant(F.bob, "bob", type: "USER", status: "ACCEPTED", permission: "READ_ONLY"))
        let changes = try f.ok("bob", "shared/changes/zone", "{\"zones\": [{\"zoneID\": \(zone)}]}")
        let feed = changes["zones"]?.arrayValue?.first
        // The shared zone's feed holds the shared hierarchy only: "other" in alice's zone is not in it.
        #expect(Set(F.names(feed?["records"])) == ["list-1", "item-1", "share-list-1"])
        #expect(feed?["zoneID"] == F.zoneID(F.alice))
        // Writes to a read-only share: ACCESS_DENIED for each record, inside the 200 (a record's zoneID without the
        // owner is the request's zone).
        let tag = try #require(found.first?["recordChangeTag"]?.stringValue)
        let w = try f.ok("bob", "shared/records/modify", """
            {"zoneID": \(zone), "atomic": false, "operations": [
              {"operationType": "update", "record": {"recordName": "list-1", "recordType": "List", "recordChangeTag": "\(tag)",
                                                     "zoneID": {"zoneName": "Lists"}, "fields": {"title": {"value": "Mine"}}}},
              {"operationType": "create", "record": {"recordName": "item-2", "recordType": "Item", "parent": {"recordName": "list-1"}, "fields": {"name": {"value": "Eggs"}}}}]}
            """)
        let results = w["records"]?.arrayValue ?? []
        #expect(results.map { $0["serverErrorCode"] } == [.string("ACCESS_DENIED"), .string("ACCESS_DENIED")], "\(w)")
        #expect(results.map { $0["recordName"] } == [.string("list-1"), .string("item-2")])
        // No custom zone can be made in the shared database (badDatabase: BAD_REQUEST in the zone's place).
        let z = try f.post("bob", "shared/zones/modify", #"{"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Mine"}}}]}"#)
        #expect(z.status == 200)
        #expect(z.json["zones"]?.arrayValue?.first?["serverErrorCode"] == .string("BAD_REQUEST"))
    }

    @Test func twoOwnersZonesOfOneNameAreToldApartByOwnerRecordName() throws {
        let f = try SharingFixture()
        _ = try f.metadata("bob", "accept")
        let s = f.sandbox
        try F.cli(s, "zone", "create", "Lists", "--as", "carol")
        try F.cli(s, "record", "save", "Item", "--name", "c-list", "name=Tools", "-z", "Lists", "--as", "carol")
        try F.cli(s, "record", "save", "Item", "--name", "c-item", "--parent", "c-list", "name=Hammer", "-z", "Lists", "--as", "carol")
        try F.cli(s, "share", "create", "c-list", "-z", "Lists", "--as", "carol")
        try F.cli(s, "share", "invite", "share-c-list", "bob", "-z", "Lists", "--as", "carol")
        let shown = try #require(try? JSON.parse(try F.cli(s, "share", "show", "share-c-list", "-z", "Lists", "--as", "carol", "-o", "json")))
        let carolGUID = try #require(shown["shortGUID"]?.stringValue)
        try F.cli(s, "share", "accept", carolGUID, "--as", "bob")
        let zones = try f.ok("bob", "shared/zones/list", "{}")["zones"]?.arrayValue ?? []
        // Sorted by name, then owner: alice's user record name sorts before carol's.
        #expect(zones.map { $0["zoneID"] } == [F.zoneID(F.alice), F.zoneID(F.carol)])
        let q = try f.ok("bob", "shared/records/query", "{\"zoneID\": {\"zoneName\": \"Lists\", \"ownerRecordName\": \"\(F.carol)\"}, \"query\": {\"recordType\": \"Item\"}}")
        #expect(Set(F.names(q["records"])) == ["c-list", "c-item"])
        #expect(q["records"]?.arrayValue?.first?["zoneID"] == F.zoneID(F.carol))
        let a = try f.ok("bob", "shared/records/query", "{\"zoneID\": {\"zoneName\": \"Lists\", \"ownerRecordName\": \"\(F.alice)\"}, \"query\": {\"recordType\": \"Item\"}}")
        #expect(F.names(a["records"]) == ["item-1"])
        // Without the owner the name is ambiguous: refused, not guessed.
        let ambiguous = try f.post("bob", "shared/records/query", #"{"zoneID": {"zoneName": "Lists"}, "query": {"recordType": "Item"}}"#)
        #expect(ambiguous.status == 400)
        #expect(ambiguous.json["serverErrorCode"] == .string("BAD_REQUEST"))
    }

    @Test func unknownGUIDsFailInTheirPlaceAndAcceptNeedsAUser() throws {
        let f = try SharingFixture()
        let r = try f.ok("bob", "public/records/resolve", "{\"shortGUIDs\": [{\"value\": \"0nosuchshare\"}, {\"value\": \"\(f.guid)\"}]}")
        let results = r["results"]?.arrayValue ?? []
        #expect(results.count == 2)
        #expect(results.first?["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(results.first?["shortGUID"] == .object(["value": .string("0nosuchshare")]))
        #expect(results.first?["reason"]?.stringValue?.isEmpty == false)
        #expect(results.last?["rootRecordName"] == .string("list-1"))
        // Accept without a web auth token: 421, as every route that needs a user.
        let anonymous = try f.post(nil, "public/records/accept", "{\"shortGUIDs\": [{\"value\": \"\(f.guid)\"}]}")
        #expect(anonymous.status == 421)
        #expect(anonymous.json["serverErrorCode"] == .string("AUTHENTICATION_REQUIRED"))
        // A malformed body is refused whole, naming the place.
        let bad = try f.post("bob", "public/records/resolve", #"{"shortGUIDs": [{"value": 7}]}"#)
        #expect(bad.status == 400)
        #expect(bad.json["reason"]?.stringValue?.hasPrefix("shortGUIDs[0].value: expected a string") == true, "\(bad.text)")
        let missing = try f.post("bob", "public/records/resolve", "{}")
        #expect(missing.status == 400)
        #expect(missing.json["serverErrorCode"] == .string("BAD_REQUEST"))
    }
}
