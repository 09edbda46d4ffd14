import CKModel

/// One web-courier frame: a notification as the courier hands it to a polling client (web-services.md §8).
///
/// `{"aps":{"alert":{"body"}}?, "ck":{"nid", "cid", "ckuserid", "ce", "qry":{"sid", "rid", "fo", "zid", "dbs", "zoid"}}}`
/// for a query notification; a zone notification carries `fet:{sid, zid, zoid, dbs}` and a database notification
/// `met:{sid, dbs}` in place of `qry` (ck's choice, UNVERIFIED). `ce` is 1 for development and 2 for production,
/// `dbs` the native database scope (1 public, 2 private, 3 shared): both UNVERIFIED readings of Apple's keys.
enum CourierFrame {
    static func make(_ n: SubscriptionNotification, container: String, environment: Environment, userRecordName: String) -> JSON {
        let dbs: Int64
        switch n.databaseScope {
        case .public: dbs = 1
        case .private: dbs = 2
        case .shared: dbs = 3
        }
        var body: [String: JSON] = ["sid": .string(n.subscriptionID), "dbs": .int(dbs)]
        if let z = n.zoneID {
            body["zid"] = .string(z.zoneName)
            body["zoid"] = .string(z.ownerRecordName)
        }
        var ck: [String: JSON] = ["nid": .string(n.notificationID), "cid": .string(container), "ckuserid": .string(userRecordName),
                                  "ce": .int(environment == .development ? 1 : 2)]
        switch n.kind {
        case .query:
            if let r = n.recordName { body["rid"] = .string(r) }
            switch n.reason {
            case .recordCreated?: body["fo"] = .int(1)
            case .recordUpdated?: body["fo"] = .int(2)
            case .recordDeleted?: body["fo"] = .int(3)
            case nil: break
            }
            ck["qry"] = .object(body)
        case .recordZone:
            ck["fet"] = .object(body)
        case .database:
            ck["met"] = .object(["sid": .string(n.subscriptionID), "dbs": .int(dbs)])
        }
        var frame: [String: JSON] = ["ck": .object(ck)]
        // aps only when the subscription set an alert (what the live courier shows).
        if let alert = n.alertBody {
            var aps: [String: JSON] = ["alert": .object(["body": .string(alert)])]
            if n.shouldBadge { aps["badge"] = .int(1) }
            if n.shouldSendContentAvailable { aps["content-available"] = .int(1) }
            frame["aps"] = .object(aps)
        }
        return .object(frame)
    }
}
