import Foundation
import Testing
import CKCore
import CKTestSupport

/// Sharing through the public API, as records/modify sends it: a share record with ShareInput, saved in one
/// request with its root (sharing.md §3, §6).
@Suite struct SharingAPITests {
    func participant(_ name: String, _ permission: Share.Permission = .readOnly) -> Share.Participant {
        Share.Participant(userRecordName: Caller.userRecordName(for: name), userName: name, role: .privateUser, permission: permission,
                          acceptance: .accepted)
    }

    func setUp(_ db: CKDatabase) throws -> Record {
        _ = try db.createZone("Lists")
        let save = RecordOperation.save(recordType: "List", recordName: "list-1", fields: ["title": .value(.string("Groceries"))],
                                        ifTag: nil, policy: nil)
        guard case .saved(let root)? = try db.modify([save], zone: "Lists").results.first else { throw CKError(.internalError, "no root") }
        return root
    }

    func shareOperation(_ participants: [Share.Participant]) -> RecordOperation {
        var op = RecordOperation(type: .create, recordName: "share-1", recordType: Share.recordType)
        op.share = ShareInput(forRecord: "list-1", publicPermission: Share.Permission.none, participants: participants)
        return op
    }

    @Test func aShareIsSavedWithItsRootAndInvitesArePending() throws {
        let temporary = try TempStore()
        let db = try temporary.db(user: "alice")
        let root = try setUp(db)
        let touch = RecordOperation(type: .update, recordName: "list-1", recordType: "List", changeTag: root.changeTag)
        let result = try db.modify([touch, shareOperation([participant("bob", .readWrite)])], zone: "Lists", atomic: true)
        #expect(result.failures.isEmpty, "\(result.failures)")
        guard case .saved(let savedRoot)? = result.results.first, case .saved(let share)? = result.results.last else {
            Issue.record("no saved records: \(result.results)")
            return
        }
        // The root's result already points at the share, with the share's short GUID.
        #expect(savedRoot.share == "share-1")
        #expect(savedRoot.shortGUID != nil && savedRoot.shortGUID == share.shortGUID)
        // The owner first, accepted; a client can't accept for bob: he is pending until he accepts himself.
        #expect(share.shareInfo?.participants.map(\.userName) == ["alice", "bob"])
        #expect(share.shareInfo?.participants.map(\.acceptance) == [.accepted, .pending])
        #expect(share.shareInfo?.participants.last?.permission == .readWrite)
        #expect(share.shareURL == "https://www.icloud.com/share/" + (share.shortGUID ?? "?"))
    }

    @Test func aNewShareNeedsItsRootInTheSameRequest() throws {
        let temporary = try TempStore()
        let db = try temporary.db(user: "alice")
        _ = try setUp(db)
        let result = try db.modify([shareOperation([])], zone: "Lists")
        #expect(result.failures.first?.error.code == .invalidArguments, "\(result.failures)")
        #expect(result.failures.first?.error.reason.contains("same request") == true)
    }

    @Test func moreThanAHundredParticipantsAreRefused() throws {
        let temporary = try TempStore()
        let db = try temporary.db(user: "alice")
        let root = try setUp(db)
        let touch = RecordOperation(type: .update, recordName: "list-1", recordType: "List", changeTag: root.changeTag)
        // 99 invitees and the owner make 100: allowed. One more is not.
        let hundred = (1...99).map { participant("user\($0)") }
        let ok = try db.modify([touch, shareOperation(hundred)], zone: "Lists", atomic: true)
        #expect(ok.failures.isEmpty, "\(ok.failures)")
        guard case .saved(let share)? = ok.results.last else { Issue.record("no share"); return }
        var more = RecordOperation(type: .update, recordName: "share-1", recordType: Share.recordType, changeTag: share.changeTag)
        more.share = ShareInput(participants: hundred + [participant("user100")])
        let refused = try db.modify([more], zone: "Lists")
        #expect(refused.failures.first?.error.code == .tooManyParticipants, "\(refused.failures)")
        // A stale participant list is a conflict whatever the save policy.
        var stale = RecordOperation(type: .forceUpdate, recordName: "share-1", recordType: Share.recordType, changeTag: "0")
        stale.share = ShareInput(participants: [participant("bob")])
        let conflict = try db.modify([stale], zone: "Lists")
        #expect(conflict.failures.first?.error.code == .serverRecordChanged, "\(conflict.failures)")
    }
}
