import Foundation

/// A notification a subscription produced (CKQueryNotification, CKRecordZoneNotification, CKDatabaseNotification).
public struct SubscriptionNotification: Equatable, Sendable {
    /// CKNotification.NotificationType, as ck names it in JSON.
    public enum Kind: String, Sendable { case query, recordZone, database }
    /// CKQueryNotification.Reason.
    public enum Reason: String, Sendable { case recordCreated, recordUpdated, recordDeleted }

    public var notificationID: String
    public var kind: Kind
    public var subscriptionID: String
    public var databaseScope: DatabaseScope
    /// Query notifications: why, which record, and the subscription's desired keys of it.
    public var reason: Reason?
    public var recordName: String?
    public var recordType: String?
    /// The zone of the record (query) or the zone that changed (recordZone).
    public var zoneID: ZoneID?
    public var recordFields: [String: FieldValue]
    /// The subscription's alert, badge, sound, category and silent-push settings when it fired (no desired keys).
    public var info: NotificationInfo
    public var alertBody: String? { get { info.alertBody } set { info.alertBody = newValue } }
    public var shouldBadge: Bool { get { info.shouldBadge } set { info.shouldBadge = newValue } }
    public var shouldSendContentAvailable: Bool { get { info.shouldSendContentAvailable } set { info.shouldSendContentAvailable = newValue } }
    /// Whether the push left out something the notification holds (CKNotification.isPruned): desired keys
    /// that did not fit APNs's 4 KB, or, for one device, notifications APNs coalesced into this one.
    public var isPruned: Bool
    /// The device whose write caused it: CloudKit tells every device of the user except this one.
    public var deviceID: String
    /// When it was made, ms since 1970.
    public var time: Int64
    /// Whether it was marked read (only known when listing).
    public var read: Bool

    /// The notification's JSON; `read` is included when listing (`withRead`).
    public func json(withRead: Bool = false) -> JSON {
        var o: [String: JSON] = ["notificationID": .string(notificationID), "notificationType": .string(kind.rawValue),
                                 "subscriptionID": .string(subscriptionID), "databaseScope": .string(databaseScope.rawValue.uppercased()),
                                 "deviceID": .string(deviceID), "time": .int(time)]
        if let reason { o["queryNotificationReason"] = .string(reason.rawValue) }
        if let recordName { o["recordName"] = .string(recordName) }
        if let recordType { o["recordType"] = .string(recordType) }
        if let zoneID { o["zoneID"] = zoneID.json }
        if kind == .query { o["recordFields"] = .object(recordFields.mapValues(\.fieldJSON)) }
        o.merge(info.alertJSON) { a, _ in a }
        if isPruned { o["isPruned"] = .bool(true) }
        if shouldBadge { o["shouldBadge"] = .bool(true) }
        if shouldSendContentAvailable { o["shouldSendContentAvailable"] = .bool(true) }
        if withRead { o["read"] = .bool(read) }
        return .object(o)
    }

    package init(notificationID: String, kind: Kind, subscription: Subscription, deviceID: String, time: Int64) {
        self.notificationID = notificationID
        self.kind = kind
        self.subscriptionID = subscription.subscriptionID
        self.databaseScope = subscription.database
        self.reason = nil
        self.recordFields = [:]
        var info = subscription.notificationInfo
        info.desiredKeys = []
        self.info = info
        self.isPruned = false
        self.deviceID = deviceID
        self.time = time
        self.read = false
    }

    /// Reads a notification written by `json()`.
    package init(json: JSON, path: String) throws(CKError) {
        guard case .object(let o) = json, let id = o["notificationID"]?.stringValue,
              let kind = o["notificationType"]?.stringValue.flatMap(Kind.init(rawValue:)),
              let sid = o["subscriptionID"]?.stringValue,
              let scope = o["databaseScope"]?.stringValue.flatMap({ DatabaseScope(rawValue: $0.lowercased()) }),
              let time = o["time"]?.int64Value else {
            throw CKError.invalid("\(path): a notification needs notificationID, notificationType, subscriptionID, databaseScope and time")
        }
        notificationID = id
        self.kind = kind
        subscriptionID = sid
        databaseScope = scope
        self.time = time
        reason = o["queryNotificationReason"]?.stringValue.flatMap(Reason.init(rawValue:))
        recordName = o["recordName"]?.stringValue
        recordType = o["recordType"]?.stringValue
        if let z = o["zoneID"], let n = z["zoneName"]?.stringValue, let owner = z["ownerRecordName"]?.stringValue {
            zoneID = ZoneID(zoneName: n, ownerRecordName: owner)
        }
        var fields: [String: FieldValue] = [:]
        for (k, v) in o["recordFields"]?.objectValue ?? [:] {
            if let f = try FieldValue.from(fieldJSON: v, declared: nil, path: "\(path).recordFields.\(k)") { fields[k] = f }
        }
        recordFields = fields
        var info = NotificationInfo(shouldBadge: o["shouldBadge"]?.boolValue ?? false,
                                    shouldSendContentAvailable: o["shouldSendContentAvailable"]?.boolValue ?? false)
        try info.readAlert(o, path: path)
        for (k, p) in NotificationInfo.listKeys { info[keyPath: p] = (o[k]?.arrayValue ?? []).compactMap(\.stringValue) }
        self.info = info
        isPruned = o["isPruned"]?.boolValue ?? false
        deviceID = o["deviceID"]?.stringValue ?? RecordStamp.deviceID
        read = false
    }
}
