import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKServer
@testable import CKSync

/// The response shapes a library caller (and a later HTTP endpoint) gets, without the command line.
@Suite struct WebServicesTests {
    @Test func aLookupKeepsFailuresOutOfRecords() throws {
        let t = try TempStore()
        let db = try t.db()
        try db.save("Note", "a", ["title": "A"])
        try db.save("Note", "b", ["title": "B"])
        let results = try db.fetch(["a", "missing", "b"], zone: Names.defaultZoneName)
        let response = RecordsResponse(results: results, keys: ["title"])
        let json = response.json(database: nil)
        #expect(json["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } == ["a", "b"])
        let errors = try #require(json["errors"]?.arrayValue)
        #expect(errors.count == 1)
        #expect(errors.first?["recordName"]?.stringValue == "missing")
        #expect(errors.first?["serverErrorCode"]?.stringValue == "NOT_FOUND")
        #expect(errors.first?["reason"]?.stringValue?.contains("missing") == true)
        #expect(response.jsonLines(database: nil).count == 2, "failures are not JSON lines")
        // A complete answer is exactly the Web Services shape: no errors key, no cursor.
        let ok = RecordsResponse(results: try db.fetch(["a"], zone: Names.defaultZoneName)).json(database: nil)
        #expect(ok.objectValue?.keys.sorted() == ["records"])
    }

    @Test func aDeletionIsAStubAndAQueryPageCarriesItsCursor() throws {
        let response = RecordsResponse(results: [.deleted(recordName: "a", recordType: "Note", cascade: true)])
        #expect(response.json(database: nil) == .object(["records": .array([
            .object(["recordName": .string("a"), "recordType": .string("Note"), "deleted": .bool(true)]),
        ])]))
        let page = RecordsResponse(query: [], continuationMarker: "c1", keys: nil).json(database: nil)
        #expect(page == .object(["records": .array([]), "continuationMarker": .string("c1")]))
    }

    @Test func changesEndWithTheirToken() throws {
        let t = try TempStore()
        let db = try t.db()
        _ = try db.createZone("Z", capabilities: ZoneCapability.defaults)
        try db.save("Note", "a", ["title": "A"], zone: "Z")
        let c = try db.zoneChanges(zone: "Z")
        let lines = ZoneChangesResponse(c).jsonLines(database: nil)
        #expect(lines.count == 2)
        #expect(lines.last == .object(["syncToken": .string(c.syncToken), "moreComing": .bool(false)]))
        let doc = ZoneChangesResponse(c).json(database: nil)
        #expect(doc["zoneID"]?["zoneName"]?.stringValue == "Z" && doc["records"]?.arrayValue?.count == 1)
    }
}
