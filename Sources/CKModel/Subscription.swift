import Foundation

/// A subscription: what changes the server tells its owner about (CKQuerySubscription,
/// CKRecordZoneSubscription, CKDatabaseSubscription).
public struct Subscription: Equatable, Sendable {
    /// The record changes a query subscription fires on (CKQuerySubscription.Options).
    public enum Event: String, Sendable, CaseIterable, Comparable {
        case create, update, delete
        public static func < (a: Event, b: Event) -> Bool { (allCases.firstIndex(of: a) ?? 0) < (allCases.firstIndex(of: b) ?? 0) }
    }

    /// The three kinds of subscription CloudKit has.
    public enum Kind: Equatable, Sendable {
        /// Records of a type matching a predicate, in one zone (`zoneName`) or every zone (nil).
        case query(recordType: String, predicate: String, arguments: [String], firesOn: Set<Event>, firesOnce: Bool, zoneName: String?)
        /// Any record change in one custom zone with fetchChanges; optionally only records of one type.
        case recordZone(zoneName: String, recordType: String?)
        /// Any record change in the database's custom zones; optionally only records of one type.
        case database(recordType: String?)

        /// `query`, `zone` or `database`, as the JSON and the CLI name the kind.
        public var name: String {
            switch self {
            case .query: return "query"
            case .recordZone: return "zone"
            case .database: return "database"
            }
        }
    }

    public var subscriptionID: String
    public var kind: Kind
    public var notificationInfo: NotificationInfo
    /// The user the subscription belongs to (set by the server on save).
    public var ownerRecordName: String
    /// The database it watches (set by the server on save).
    public var database: DatabaseScope
    /// When it was saved, ms since 1970 (set by the server on save).
    public var created: Int64

    /// A subscription to save; an empty `subscriptionID` gets a UUID.
    public init(subscriptionID: String = "", kind: Kind, notificationInfo: NotificationInfo = NotificationInfo(),
                ownerRecordName: String = "", database: DatabaseScope = .private, created: Int64 = 0) {
        self.subscriptionID = subscriptionID
        self.kind = kind
        self.notificationInfo = notificationInfo
        self.ownerRecordName = ownerRecordName
        self.database = database
        self.created = created
    }

    /// The record type a subscription is limited to, if any.
    public var recordType: String? {
        switch kind {
        case .query(let t, _, _, _, _, _): return t
        case .recordZone(_, let t), .database(let t): return t
        }
    }

    /// The Web Services subscription dictionary, plus ck's `ownerRecordName`, `database`, `recordType` and `created`.
    public var json: JSON {
        var o: [String: JSON] = ["subscriptionID": .string(subscriptionID), "subscriptionType": .string(kind.name),
                                 "notificationInfo": notificationInfo.json, "ownerRecordName": .string(ownerRecordName),
                                 "database": .string(database.rawValue), "created": .int(created)]
        let owner = database == .public ? ZoneID.publicOwner : ownerRecordName
        switch kind {
        case .query(let type, let predicate, let arguments, let firesOn, let firesOnce, let zoneName):
            var q: [String: JSON] = ["recordType": .string(type), "predicate": .string(predicate)]
            if !arguments.isEmpty { q["arguments"] = .array(arguments.map { .string($0) }) }
            o["query"] = .object(q)
            o["firesOn"] = .array(firesOn.sorted().map { .string($0.rawValue) })
            o["firesOnce"] = .bool(firesOnce)
            o["zoneWide"] = .bool(zoneName == nil)
            if let zoneName { o["zoneID"] = ZoneID(zoneName: zoneName, ownerRecordName: owner).json }
        case .recordZone(let zoneName, let type):
            o["zoneID"] = ZoneID(zoneName: zoneName, ownerRecordName: owner).json
            if let type { o["recordType"] = .string(type) }
        case .database(let type):
            if let type { o["recordType"] = .string(type) }
        }
        return .object(o)
    }

    /// Reads a subscription dictionary; `path` (a file or a JSON path) prefixes every error.
    public init(json: JSON, path: String) throws(CKError) {
        guard case .object(let o) = json else { throw CKError.invalid("\(path): expected a subscription object") }
        func string(_ k: String) throws(CKError) -> String {
            guard let s = o[k]?.stringValue, !s.isEmpty else { throw CKError.invalid("\(path).\(k): expected a non-empty string") }
            return s
        }
        func optionalString(_ k: String) throws(CKError) -> String? {
            guard let v = o[k], !v.isNull else { return nil }
            guard let s = v.stringValue else { throw CKError.invalid("\(path).\(k): expected a string") }
            return s
        }
        let id = try string("subscriptionID")
        let owner = try string("ownerRecordName")
        guard let db = DatabaseScope(rawValue: try string("database")) else {
            throw CKError.invalid("\(path).database: expected \"public\", \"private\" or \"shared\"")
        }
        let zoneName = try o["zoneID"].map { (z) throws(CKError) -> String in
            guard let n = z["zoneName"]?.stringValue else { throw CKError.invalid("\(path).zoneID.zoneName: expected a zone name") }
            return n
        }
        let kind: Kind
        switch try string("subscriptionType") {
        case "query":
            guard case .object(let q)? = o["query"], let type = q["recordType"]?.stringValue else {
                throw CKError.invalid("\(path).query: expected {\"recordType\": …, \"predicate\": …}")
            }
            let predicate = q["predicate"]?.stringValue ?? "TRUEPREDICATE"
            var args: [String] = []
            for (i, a) in (q["arguments"]?.arrayValue ?? []).enumerated() {
                guard let s = a.stringValue else { throw CKError.invalid("\(path).query.arguments[\(i)]: expected a string") }
                args.append(s)
            }
            var events = Set<Event>()
            for (i, e) in (o["firesOn"]?.arrayValue ?? []).enumerated() {
                guard let ev = e.stringValue.flatMap(Event.init(rawValue:)) else {
                    throw CKError.invalid("\(path).firesOn[\(i)]: expected \"create\", \"update\" or \"delete\"")
                }
                events.insert(ev)
            }
            let zoneWide = o["zoneWide"]?.boolValue ?? (zoneName == nil)
            kind = .query(recordType: type, predicate: predicate, arguments: args, firesOn: events,
                          firesOnce: o["firesOnce"]?.boolValue ?? false, zoneName: zoneWide ? nil : zoneName)
        case "zone":
            guard let zoneName else { throw CKError.invalid("\(path).zoneID: a zone subscription needs a zone") }
            kind = .recordZone(zoneName: zoneName, recordType: try optionalString("recordType"))
        case "database":
            kind = .database(recordType: try optionalString("recordType"))
        case let other:
            throw CKError.invalid("\(path).subscriptionType: '\(other)' is not query, zone or database")
        }
        self.init(subscriptionID: id, kind: kind, notificationInfo: try NotificationInfo(json: o["notificationInfo"], path: path + ".notificationInfo"),
                  ownerRecordName: owner, database: db, created: o["created"]?.int64Value ?? 0)
    }
}
