import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSchema
@testable import CKServer

/// A zone's summary counts only the records its caller may read: the permission stage decides, not the log.
@Suite struct ZoneSummaryTests {
    @Test func thePublicZoneCountsOnlyReadableRecords() throws {
        let t = try TempStore()
        let schema = try CKDB.parse("""
            DEFINE SCHEMA
                RECORD TYPE Diary (
                    "___recordID" REFERENCE QUERYABLE,
                    text STRING,
                    GRANT READ, WRITE TO "_creator",
                    GRANT CREATE TO "_icloud"
                );
                RECORD TYPE Post (
                    "___recordID" REFERENCE QUERYABLE,
                    text STRING,
                    GRANT WRITE TO "_creator",
                    GRANT CREATE TO "_icloud",
                    GRANT READ TO "_world"
                );
            """, file: "schema.ckdb")
        _ = try t.store.container().importSchema(schema, file: "schema.ckdb")
        let alice = try t.db(.public, user: "alice"), bob = try t.db(.public, user: "bob")
        try alice.save("Diary", "a1", ["text": "mine"])
        try alice.save("Diary", "a2", ["text": "mine too"])
        try alice.save("Post", "p1", ["text": "for all"])
        try bob.save("Diary", "b1", ["text": "bob's"])
        #expect(try alice.zoneSummary(Names.defaultZoneName).recordCount == 3, "alice's two diaries and the post")
        #expect(try bob.zoneSummary(Names.defaultZoneName).recordCount == 2, "bob's diary and the post, not alice's diaries")
        let nobody = try t.store.container().database(.public, environment: .development, caller: .anonymous())
        #expect(try nobody.zoneSummary(Names.defaultZoneName).recordCount == 1, "the world reads only the post")
    }
}
