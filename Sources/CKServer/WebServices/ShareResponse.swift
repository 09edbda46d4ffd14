import CKModel

extension ShareMetadata {
    /// The records/resolve and records/accept result dictionary (cloudkit.md §2.13; sharing.md §10.3).
    public var json: JSON {
        let share = entry.share
        var o: [String: JSON] = [
            "shortGUID": .object(["value": .string(share.shortGUID ?? ""), "shouldFetchRootRecord": .bool(true)]),
            "containerIdentifier": .string(containerIdentifier), "environment": .string(environment.rawValue),
            "databaseScope": .string(databaseScope.rawValue.uppercased()),
            "zoneID": entry.zone.zoneID.json,
            "share": ShareResponse.json(share, viewer: participant),
            "ownerIdentity": .object(["userRecordName": .string(entry.zone.zoneID.ownerRecordName)]),
            "participantType": .string(participant.role.wireName),
            "participantStatus": .string(participant.acceptance.wireName),
            "participantPermission": .string(participant.permission.wireName),
            "potentialMatchList": .array([]),
        ]
        if let rootName = entry.info.rootRecordName { o["rootRecordName"] = .string(rootName) }
        if let root { o["rootRecord"] = root.json() }
        return .object(o)
    }
}

/// The share shapes ck prints and serves: a share record with `currentUserParticipant`, and `ck share list` rows.
public enum ShareResponse {
    /// A share record as Web Services returns it, with the viewer's own participant entry.
    public static func json(_ share: Record, viewer: Share.Participant?) -> JSON {
        var o = share.json().objectValue ?? [:]
        if let viewer { o["currentUserParticipant"] = viewer.json }
        if let url = share.shareURL { o["url"] = .string(url) }
        return .object(o)
    }

    /// `ck share list`: `{"shares": [share record with currentUserParticipant and zoneID]}`.
    public static func json(_ list: [ShareListing]) -> JSON {
        .object(["shares": .array(list.map { json($0.entry.share, viewer: $0.participant) })])
    }
}
