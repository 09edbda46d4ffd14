import Foundation
import Testing
import CKModel

/// changes/database, changes/zone and the legacy records/changes over HTTP: paging with syncToken and moreComing
/// until every change is seen once, tombstones, bad tokens (web-services.md §4, §5; cloudkit.md §3.5, §3.6).
@Suite struct ServeChangesTests {

    /// Follows a feed from `start` (nil: from the beginning) until moreComing is false: each page's items, and the
    /// last token. `call` posts one page for a token.
    static func follow(from start: String? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                       _ call: (String?) throws -> (items: [JSON], token: String?, more: Bool?)) throws -> (pages: [[JSON]], token: String) {
        var pages: [[JSON]] = []
        var token = start
        while pages.count < 50 {
            let page = try call(token)
            pages.append(page.items)
            let next = try #require(page.token, "a change feed page must carry a syncToken", sourceLocation: sourceLocation)
            #expect(next.isEmpty == false, sourceLocation: sourceLocation)
            token = next
            let more: Bool? = page.more
            try #require(more != nil, "a change feed page must say moreComing", sourceLocation: sourceLocation)
            if more == false { return (pages, next) }
        }
        Issue.record("moreComing never became false", sourceLocation: sourceLocation)
        return (pages, token ?? "")
    }

    @Test func databaseChangesPageWithSyncTokenUntilDone() throws {
        let f = try WireFixture(zones: ["A", "B"])
        for z in ["C", "D"] {
            _ = try f.ok("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(z)"}}}]}"#)
        }
        // First call without a token ({} as pyicloud sends, §4), one zone a page.
        let first = try f.ok("changes/database", #"{"resultsLimit":1}"#)
        #expect(first["moreComing"] == .bool(true))
        #expect(WireFixture.keys(first) == ["moreComing", "syncToken", "zones"])
        let feed = try Self.follow { token in
            let t = token.map { #""syncToken":"\#($0)","# } ?? ""
            let j = try f.ok("changes/database", #"{\#(t)"resultsLimit":1}"#)
            return (j["zones"]?.arrayValue ?? [], j["syncToken"]?.stringValue, j["moreComing"]?.boolValue)
        }
        let names = feed.pages.flatMap { $0 }.compactMap { $0["zoneID"]?["zoneName"]?.stringValue }
        #expect(names.sorted() == ["A", "B", "C", "D"], "each zone exactly once: \(names)")
        #expect(feed.pages.allSatisfy { $0.count <= 1 })
        #expect(feed.pages.count >= 4)
        // Entries carry no per-zone token (§4): a changed zone is just {zoneID}.
        for z in feed.pages.flatMap({ $0 }) {
            #expect(WireFixture.keys(z) == ["zoneID"], "\(z.serialized())")
            #expect(z["zoneID"]?["zoneType"] == .string("REGULAR_CUSTOM_ZONE"))
        }
        // The same in one call ({} with no limit).
        let whole = try f.ok("changes/database", "{}")
        #expect((whole["zones"]?.arrayValue ?? []).compactMap { $0["zoneID"]?["zoneName"]?.stringValue }.sorted() == ["A", "B", "C", "D"])
        #expect(whole["moreComing"] == .bool(false))

        // Nothing since the last token.
        let since = try f.ok("changes/database", #"{"syncToken":"\#(feed.token)"}"#)
        #expect(since["zones"] == .array([]))
        #expect(since["moreComing"] == .bool(false))

        // A record saved over HTTP in A, one saved by the command line in C, zone B deleted: A and C changed,
        // B as {zoneID, deleted:true}.
        _ = try f.ok("records/modify", #"{"zoneID":{"zoneName":"A"},"operations":[{"operationType":"create","record":{"recordName":"a1","recordType":"Item","fields":{}}}]}"#)
        try f.cli("-z", "C", "record", "save", "Item", "--name", "c1", "n=1")
        _ = try f.ok("zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"B"}}}]}"#)
        let after = try f.ok("changes/database", #"{"syncToken":"\#(feed.token)"}"#)
        let entries = after["zones"]?.arrayValue ?? []
        let byName = Dictionary(entries.map { ($0["zoneID"]?["zoneName"]?.stringValue ?? "?", $0) }, uniquingKeysWith: { a, _ in a })
        #expect(byName.keys.sorted() == ["A", "B", "C"], "\(after.serialized())")
        #expect(byName["A"]?["deleted"] == nil)
        #expect(byName["C"]?["deleted"] == nil)
        #expect(byName["B"]?["deleted"] == .bool(true))
        #expect(after["moreComing"] == .bool(false))

        // A token that is not one, and a zone's token where a database token is due: BAD_REQUEST (ck's choice, §5).
        #expect(try f.refused("changes/database", #"{"syncToken":"garbage"}"#, status: 400, code: "BAD_REQUEST").isEmpty == false)
        let zoneToken = try #require(try f.ok("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"A"}}]}"#)["zones"]?.arrayValue?.first?["syncToken"]?.stringValue)
        #expect(try f.refused("changes/database", #"{"syncToken":"\#(zoneToken)"}"#, status: 400, code: "BAD_REQUEST").isEmpty == false)
    }

    @Test func zoneChangesPageWithSyncTokenUntilDone() throws {
        let f = try WireFixture(zones: ["Z", "Y"], setup: [
            ["-z", "Z", "record", "save", "Item", "--name", "cli1", "title=c1"],
            ["-z", "Z", "record", "save", "Note", "--name", "cli2", "title=c2"],
        ])
        let ops = (1...5).map { #"{"operationType":"create","record":{"recordName":"h\#($0)","recordType":"Item","fields":{"title":{"value":"h\#($0)"},"n":{"value":\#($0)}}}}"# }
        _ = try f.ok("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[\#(ops.joined(separator: ","))]}"#)
        let everything = ["cli1", "cli2", "h1", "h2", "h3", "h4", "h5"]

        // Two a page: the zone's answer is {zoneID, records, syncToken, moreComing}; the zoneType the client echoed is
        // accepted and answered (§4).
        var answers: [JSON] = []
        let feed = try Self.follow { token in
            let t = token.map { #","syncToken":"\#($0)""# } ?? ""
            let j = try f.ok("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z","zoneType":"REGULAR_CUSTOM_ZONE"},"resultsLimit":2\#(t)}]}"#)
            let zones = j["zones"]?.arrayValue ?? []
            #expect(zones.count == 1)
            let z = zones.first ?? .null
            answers.append(z)
            return (WireFixture.records(z), z["syncToken"]?.stringValue, z["moreComing"]?.boolValue)
        }
        #expect(feed.pages.map(\.count) == [2, 2, 2, 1])
        #expect(answers.first?["moreComing"] == .bool(true))
        for z in answers {
            #expect(WireFixture.keys(z) == ["moreComing", "records", "syncToken", "zoneID"])
            #expect(z["zoneID"] == .object(["zoneName": .string("Z"), "ownerRecordName": .string(WireFixture.defaultUser),
                                            "zoneType": .string("REGULAR_CUSTOM_ZONE")]))
        }
        let names = feed.pages.flatMap { $0 }.compactMap { $0["recordName"]?.stringValue }
        #expect(names.sorted() == everything, "each record exactly once: \(names)")
        let h3 = feed.pages.flatMap { $0 }.first { $0["recordName"] == .string("h3") }
        #expect(h3?["fields"]?["n"] == .object(["value": .int(3), "type": .string("INT64")]))
        #expect(h3?["deleted"] == .bool(false))

        // The keys may sit at the outer level; an item's own key wins; desiredKeys and desiredRecordTypes apply.
        let outer = try f.ok("changes/zone", #"{"resultsLimit":3,"desiredKeys":["title"],"zones":[{"zoneID":{"zoneName":"Z"}}]}"#)
        let outerZone = outer["zones"]?.arrayValue?.first ?? .null
        #expect(WireFixture.records(outerZone).count == 3)
        #expect(outerZone["moreComing"] == .bool(true))
        #expect(WireFixture.records(outerZone).allSatisfy { WireFixture.keys($0["fields"]) == ["title"] })
        let own = try f.ok("changes/zone", #"{"resultsLimit":3,"zones":[{"zoneID":{"zoneName":"Z"},"resultsLimit":200,"desiredRecordTypes":["Note"]}]}"#)
        let ownZone = own["zones"]?.arrayValue?.first ?? .null
        #expect(WireFixture.records(ownZone).compactMap { $0["recordName"]?.stringValue } == ["cli2"])
        #expect(ownZone["moreComing"] == .bool(false))

        // Since the last token: nothing; then an HTTP update and a command-line delete: the new record, and the
        // tombstone {recordName, deleted:true, zoneID} with no type or fields (§4).
        let quiet = try f.ok("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"},"syncToken":"\#(feed.token)"}]}"#)["zones"]?.arrayValue?.first
        #expect(quiet?["records"] == .array([]))
        #expect(quiet?["moreComing"] == .bool(false))
        _ = try f.ok("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"forceUpdate","record":{"recordName":"h2","recordType":"Item","fields":{"title":{"value":"changed"}}}}]}"#)
        try f.cli("-z", "Z", "record", "delete", "h4", "-y")
        let changed = try f.ok("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"},"syncToken":"\#(feed.token)"}]}"#)["zones"]?.arrayValue?.first
        let recs = WireFixture.records(changed ?? .null)
        #expect(recs.count == 2, "\(recs)")
        let updated = recs.first { $0["recordName"] == .string("h2") }
        #expect(updated?["fields"]?["title"]?["value"] == .string("changed"))
        #expect(updated?["modified"]?["deviceID"] == .string("2"))
        let tombstone = recs.first { $0["recordName"] == .string("h4") }
        #expect(tombstone == .object(["recordName": .string("h4"), "deleted": .bool(true),
                                      "zoneID": .object(["zoneName": .string("Z"), "ownerRecordName": .string(WireFixture.defaultUser),
                                                         "zoneType": .string("REGULAR_CUSTOM_ZONE")])]))

        // Several zones in one request: an unknown one fails in its place, the others answer (§4).
        let mixed = try f.ok("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"nope"}},{"zoneID":{"zoneName":"Y"}}]}"#)["zones"]?.arrayValue ?? []
        try #require(mixed.count == 2)
        #expect(WireFixture.keys(mixed[0]) == ["reason", "serverErrorCode", "zoneID"])
        #expect(mixed[0]["serverErrorCode"] == .string("ZONE_NOT_FOUND"))
        #expect(mixed[0]["zoneID"]?["zoneName"] == .string("nope"))
        #expect(mixed[1]["records"] == .array([]))
        #expect(mixed[1]["moreComing"] == .bool(false))

        // A bad token refuses the request (ck's choice, §5); the default zone has no change feed ("allowed only in
        // custom zones", cloudkit.md §3.5).
        #expect(try f.refused("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"},"syncToken":"garbage"}]}"#, status: 400, code: "BAD_REQUEST").isEmpty == false)
        let dbToken = try #require(try f.ok("changes/database", "{}")["syncToken"]?.stringValue)
        #expect(try f.refused("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"},"syncToken":"\#(dbToken)"}]}"#, status: 400, code: "BAD_REQUEST").isEmpty == false)
        let yToken = try #require(mixed[1]["syncToken"]?.stringValue)
        #expect(try f.refused("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"},"syncToken":"\#(yToken)"}]}"#, status: 400, code: "BAD_REQUEST").isEmpty == false)
        #expect(try f.refused("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"_defaultZone"}}]}"#, status: 400, code: "BAD_REQUEST").isEmpty == false)
    }

    @Test func legacyRecordChangesPagesAndTombstones() throws {
        let f = try WireFixture()
        let ops = (1...5).map { #"{"operationType":"create","record":{"recordName":"r\#($0)","recordType":"Item","fields":{"n":{"value":\#($0)}}}}"# }
        _ = try f.ok("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[\#(ops.joined(separator: ","))]}"#)

        // {zoneID, syncToken?, resultsLimit?} → {records, syncToken, moreComing} (cloudkit.md §3.5), two a page.
        let feed = try Self.follow { token in
            let t = token.map { #","syncToken":"\#($0)""# } ?? ""
            let j = try f.ok("records/changes", #"{"zoneID":{"zoneName":"Z"},"resultsLimit":2\#(t)}"#)
            #expect(WireFixture.keys(j) == ["moreComing", "records", "syncToken"])
            return (WireFixture.records(j), j["syncToken"]?.stringValue, j["moreComing"]?.boolValue)
        }
        #expect(feed.pages.map(\.count) == [2, 2, 1])
        #expect(feed.pages.flatMap { $0 }.compactMap { $0["recordName"]?.stringValue }.sorted() == ["r1", "r2", "r3", "r4", "r5"])

        _ = try f.ok("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"forceDelete","record":{"recordName":"r3"}}]}"#)
        let since = try f.ok("records/changes", #"{"zoneID":{"zoneName":"Z"},"syncToken":"\#(feed.token)"}"#)
        #expect(WireFixture.records(since) == [.object(["recordName": .string("r3"), "deleted": .bool(true),
                                                        "zoneID": .object(["zoneName": .string("Z"), "ownerRecordName": .string(WireFixture.defaultUser),
                                                                           "zoneType": .string("REGULAR_CUSTOM_ZONE")])])])
        #expect(since["moreComing"] == .bool(false))
        #expect(try f.refused("records/changes", #"{"zoneID":{"zoneName":"Z"},"syncToken":"garbage"}"#, status: 400, code: "BAD_REQUEST").isEmpty == false)
        #expect(try f.refused("records/changes", #"{"zoneID":{"zoneName":"_defaultZone"}}"#, status: 400, code: "BAD_REQUEST").isEmpty == false)
    }

    @Test func malformedChangeRequestsNameTheKey() throws {
        let f = try WireFixture()
        let cases: [(op: String, body: String, place: String)] = [
            ("changes/database", #"{"syncToken":5}"#, "syncToken"),
            ("changes/database", #"{"resultsLimit":"2"}"#, "resultsLimit"),
            ("changes/database", #"{"resultsLimit":0}"#, "resultsLimit"),
            ("changes/zone", #"{}"#, "zones"),
            ("changes/zone", #"{"zones":{"zoneID":{"zoneName":"Z"}}}"#, "zones"),
            ("changes/zone", #"{"zones":[{"syncToken":"x"}]}"#, "zones[0].zoneID"),
            ("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"},"resultsLimit":true}]}"#, "zones[0].resultsLimit"),
            ("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"},"desiredKeys":"title"}]}"#, "zones[0].desiredKeys"),
            ("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"}}],"desiredRecordTypes":[1]}"#, "desiredRecordTypes[0]"),
            ("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Z"},"syncToken":["x"]}]}"#, "zones[0].syncToken"),
            ("records/changes", #"{}"#, "zoneID"),
            ("records/changes", #"{"zoneID":{"zoneName":"Z"},"syncToken":[]}"#, "syncToken"),
            ("records/changes", #"{"zoneID":{"zoneName":"Z"},"resultsLimit":-1}"#, "resultsLimit"),
        ]
        for c in cases {
            let reason = try f.refused(c.op, c.body, status: 400, code: "BAD_REQUEST")
            #expect(reason.hasPrefix(c.place + ":"), "\(c.op) \(c.body): \(reason)")
        }
    }
}
