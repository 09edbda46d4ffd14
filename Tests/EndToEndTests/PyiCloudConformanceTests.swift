import Foundation
import Testing
import CKModel

/// pyicloud's `CloudKitContainerClient` (a typed Web Services client built from iCloud.com traffic) run unchanged
/// against `ck serve --no-auth` (web-services.md §12). The store is prepared with the CLI; the Python script
/// (pyicloud/conformance.py) drives query paging, lookup, modify, zone and database changes and an asset round trip,
/// and prints what it saw; the expected values below come from what this test saved and from the reference, never
/// from the server.
@Suite(.serialized)
struct PyiCloudConformanceTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The venv `.ci/run` makes: `python3 -m venv .build/pyicloud && .build/pyicloud/bin/pip install pyicloud==2026.10.1`.
    static let python = root.appendingPathComponent(".build/pyicloud/bin/python").path
    static let script = root.appendingPathComponent("Tests/EndToEndTests/pyicloud/conformance.py").path
    static var installed: Bool { FileManager.default.isExecutableFile(atPath: python) }
    static let why = "needs pyicloud 2026.10.1 in <repo>/.build/pyicloud (python3 -m venv .build/pyicloud && .build/pyicloud/bin/pip install pyicloud==2026.10.1); .ci/run makes it and CI requires it"

    /// Keys pyicloud's strict mode rejects that api.apple-cloudkit.com (or iCloud.com) sends (§6.4, §9.2, §12.4):
    /// reported, not failed. Any other rejected key is a key ck made up.
    static let appleKeys: Set<String> = [
        "CKZoneListResponse: zones[].atomic",
        "CKZoneListResponse: zones[].isEligibleForZoneShare",
        "CKZoneListResponse: zones[].isEligibleForHierarchicalShare",
        "CKZoneListResponse: moreComing",
        "CKZoneListResponse: syncToken",
        "CKDatabaseChangesResponse: zones[].purged",
        "CKLookupResponse: records[].uuid", "CKLookupResponse: records[].retryAfter",
        "CKModifyResponse: records[].uuid", "CKModifyResponse: records[].retryAfter",
    ]

    static let container = "iCloud.ck.pyicloud"
    static let zone = "Conf"
    static let count = 7
    /// 0x00…0xFF twice and a tail: every byte value, so a text conversion anywhere on the way would show.
    static let asset: [UInt8] = (0..<512).map { UInt8($0 & 0xFF) } + Array("end of asset\n".utf8)

    @Test(.enabled(if: RequiredTool.inCI || installed, Comment(rawValue: why)), .timeLimit(.minutes(3)))
    func pyicloudContainerClientAgainstServe() throws {
        try #require(Self.installed, Comment(rawValue: Self.why))
        let sandbox = try Sandbox()
        // A record written by the CLI before the server starts: pyicloud must read what ck wrote.
        for args in [["container", "create", Self.container],
                     ["-c", Self.container, "zone", "create", Self.zone],
                     ["-c", Self.container, "-z", Self.zone, "record", "save", "Item", "--name", "seed-cli", "title=from cli", "n=100"],
                     // Development is just-in-time, but a query needs its indexes: a type query needs ___recordID,
                     // the sort needs n sortable.
                     ["-c", Self.container, "schema", "index", "Item", "___recordID", "--queryable"],
                     ["-c", Self.container, "schema", "index", "Item", "n", "--queryable", "--sortable"]] {
            let r = try sandbox.run(args)
            try #require(r.status == 0, "ck \(args.joined(separator: " ")): \(r.stderr)")
        }
        let server = try ServeProcess(sandbox, arguments: ["--no-auth"])
        defer { server.stop() }

        let config: [String: JSON] = [
            "base": .string("\(server.baseURL)/database/1/\(Self.container)/development/private"),
            "zone": .string(Self.zone), "type": .string("Item"), "count": .int(Int64(Self.count)),
            "page": .int(3), "changesLimit": .int(2), "cliRecord": .string("seed-cli"),
            "asset": .string(Self.asset.map { String(format: "%02x", $0) }.joined()),
        ]
        let run = try sandbox.run([Self.script, JSON.object(config).serialized()], program: Self.python)
        let out = try #require(try? JSON.parse(run.stdout), "conformance.py printed no JSON (status \(run.status)): \(run.stdout)\n\(run.stderr)")
        try #require(run.status == 0, "conformance.py exited \(run.status): \(run.stderr)")

        // Every step that raised, with pyicloud's exception and the payload it attached.
        for e in out["errors"]?.arrayValue ?? [] {
            Issue.record("pyicloud step \(e["step"]?.stringValue ?? "?") failed: \(e["error"]?.stringValue ?? "")\n  cause: \(e["cause"]?.stringValue ?? "-")\n  payload: \(e["payload"].map { $0.serialized() } ?? "-")\n\(e["trace"]?.stringValue ?? "")")
        }

        let items = (0..<Self.count).map { "item-\($0)" }
        func strings(_ key: String) -> [String]? { out[key]?.arrayValue?.compactMap(\.stringValue) }
        func ints(_ key: String) -> [Int64]? { out[key]?.arrayValue?.compactMap(\.int64Value) }

        // zones/list: the default zone and the one the CLI made, with the reference's zone types (§6.2).
        #expect(strings("zones") == ["Conf", "_defaultZone"])
        #expect(out["zoneTypes"]?["Conf"]?.stringValue == "REGULAR_CUSTOM_ZONE")
        #expect(out["zoneTypes"]?["_defaultZone"]?.stringValue == "DEFAULT_ZONE")

        // records/modify create: one full record per operation, in order (§4, §6.1).
        #expect(strings("created") == items)
        #expect(strings("createdKinds") == Array(repeating: "CKRecord", count: Self.count))
        #expect(out["createdTagsPresent"] == .bool(true))
        let shape = out["createdShape"]
        #expect(shape?["recordType"]?.stringValue == "Item")
        #expect(shape?["title"]?.stringValue == "title 0")
        #expect(shape?["titleType"]?.stringValue == "STRING")
        #expect(shape?["n"]?.int64Value == 0)
        #expect(shape?["nType"]?.stringValue == "INT64")
        #expect(shape?["deleted"] == .bool(false))
        #expect(shape?["pluginFields"] == .object([:]))
        #expect(shape?["zoneName"]?.stringValue == "Conf")
        #expect(shape?["zoneType"]?.stringValue == "REGULAR_CUSTOM_ZONE")
        #expect(shape?["createdHasDevice"] == .bool(true))
        #expect(shape?["modifiedHasUser"] == .bool(true))

        // records/query, sorted by n, 3 a page: 8 records (7 + the CLI's, n = 100) make pages of 3, 3, 2 and the
        // marker only while more exist (§5).
        #expect(strings("queryNames") == items + ["seed-cli"])
        #expect(ints("queryPages") == [3, 3, 2])

        // records/lookup: one entry per name in request order, NOT_FOUND in the missing one's place (§4).
        #expect(strings("lookupKinds") == ["CKRecord", "CKErrorItem", "CKRecord"])
        #expect(out["lookupNames"]?.arrayValue?.map { $0.stringValue ?? "null" } == ["item-1", "no-such-record", "seed-cli"])
        #expect(out["lookupMissingCode"]?.stringValue == "NOT_FOUND")
        #expect(out["lookupCliTitle"]?.stringValue == "from cli")

        // update with the change tag changes only the named fields and the tag; the stale tag then conflicts,
        // per record inside HTTP 200, with the live error keys (§9.2).
        #expect(out["updatedTitle"]?.stringValue == "renamed")
        #expect(out["updatedKeepsN"]?.int64Value == 1)
        #expect(out["updatedTagChanged"] == .bool(true))
        #expect(out["staleUpdate"]?.stringValue == "CONFLICT")
        #expect(strings("staleUpdateKeys") == ["reason", "recordName", "serverErrorCode"])

        // changes/zone from the start, 2 a page: every record exactly once, over at least 4 pages (§5).
        #expect(strings("changesLive") == (items + ["seed-cli"]).sorted())
        #expect(out["changesLiveCount"]?.int64Value == Int64(Self.count + 1))
        #expect((out["changesPages"]?.int64Value ?? 0) >= 4)

        // delete → {recordName, deleted:true}; the change feed since then holds just its tombstone with zoneID (§4).
        #expect(out["deleteResult"]?["kind"]?.stringValue == "CKTombstoneRecord")
        #expect(out["deleteResult"]?["recordName"]?.stringValue == "item-\(Self.count - 1)")
        #expect(out["deleteResult"]?["deleted"] == .bool(true))
        #expect(out["deletedLookupCode"]?.stringValue == "NOT_FOUND")
        #expect(out["sinceTombstones"] == .array([.object(["recordName": .string("item-\(Self.count - 1)"), "deleted": .bool(true), "zoneName": .string("Conf")])]))
        #expect(strings("sinceLive") == [])
        #expect(out["sinceMoreComing"] == .bool(false))

        // changes/database: the zone with changes, a token, moreComing false; nothing new since that token.
        #expect(strings("dbChangesZones")?.contains("Conf") == true)
        #expect(out["dbChangesHasToken"] == .bool(true))
        #expect(out["dbChangesMoreComing"] == .bool(false))
        #expect(strings("dbChangesAgainZones") == [])

        // Assets (§7, §12.5): pyicloud refuses the http upload URL; the raw POST answers singleFile; the saved
        // record's downloadURL gives the same bytes back.
        #expect(out["assetRefusal"]?.stringValue?.contains("Refusing to upload assets to a non-HTTPS URL") == true)
        #expect(out["assetUploadURLScheme"]?.stringValue == "http")
        #expect(out["assetPostStatus"]?.int64Value == 200)
        #expect(strings("singleFileKeys") == ["fileChecksum", "receipt", "referenceChecksum", "size", "wrappingKey"])
        #expect(out["assetSavedType"]?.stringValue == "ASSETID")
        #expect(out["assetLookupSize"]?.int64Value == Int64(Self.asset.count))
        #expect(out["assetHasDownloadURL"] == .bool(true))
        #expect(out["assetBytesEqual"] == .bool(true))
        #expect(out["assetBytesLength"]?.int64Value == Int64(Self.asset.count))

        // Strict mode, as a diff report: print every rejected key; fail on keys Apple does not send.
        let rejected = strings("strictRejected") ?? []
        print("pyicloud strict mode (validation_extra=\"forbid\") rejects: " + (rejected.isEmpty ? "nothing" : rejected.joined(separator: ", ")))
        let invented = rejected.filter { !Self.appleKeys.contains($0) }
        #expect(invented.isEmpty, "keys pyicloud's strict mode rejects that the reference does not say Apple sends: \(invented)")
    }

    static let invitesScript = root.appendingPathComponent("Tests/EndToEndTests/pyicloud/invites.py").path

    /// pyicloud's `CloudKitInvitesClient` (sharing.md §10.6) as bob, with his own web auth token, on a share alice
    /// made with the CLI: resolve (and an unknown GUID), accept, the shared zones, a query, a lookup and a zone feed.
    @Test(.enabled(if: RequiredTool.inCI || installed, Comment(rawValue: why)), .timeLimit(.minutes(3)))
    func pyicloudInvitesClientResolvesAndAcceptsAShare() throws {
        try #require(Self.installed, Comment(rawValue: Self.why))
        let sandbox = try Sandbox()
        let c = "iCloud.ck.invites"
        // ck's user record names: "_" and the first 32 hex digits of SHA-256("ck-user:" + name).
        let alice = "_0a57258488baa90f757a41c406456800"
        func ck(_ args: String...) throws -> String {
            let r = try sandbox.run(["-c", c] + args)
            try #require(r.status == 0, "ck \(args.joined(separator: " ")): \(r.stderr)")
            return r.stdout
        }
        _ = try sandbox.run(["container", "create", c])
        for u in ["alice", "bob"] { _ = try ck("user", "create", u) }
        _ = try ck("zone", "create", "Lists", "--as", "alice")
        _ = try ck("record", "save", "List", "--name", "list-1", "title=Groceries", "-z", "Lists", "--as", "alice")
        _ = try ck("record", "save", "Item", "--name", "item-1", "--parent", "list-1", "name=Milk", "-z", "Lists", "--as", "alice")
        _ = try ck("record", "save", "Item", "--name", "other", "name=Not shared", "-z", "Lists", "--as", "alice")
        _ = try ck("schema", "index", "Item", "___recordID", "--queryable")
        _ = try ck("share", "create", "list-1", "-z", "Lists", "--as", "alice")
        _ = try ck("share", "invite", "share-list-1", "bob", "-z", "Lists", "--as", "alice")
        let shown = try #require(try? JSON.parse(try ck("share", "show", "share-list-1", "-z", "Lists", "--as", "alice", "-o", "json")))
        let guid = try #require(shown["shortGUID"]?.stringValue)
        let token = try ck("serve", "token", "create", "--as", "bob").trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try ServeProcess(sandbox)
        defer { server.stop() }

        let config: [String: JSON] = [
            "base": .string("\(server.baseURL)/database/1/\(c)/development"), "token": .string(token), "guid": .string(guid),
            "zone": .string("Lists"), "owner": .string(alice), "type": .string("Item"), "root": .string("list-1"),
        ]
        let run = try sandbox.run([Self.invitesScript, JSON.object(config).serialized()], program: Self.python)
        let out = try #require(try? JSON.parse(run.stdout), "invites.py printed no JSON (status \(run.status)): \(run.stdout)\n\(run.stderr)")
        try #require(run.status == 0, "invites.py exited \(run.status): \(run.stderr)")
        for e in out["errors"]?.arrayValue ?? [] {
            Issue.record("pyicloud step \(e["step"]?.stringValue ?? "?") failed: \(e["error"]?.stringValue ?? "")\n  payload: \(e["payload"].map { $0.serialized() } ?? "-")\n\(e["trace"]?.stringValue ?? "")")
        }
        func meta(_ scope: String, _ status: String) -> JSON {
            .object(["databaseScope": .string(scope), "participantType": .string("USER"), "participantStatus": .string(status),
                     "participantPermission": .string("READ_ONLY"), "rootRecordName": .string("list-1"),
                     "owner": .string(alice), "zone": .string("Lists")])
        }
        // One result per GUID in request order: bob invited, then the unknown GUID failing in its place.
        #expect(out["resolve"] == .array([meta("SHARED", "INVITED"), .object(["serverErrorCode": .string("NOT_FOUND"), "owner": .null, "zone": .null])]))
        #expect(out["sharedZonesBefore"] == .array([]))
        #expect(out["accept"] == .array([meta("SHARED", "ACCEPTED")]))
        #expect(out["sharedZones"] == .array([.array([.string("Lists"), .string(alice)])]))
        // Only the shared hierarchy: "other" in alice's zone is not there.
        #expect(out["query"] == .array([.string("item-1")]))
        #expect(out["lookup"] == .array([.string("list-1")]))
        #expect(out["lookupShortGUID"] == .array([.string(guid)]))
        // The shared zone's feed holds the shared hierarchy only: "other" in alice's zone is not in it.
        #expect(out["changes"] == .array([.string("item-1"), .string("list-1"), .string("share-list-1")]))
    }
}
