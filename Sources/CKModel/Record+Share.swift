
/// A record's sharing keys, as Web Services and the zone logs write them: a root's `share` reference and
/// `shortGUID`; a share's `publicPermission`, `participants`, `owner` and (ck's own key) `rootRecordName`.
extension Record {
    /// Whether this is a share record.
    public var isShare: Bool { recordType == Share.recordType }

    /// The URL of a share record (or a shared root); nil when it has no short GUID.
    public var shareURL: String? { shortGUID.map(Share.url(shortGUID:)) }

    package func addShareKeys(_ o: inout [String: JSON]) {
        if let share { o["share"] = .object(["recordName": .string(share), "zoneID": zoneID.json]) }
        if let shortGUID { o["shortGUID"] = .string(shortGUID) }
        if let info = shareInfo {
            o["publicPermission"] = .string(info.publicPermission.wireName)
            o["participants"] = .array(info.participants.map(\.json))
            if let owner = info.owner { o["owner"] = owner.json }
            if let root = info.rootRecordName { o["rootRecordName"] = .string(root) }
        }
    }

    package mutating func readShareKeys(_ o: [String: JSON], path: String) throws(CKError) {
        if let s = o["share"], !s.isNull {
            guard let name = s["recordName"]?.stringValue ?? s.stringValue else {
                throw CKError.invalid("\(path).share: expected {\"recordName\": …}")
            }
            share = name
        }
        if let g = o["shortGUID"], !g.isNull {
            guard let s = g.stringValue ?? g["value"]?.stringValue else { throw CKError.invalid("\(path).shortGUID: expected a string") }
            shortGUID = s
        }
        guard recordType == Share.recordType, o["participants"] != nil || o["publicPermission"] != nil else { return }
        var permission = Share.Permission.none
        if let p = o["publicPermission"], !p.isNull {
            guard let s = p.stringValue, let v = Share.Permission(name: s) else {
                throw CKError.invalid("\(path).publicPermission: expected NONE, READ_ONLY or READ_WRITE")
            }
            permission = v
        }
        var participants: [Share.Participant] = []
        if case .array(let items)? = o["participants"] {
            for (i, item) in items.enumerated() { participants.append(try Share.Participant(json: item, path: "\(path).participants[\(i)]")) }
        }
        shareInfo = Share(publicPermission: permission, participants: participants, rootRecordName: o["rootRecordName"]?.stringValue)
    }
}
