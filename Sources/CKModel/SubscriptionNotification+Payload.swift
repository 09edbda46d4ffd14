/// The push a notification stands for: the remote-notification dictionary an app receives from APNs and hands to
/// `CKNotification(fromRemoteNotificationDictionary:)` (docs/store.md, "Push payload").
extension SubscriptionNotification {
    /// APNs's limit on a remote notification's payload, in bytes.
    public static let payloadLimit = 4096

    /// `{"aps": {…}?, "ck": {"nid", "cid", "ckuserid", "ce", "qry"|"fet"|"met": {…}}}`. `aps` holds the APNs alert
    /// (title, subtitle, body, their localization keys and arguments, action-loc-key, launch-image), `badge`,
    /// `sound`, `category` and `content-available`, and is left out when the subscription set none of them.
    /// `qry` carries `sid`, `dbs`, `fo` (1 created, 2 updated, 3 deleted), `rid`, `zid`, `zoid` and `af` (the desired
    /// keys, Web Services values); a zone notification `fet: {sid, dbs, zid, zoid}`, a database one `met: {sid, dbs}`.
    /// Key names beyond `aps`, `ck`, `nid`, `sid` and `fet` are UNVERIFIED readings (docs/store.md).
    public func payload(container: String, environment: Environment, userRecordName: String) -> JSON {
        payload(container: container, environment: environment, userRecordName: userRecordName, fields: recordFields)
    }

    /// Drops desired keys until the payload fits APNs's 4 KB, as CloudKit does (CKNotification.h: the record's
    /// fields go first). Keys are kept in the subscription's desiredKeys order while they fit; one that would pass
    /// the limit is dropped and later, smaller ones may still fit. Marks the notification pruned when any was dropped.
    package mutating func fitPayload(desiredKeys: [String], container: String, environment: Environment, userRecordName: String) {
        // The common case, every key fits: one serialization, not one a key.
        if payload(container: container, environment: environment, userRecordName: userRecordName, fields: recordFields)
            .serialized().utf8.count <= Self.payloadLimit { return }
        var kept: [String: FieldValue] = [:]
        for key in desiredKeys {
            guard let value = recordFields[key], kept[key] == nil else { continue }
            var trial = kept
            trial[key] = value
            let size = payload(container: container, environment: environment, userRecordName: userRecordName, fields: trial)
                .serialized().utf8.count
            if size <= Self.payloadLimit { kept = trial }
        }
        if kept.count < recordFields.count { isPruned = true }
        recordFields = kept
    }

    private func payload(container: String, environment: Environment, userRecordName: String, fields: [String: FieldValue]) -> JSON {
        let dbs: Int64
        switch databaseScope {
        case .public: dbs = 1
        case .private: dbs = 2
        case .shared: dbs = 3
        }
        var body: [String: JSON] = ["sid": .string(subscriptionID), "dbs": .int(dbs)]
        if let z = zoneID {
            body["zid"] = .string(z.zoneName)
            body["zoid"] = .string(z.ownerRecordName)
        }
        var ck: [String: JSON] = ["nid": .string(notificationID), "cid": .string(container), "ckuserid": .string(userRecordName),
                                  "ce": .int(environment == .development ? 1 : 2)]
        switch kind {
        case .query:
            if let r = recordName { body["rid"] = .string(r) }
            switch reason {
            case .recordCreated?: body["fo"] = .int(1)
            case .recordUpdated?: body["fo"] = .int(2)
            case .recordDeleted?: body["fo"] = .int(3)
            case nil: break
            }
            if !fields.isEmpty { body["af"] = .object(fields.mapValues(\.valueJSON)) }
            ck["qry"] = .object(body)
        case .recordZone:
            ck["fet"] = .object(body)
        case .database:
            ck["met"] = .object(["sid": .string(subscriptionID), "dbs": .int(dbs)])
        }
        var out: [String: JSON] = ["ck": .object(ck)]
        let aps = apsDictionary
        if !aps.isEmpty { out["aps"] = .object(aps) }
        return .object(out)
    }

    /// The standard APNs `aps` keys for the subscription's notificationInfo.
    private var apsDictionary: [String: JSON] {
        func args(_ a: [String]) -> JSON { .array(a.map { .string($0) }) }
        var alert: [String: JSON] = [:]
        if let v = info.title { alert["title"] = .string(v) }
        if let v = info.titleLocalizationKey { alert["title-loc-key"] = .string(v) }
        if !info.titleLocalizationArgs.isEmpty { alert["title-loc-args"] = args(info.titleLocalizationArgs) }
        if let v = info.subtitle { alert["subtitle"] = .string(v) }
        if let v = info.subtitleLocalizationKey { alert["subtitle-loc-key"] = .string(v) }
        if !info.subtitleLocalizationArgs.isEmpty { alert["subtitle-loc-args"] = args(info.subtitleLocalizationArgs) }
        if let v = info.alertBody { alert["body"] = .string(v) }
        if let v = info.alertLocalizationKey { alert["loc-key"] = .string(v) }
        if !info.alertLocalizationArgs.isEmpty { alert["loc-args"] = args(info.alertLocalizationArgs) }
        if let v = info.alertActionLocalizationKey { alert["action-loc-key"] = .string(v) }
        if let v = info.alertLaunchImage { alert["launch-image"] = .string(v) }
        var aps: [String: JSON] = [:]
        if !alert.isEmpty { aps["alert"] = .object(alert) }
        // CloudKit keeps the badge count on the server; ck has no badge count, so a badging push says 1.
        if info.shouldBadge { aps["badge"] = .int(1) }
        if let v = info.soundName { aps["sound"] = .string(v) }
        if let v = info.category { aps["category"] = .string(v) }
        if info.shouldSendContentAvailable { aps["content-available"] = .int(1) }
        return aps
    }
}
