import CKModel

/// A sync event as one line of `ck sync --events`: `{"event": NAME, ...its payload}`. Keys follow CKSyncEngine's
/// event properties; a record is the Web Services record dictionary, a zone or record ID `{zoneName[, recordName]}`.
extension SyncEvent {
    public var json: JSON {
        var o: [String: JSON] = ["event": .string(name)]
        func zone(_ z: String) -> JSON { .object(["zoneName": .string(z)]) }
        func recordID(_ z: String, _ n: String) -> JSON { .object(["zoneName": .string(z), "recordName": .string(n)]) }
        switch self {
        case .stateUpdate(let s):
            o["stateSerialization"] = .object([
                "databaseToken": s.databaseToken.map { .string($0) } ?? .null,
                // An array of {zoneName, syncToken}: one token per zone the device follows.
                "zoneTokens": .array(s.zoneTokens.map { .object(["zoneName": .string($0.zoneName), "syncToken": $0.token.map { .string($0) } ?? .null]) }),
                "pendingRecordZoneChanges": .int(Int64(s.pendingRecordZoneChanges)),
            ])
        case .accountChange(let a):
            o["changeType"] = .string(a.type.rawValue)
            o["previousUser"] = a.previousUser.map { .string($0) } ?? .null
            o["currentUser"] = a.currentUser.map { .string($0) } ?? .null
            o["clearedPendingChanges"] = .int(Int64(a.clearedPendingChanges))
            o["removedRecords"] = .int(Int64(a.removedRecords))
        case .willFetchChanges, .didFetchChanges, .didSendChanges:
            break
        case .fetchedDatabaseChanges(let modifications, let deletions):
            o["modifications"] = .array(modifications.map(zone))
            o["deletions"] = .array(deletions.map { .object(["zoneName": .string($0.zoneName), "reason": .string($0.reason.rawValue)]) })
        case .willFetchRecordZoneChanges(let z):
            o["zoneID"] = zone(z)
        case .fetchedRecordZoneChanges(let modifications, let deletions):
            o["modifications"] = .array(modifications.map { $0.json() })
            o["deletions"] = .array(deletions.map { .object(["recordID": recordID($0.zoneName, $0.recordName), "recordType": .string($0.recordType)]) })
        case .didFetchRecordZoneChanges(let z, let error):
            o["zoneID"] = zone(z)
            o["error"] = error.map(\.json) ?? .null
        case .willSendChanges(let zones):
            o["zoneIDs"] = .array(zones.map(zone))
        case .sentDatabaseChanges(let saved, let failed):
            o["savedZones"] = .array(saved.map(zone))
            o["failedZoneSaves"] = .array(failed.map { .object(["zoneID": zone($0.zoneName), "error": $0.error.json]) })
            o["deletedZoneIDs"] = .array([])
            o["failedZoneDeletes"] = .array([])
        case .sentRecordZoneChanges(let saved, let failedSaves, let deleted, let failedDeletes):
            o["savedRecords"] = .array(saved.map { $0.json() })
            o["failedRecordSaves"] = .array(failedSaves.map { f in
                var e: [String: JSON] = ["recordID": recordID(f.zoneName, f.recordName), "recordType": .string(f.recordType), "error": f.error.json]
                // serverRecordChanged carries the server's record (CKRecordChangedErrorServerRecordKey).
                e["serverRecord"] = f.error.details["serverRecord"] ?? .null
                return .object(e)
            })
            o["deletedRecordIDs"] = .array(deleted.map { recordID($0.zoneName, $0.recordName) })
            o["failedRecordDeletes"] = .array(failedDeletes.map { .object(["recordID": recordID($0.zoneName, $0.recordName), "error": $0.error.json]) })
        }
        return .object(o)
    }
}
