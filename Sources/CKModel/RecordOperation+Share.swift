
/// The share keys of a records/modify record (sharing.md §10.1): `forRecord`, `publicPermission` and
/// `participants` on a `cloudkit.share` record; the server's own keys that clients echo back are ignored.
extension RecordOperation {
    /// Keys a share record may carry in a request.
    static let shareRequestKeys: Set<String> = ["forRecord", "publicPermission", "participants"]
    /// Keys the server writes on shares and roots that clients echo back unchanged (a save ignores them: the
    /// root's `share` is set by its share's `forRecord`).
    static let shareEchoKeys: Set<String> = ["share", "owner", "currentUserParticipant", "url", "rootRecordName"]

    /// Reads a record dictionary's share keys into `share`; they are refused on a record that is not a share.
    mutating func readShareKeys(_ r: [String: JSON], recordType: String?, path: String) throws(CKError) {
        let present = RecordOperation.shareRequestKeys.filter { r[$0] != nil && r[$0]?.isNull == false }
        guard !present.isEmpty else { return }
        // An update may leave the type out: the server knows whether the record is a share.
        guard recordType == nil || recordType == Share.recordType else {
            let k = present.sorted()[0]
            throw CKError.invalid("\(path).\(k): only a share record (recordType \(Share.recordType)) takes \(k)")
        }
        var input = ShareInput()
        if let f = r["forRecord"], !f.isNull {
            guard let name = f.stringValue ?? f["recordName"]?.stringValue else {
                throw CKError.invalid("\(path).forRecord: expected {\"recordName\": …, \"recordChangeTag\": …}")
            }
            input.forRecord = name
        }
        if let p = r["publicPermission"], !p.isNull {
            guard let s = p.stringValue, let v = Share.Permission(name: s) else {
                throw CKError.invalid("\(path).publicPermission: '\(p.stringValue ?? p.serialized())' is not one of NONE, READ_ONLY, READ_WRITE")
            }
            input.publicPermission = v
        }
        if let list = r["participants"], !list.isNull {
            guard case .array(let items) = list else { throw CKError.invalid("\(path).participants: expected an array of participants") }
            var out: [Share.Participant] = []
            for (i, item) in items.enumerated() {
                out.append(try RecordOperation.participant(item, path: "\(path).participants[\(i)]"))
            }
            input.participants = out
        }
        share = input
    }

    /// A participant as a client sends it: `userIdentity.userRecordName`, or `lookupInfo.userRecordName`; ck knows
    /// no e-mail addresses or phone numbers, so a lookup by those is refused by name.
    static func participant(_ json: JSON, path: String) throws(CKError) -> Share.Participant {
        guard case .object(var o) = json else { throw CKError.invalid("\(path): expected a participant object") }
        if o["userIdentity"]?["userRecordName"] == nil, o["participantId"] == nil {
            let lookup = o["userIdentity"]?["lookupInfo"] ?? o["lookupInfo"]
            if let urn = lookup?["userRecordName"]?.stringValue {
                o["userIdentity"] = .object(["userRecordName": .string(urn)])
            } else if let by = ["emailAddress", "phoneNumber"].first(where: { lookup?[$0] != nil }) {
                throw CKError.invalid("\(path).lookupInfo.\(by): ck's users have no e-mail address or phone number; name the participant by userRecordName",
                                      hint: "users/discover lists the users ck knows, with their userRecordName")
            }
        }
        let p = try Share.Participant(json: .object(o), path: path)
        guard Names.isUserRecordName(p.userRecordName) else {
            throw CKError.invalid("\(path).userIdentity.userRecordName: '\(Names.describe(p.userRecordName))' is not a user record name")
        }
        return p
    }
}
