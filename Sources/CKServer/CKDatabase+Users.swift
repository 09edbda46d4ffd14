import CKModel

extension CKDatabase {
    /// The user record CloudKit keeps for a user (type Users, named by its user record name) in a default zone,
    /// before anyone has saved fields to it: in the public database for every user the container knows, in a
    /// private database for its owner only. Nil for any other name.
    package func userRecord(_ name: String, zone: Zone) throws(CKError) -> Record? {
        guard Names.isUserRecordName(name), zone.zoneID.isDefault, scope != .shared else { return nil }
        let created: Int64
        if name == userRecordName, let me = caller.userName {
            created = try container.user(named: me)?.created ?? 0
        } else if scope == .public, let known = try container.user(recordName: name) {
            created = known.created
        } else {
            return nil
        }
        let stamp = RecordStamp(timestamp: created, userRecordName: name, deviceID: RecordStamp.deviceID)
        // Tag 0: no save has ever had sequence number 0, so the first save by its owner names it with --if-tag 0.
        return Record(recordName: name, recordType: Names.userRecordType, zoneID: zone.zoneID, changeTag: "0",
                      fields: [:], created: stamp, modified: stamp)
    }

    /// The caller's account status (CKContainer.accountStatus): nobody signed in has no account.
    public func accountStatus() throws(CKError) -> AccountStatus { try container.accountStatus(of: caller) }

    /// The caller's own user record in this database (CKFetchRecordsOperation.fetchCurrentUserRecordOperation).
    public func currentUserRecord() throws(CKError) -> Record {
        guard caller.userName != nil else {
            throw CKError(.notAuthenticated, "no iCloud user is signed in, so there is no current user record",
                          hint: "act as a user with --as NAME")
        }
        switch try fetch([userRecordName]).first {
        case .saved(let r)?: return r
        case .failed(_, let e)?: throw e
        default: throw CKError(.unknownItem, "Record not found: '\(userRecordName)'")
        }
    }
}
