import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKServer

/// The near-miss rule (`Names.isNearMiss`): case, or one edit (insert, delete, substitute, swap of neighbours);
/// digit-only edits and one-edit misses of names shorter than 3 are not typos.
@Suite struct NearMissTests {
    @Test(arguments: [("alcie", "alice"), ("ALICE", "alice"), ("Alice", "alice"), ("alicee", "alice"), ("alie", "alice"),
                      ("alixe", "alice"), ("MAC", "mac"), ("mca", "mac"), ("notes", "Notes"), ("Note", "Notes"),
                      ("iCloud.com.exmaple.app", "iCloud.com.example.app"), ("iCloud.com.example.ap", "iCloud.com.example.app"),
                      ("ab", "AB")])
    func nearMisses(_ name: String, _ existing: String) {
        #expect(Names.isNearMiss(name, of: existing))
    }

    @Test(arguments: [("alice", "alice"), ("bob", "alice"), ("zed", "alice"), ("alcei", "alice"), ("carol", "alice"),
                      ("phone1", "phone2"), ("mac", "mac2"), ("user12", "user21"), ("a", "b"), ("ab", "ac"), ("tablet", "mac"),
                      ("Todo", "Notes"), ("iCloud.com.example.apps2", "iCloud.com.example.app")])
    func notNearMisses(_ name: String, _ existing: String) {
        #expect(!Names.isNearMiss(name, of: existing))
    }

    @Test func singleEditNamesTheCharactersTouched() {
        func edit(_ a: String, _ b: String) -> String? { Names.singleEdit(Array(a), Array(b)).map { String($0) } }
        #expect(edit("alcie", "alice") == "ci")   // swap
        #expect(edit("alixe", "alice") == "xc")   // substitute
        #expect(edit("alie", "alice") == "c")     // insert
        #expect(edit("alicee", "alice") == "e")   // delete
        #expect(edit("phone1", "phone2") == "12")
        #expect(edit("alice", "alice") == nil)
        #expect(edit("abcd", "badc") == nil)
        #expect(edit("abc", "abcde") == nil)
    }

    @Test func nearMissesListsEveryCloseNameSortedAndNoneForAnExistingName() {
        #expect(Names.nearMisses(of: "max", among: ["mac", "MAC", "phone"]) == ["MAC", "mac"])
        #expect(Names.nearMisses(of: "mac", among: ["mac", "MAC"]) == [])
        #expect(Names.nearMisses(of: "bob", among: []) == [])
    }

    @Test func theContainerRefusesANearMissUserButListsItWhenCreatedExplicitly() throws {
        let t = try TempStore()
        let container = try t.store.container()
        let db = try container.database(.private, environment: .development, user: "alice")
        _ = try db.createZone("Notes")
        #expect(try container.resolveUser("alice")?.name == "alice")
        #expect(try container.resolveUser("bob") == nil)
        let refused = ckError { _ = try container.database(.private, environment: .development, user: "alcie").zones() }
        #expect(refused?.code == .unknownItem)
        #expect(refused?.hint == "did you mean 'alice'? To make a new user 'alcie' anyway, 'ck user create alcie'")
        #expect(try container.createUser("alcie"))
        #expect(try !container.createUser("alcie"))
        #expect(try container.database(.private, environment: .development, user: "alcie").zones().map(\.zoneID.zoneName) == ["_defaultZone"])
        #expect(try container.users().map(\.name) == ["alcie", "alice"])
    }
}
