import CKModel
import CKServer

/// Zones the server says are gone, by CKSyncEngine's deletion reason.
extension SyncEngine {
    /// Why the feed reports a zone deleted.
    package static func deletionReason(_ z: ZoneChange) -> SyncEvent.ZoneDeletionReason {
        z.purged ? .purged : z.encryptedDataReset ? .encryptedDataReset : .deleted
    }

    /// A zone the user purged (from iCloud settings): the device wipes its copy and drops every pending edit of it,
    /// creates included, and does not send them again ("local cached data should be wiped and not re-uploaded").
    package func zonePurged(_ zone: String, _ report: inout SyncReport) throws(CKError) {
        let dropped = try device.transaction { () throws(CKError) -> [SyncReport.Dropped] in
            var dropped: [SyncReport.Dropped] = []
            for p in try device.pendingEdits(zone: zone) {
                try device.dropPending(zone: zone, name: p.name)
                if !p.isDelete {
                    dropped.append(.init(zoneName: zone, recordName: p.name,
                                         reason: "zone \(zone) was purged by the user; the device's edit was dropped and is not sent again"))
                }
            }
            try device.wipeZone(zone)
            return dropped
        }
        report.purged.append(zone)
        report.dropped += dropped
        report.pulled.append(.init(zoneName: zone, saved: 0, deleted: 0, zoneDeleted: true, deletionReason: .purged))
    }
}
