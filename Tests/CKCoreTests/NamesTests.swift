import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKServer
@testable import CKSync

@Suite struct NamesTests {
    @Test(arguments: ["iCloud.com.example.Notes", "iCloud.a", "iCloud.com.my-app_2"])
    func validContainers(_ id: String) throws { try Names.validateContainerID(id) }

    @Test(arguments: ["com.example", "iCloud.", "iCloud..x", "iCloud.a/b", "iCloud.a b", "icloud.x", "iCloud.a.."])
    func invalidContainers(_ id: String) {
        #expect(ckError { try Names.validateContainerID(id) }?.code == .invalidArguments)
    }

    // '/', '.' and '..' are CloudKit record names (a live one is `2/2/<hex>`); ck never makes a path of one.
    @Test(arguments: ["note-1", "A B", "x.y", String(repeating: "a", count: 255), "4C016E24-C397", "a/b", "../x", "..", ".", "/tmp/x"])
    func validRecordNames(_ n: String) throws { try Names.validateRecordName(n) }

    @Test(arguments: ["", "_hidden", "é", "a\u{0}b", "tab\tname", String(repeating: "a", count: 256)])
    func invalidRecordNames(_ n: String) {
        #expect(ckError { try Names.validateRecordName(n) }?.code == .invalidArguments)
    }

    @Test func zoneNames() throws {
        try Names.validateZoneName("_defaultZone")
        try Names.validateZoneName("Notes 2026")
        for bad in ["_mine", "../x", "a/b", "", ".."] {
            #expect(ckError { try Names.validateZoneName(bad) } != nil, "\(bad)")
        }
    }

    @Test func recordTypesAndFields() throws {
        try Names.validateRecordType("Note")
        try Names.validateRecordType("CD_Item_2")
        for bad in ["2Note", "No te", "_Note", "", "Note-1", "Nöte"] {
            #expect(ckError { try Names.validateRecordType(bad) } != nil, "\(bad)")
        }
        try Names.validateFieldName("title")
        // CKRecord's properties and methods (CKRecord.h) and names beginning with '_' are reserved.
        for bad in ["_x", "___recordID", "recordID", "recordType", "creationDate", "creatorUserRecordID", "modificationDate",
                    "lastModifiedUserRecordID", "recordChangeTag", "parent", "share", "allKeys", "allTokens", "changedKeys",
                    "encryptedValues", "objectForKey", "setObject", "1a", "a-b"] {
            #expect(ckError { try Names.validateFieldName(bad) }?.code == .invalidArguments, "\(bad)")
        }
        // Keys of the Web Services record dictionary sit beside `fields`, so they are ordinary field names.
        for good in ["created", "modified", "deleted", "fields", "zoneID", "recordName"] {
            #expect(ckError { try Names.validateFieldName(good) } == nil, "\(good)")
        }
    }

    @Test func userNames() throws {
        try Names.validateUserName("alice@example.com")
        for bad in ["", "a/b", "..", "a b", String(repeating: "x", count: 65)] {
            #expect(ckError { try Names.validateUserName(bad) } != nil, "\(bad)")
        }
        #expect(CKContainer.userRecordName(for: "alice").count == 33)
        #expect(CKContainer.userRecordName(for: "alice") == CKContainer.userRecordName(for: "alice"))
        #expect(CKContainer.userRecordName(for: "alice") != CKContainer.userRecordName(for: "bob"))
        // A user record name is never a user name: --as can't act as whoever owns it.
        let urn = CKContainer.userRecordName(for: "alice")
        #expect(ckError { try Names.validateUserName(urn) }?.reason.contains("is a user record name, not a user name") == true)
        #expect(CKContainer.userRecordName(for: urn) != urn)
        #expect(Names.isUserRecordName(urn))
        #expect(!Names.isUserRecordName("_" + urn.dropFirst().uppercased()))
        #expect(ckError { try Names.validateUserName("_x") } != nil, "user names don't begin with '_'")
    }
}
