import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKServer
@testable import CKSync
@testable import CKDataModel

@Suite struct ChangeTokenTests {
    func delete(_ db: CKDatabase, _ name: String, zone: String) throws {
        let r = try db.modify([RecordOperation(type: .forceDelete, recordName: name)], zone: zone)
        if let e = r.results.first?.error { throw e }
    }

    @Test func firstCallReturnsEverythingThenOnlyWhatChanged() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Notes")
        try db.save("Note", "a", ["title": "A"], zone: "Notes")
        try db.save("Note", "b", ["title": "B"], zone: "Notes")
        let first = try db.zoneChanges(zone: "Notes")
        #expect(first.changes.map(\.recordName) == ["a", "b"])
        #expect(!first.moreComing)

        let again = try db.zoneChanges(zone: "Notes", since: first.syncToken)
        #expect(again.changes.isEmpty)

        try db.save("Note", "b", ["title": "B2"], policy: .changedKeys, zone: "Notes")
        try delete(db, "a", zone: "Notes")
        try db.save("Note", "c", ["title": "C"], zone: "Notes")
        let next = try db.zoneChanges(zone: "Notes", since: first.syncToken)
        #expect(next.changes.map(\.recordName) == ["b", "a", "c"])
        #expect(next.changes[0].record?.fields["title"] == .string("B2"))
        #expect(next.changes[1].isDeletion && next.changes[1].recordType == "Note")
        // The same token answers the same way: reading never moves it.
        #expect(try db.zoneChanges(zone: "Notes", since: first.syncToken).changes.count == 3)
    }

    @Test func limitPagesWithMoreComingAndLosesNothing() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Z")
        for i in 0..<7 { try db.save("Item", "r\(i)", ["i": "\(i)"], zone: "Z") }
        try db.save("Item", "r0", ["i": "10"], policy: .changedKeys, zone: "Z")
        var token: String? = nil
        var seen: [String] = []
        var pages = 0
        repeat {
            let page = try db.zoneChanges(zone: "Z", since: token, limit: 3)
            seen += page.changes.map(\.recordName)
            token = page.syncToken
            pages += 1
            if !page.moreComing { break }
        } while pages < 10
        #expect(pages == 3)
        #expect(seen == ["r1", "r2", "r3", "r4", "r5", "r6", "r0"])
    }

    @Test func desiredKeysLimitFields() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Z")
        try db.save("Note", "a", ["title": "A", "body": "long"], zone: "Z")
        let c = try db.zoneChanges(zone: "Z", desiredKeys: ["title"])
        #expect(c.changes[0].record?.fields.keys.sorted() == ["title"])
    }

    @Test func refusals() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Z")
        try db.createZone("Plain", capabilities: [.atomic])
        #expect(ckError { _ = try db.zoneChanges(zone: Names.defaultZoneName) }?.code == .invalidArguments)
        #expect(ckError { _ = try db.zoneChanges(zone: "Plain") }?.reason.contains("fetchChanges") == true)
        #expect(ckError { _ = try db.zoneChanges(zone: "Missing") }?.code == .zoneNotFound)
        #expect(ckError { _ = try t.db(.public).databaseChanges() }?.code == .invalidArguments)
        #expect(ckError { _ = try db.zoneChanges(zone: "Z", since: "garbage") }?.reason.contains("invalid change token") == true)
        #expect(ckError { _ = try db.zoneChanges(zone: "Z", limit: 0) }?.code == .invalidArguments)

        let zoneToken = try db.zoneChanges(zone: "Z").syncToken
        let dbToken = try db.databaseChanges().syncToken
        #expect(ckError { _ = try db.databaseChanges(since: zoneToken) }?.reason.contains("zone token") == true)
        #expect(ckError { _ = try db.zoneChanges(zone: "Z", since: dbToken) }?.reason.contains("database token") == true)
        try db.createZone("Other")
        #expect(ckError { _ = try db.zoneChanges(zone: "Other", since: zoneToken) }?.reason.contains("zone 'Z'") == true)
        let bob = try t.db(user: "bob")
        try bob.createZone("Z")
        #expect(ckError { _ = try bob.zoneChanges(zone: "Z", since: zoneToken) }?.reason.contains("another user") == true)
        let prod = try t.db(.private, .production)
        try prod.createZone("Z")
        #expect(ckError { _ = try prod.zoneChanges(zone: "Z", since: zoneToken) }?.reason.contains("development") == true)
    }

    @Test func recreatedZoneExpiresOldTokens() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Z")
        try db.save("Note", "a", [:], zone: "Z")
        let token = try db.zoneChanges(zone: "Z").syncToken
        try db.deleteZone("Z")
        try db.createZone("Z")
        let e = ckError { _ = try db.zoneChanges(zone: "Z", since: token) }
        #expect(e?.code == .changeTokenExpired)
        #expect(try db.zoneChanges(zone: "Z").changes.isEmpty)
    }

    @Test func databaseChangesListCustomZonesOfTheUser() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "in-default", [:])
        try db.createZone("A")
        try db.createZone("B")
        try t.db(user: "bob").createZone("Bobs")
        let first = try db.databaseChanges()
        #expect(first.zones.map(\.zoneID.zoneName) == ["A", "B"])
        #expect(try db.databaseChanges(since: first.syncToken).zones.isEmpty)

        try db.save("Note", "x", [:], zone: "B")
        try db.save("Note", "y", [:])  // the default zone takes no part
        try db.deleteZone("A")
        let next = try db.databaseChanges(since: first.syncToken)
        #expect(next.zones.map(\.zoneID.zoneName) == ["B", "A"])
        #expect(next.zones.map(\.deleted) == [false, true])

        let paged = try db.databaseChanges(limit: 1)
        #expect(paged.moreComing && paged.zones.count == 1)
        let rest = try db.databaseChanges(since: paged.syncToken)
        #expect(rest.zones.count == 1 && rest.zones[0].zoneID.zoneName != paged.zones[0].zoneID.zoneName)
        #expect(try t.db(.shared).databaseChanges().zones.isEmpty)
    }

    @Test func compactionExpiresOldTokensButNotPagesReadAfterIt() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.createZone("Z")
        for i in 0..<4 { try db.save("Item", "r\(i)", ["i": "\(i)"], zone: "Z") }
        let before = try db.zoneChanges(zone: "Z").syncToken
        let dbBefore = try db.databaseChanges().syncToken
        try db.save("Item", "gone", [:], zone: "Z")
        try delete(db, "gone", zone: "Z")
        let report = try t.store.container().collectGarbage(.development)
        #expect(report.compacted == 1 && report.linesAfter == 4)

        #expect(ckError { _ = try db.zoneChanges(zone: "Z", since: before) }?.code == .changeTokenExpired)
        // The deletion was compacted away, but the zone still shows as changed since the database token.
        #expect(try db.databaseChanges(since: dbBefore).zones.map(\.zoneID.zoneName) == ["Z"])

        // Paging from the beginning of the compacted log never expires, though page positions are old.
        var token: String? = nil
        var seen: [String] = []
        for _ in 0..<10 {
            let page = try db.zoneChanges(zone: "Z", since: token, limit: 1)
            seen += page.changes.map(\.recordName)
            token = page.syncToken
            if !page.moreComing { break }
        }
        #expect(seen == ["r0", "r1", "r2", "r3"])
        let final = try #require(token)
        #expect(try db.zoneChanges(zone: "Z", since: final).changes.isEmpty)
        try db.save("Item", "new", [:], zone: "Z")
        #expect(try db.zoneChanges(zone: "Z", since: final).changes.map(\.recordName) == ["new"])

        // A page token made before a second compaction that drops history after it expires.
        let page = try db.zoneChanges(zone: "Z", limit: 1).syncToken
        try delete(db, "r3", zone: "Z")
        try t.store.container().collectGarbage(.development)
        #expect(ckError { _ = try db.zoneChanges(zone: "Z", since: page) }?.code == .changeTokenExpired)
    }

    @Test func tokensRoundTripAndBase64URLKeepsEveryByte() throws {
        let token = ChangeToken(kind: .zone, environment: .production, database: .private, owner: "_abc",
                                zoneName: "Z?>~", zoneSeq: 7, position: 1 << 40)
        #expect(try ChangeToken(decoding: token.encoded) == token)
        let bytes: [UInt8] = [0xfb, 0xff, 0xfe, 0x3e, 0x3f, 0x00]
        let text = Base64URL.encode(bytes)
        #expect(text.contains("_") || text.contains("-"))
        #expect(Base64URL.decode(text) == bytes)
    }

    @Test func base64URLMatchesTheStandardEncodingAtEveryLength() {
        // RFC 4648's test vectors, URL-safe and unpadded; then every length up to 40 round-trips.
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.decode("Zm9vYg==") == Array("foob".utf8))
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
        #expect(Base64URL.decode("+/8") == [0xfb, 0xff])
        for bad in ["Z", "Zm9vY", "Zm9v!", "Zg=x", "Zm9=v"] { #expect(Base64URL.decode(bad) == nil, "\(bad)") }
        var bytes: [UInt8] = []
        for n in 0..<40 {
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
            bytes.append(UInt8((n * 37 + 11) % 256))
        }
    }
}
