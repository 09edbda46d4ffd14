import CKModel
import CKServer

/// Posting CKSyncEngine's events as the sync goes (nothing is built when no one listens).
extension SyncEngine {
    package func emit(_ event: @autoclosure () -> SyncEvent) {
        events?(event())
    }

    /// stateUpdate: the device's tokens and pending count, read back from its file after a commit.
    package func emitState() throws(CKError) {
        guard events != nil else { return }
        let info = try device.info()
        let zones = info.zoneTokens.keys.sorted().map { (zoneName: $0, token: info.zoneTokens[$0] ?? nil) }
        emit(.stateUpdate(SyncEvent.State(databaseToken: info.databaseToken, zoneTokens: zones,
                                          pendingRecordZoneChanges: info.pendingSaves + info.pendingDeletes)))
    }

    /// sentRecordZoneChanges for one modify request: each operation's outcome as the server answered it.
    package func emitSent(_ edits: [PendingEdit], _ results: [RecordResult]) {
        guard events != nil else { return }
        var saved: [Record] = []
        var failedSaves: [SyncEvent.FailedSave] = []
        var deleted: [(zoneName: String, recordName: String)] = []
        var failedDeletes: [SyncEvent.FailedDelete] = []
        for (edit, r) in zip(edits, results) {
            switch r {
            case .saved(let rec): saved.append(rec)
            case .deleted: deleted.append((edit.zone, edit.name))
            case .failed(_, let error):
                if edit.isDelete {
                    failedDeletes.append(.init(zoneName: edit.zone, recordName: edit.name, error: error))
                } else {
                    failedSaves.append(.init(zoneName: edit.zone, recordName: edit.name, recordType: edit.type, error: error))
                }
            }
        }
        emit(.sentRecordZoneChanges(savedRecords: saved, failedRecordSaves: failedSaves, deletedRecordIDs: deleted, failedRecordDeletes: failedDeletes))
    }

    /// sentRecordZoneChanges for a request the server refused whole: every operation failed with its error.
    package func emitSent(_ edits: [PendingEdit], refused error: CKError) {
        emitSent(edits, edits.map { RecordResult.failed(recordName: $0.name, error) })
    }
}
