import Foundation
import CKModel
import CKQuery
import CKServer

/// The Web Services subscription dictionary (cloudkit.md §2.11) read into ck's `Subscription` and written back.
/// ck keeps a query subscription's filters as a predicate: `filterBy` is rendered into one (`%K`/`%@` with typed
/// arguments, so nothing a client sends is parsed as predicate syntax) and read back from its compiled plan.
enum WireSubscription {
    /// The subscription as clients read it: `{subscriptionID, subscriptionType, query?, zoneID?, firesOn?,
    /// firesOnce?, zoneWide?, notificationInfo}`.
    static func encode(_ s: Subscription, db: CKDatabase) -> JSON {
        var o: [String: JSON] = ["subscriptionID": .string(s.subscriptionID), "subscriptionType": .string(s.kind.name),
                                 "notificationInfo": notificationInfo(s.notificationInfo)]
        let owner = s.database == .public ? ZoneID.publicOwner : s.ownerRecordName
        switch s.kind {
        case .query(let type, let predicate, let arguments, let firesOn, let firesOnce, let zoneName):
            var q: [String: JSON] = ["recordType": .string(type)]
            if let filters = filters(type: type, predicate: predicate, arguments: arguments, db: db), !filters.isEmpty {
                q["filterBy"] = .array(filters.map(filterJSON))
            }
            o["query"] = .object(q)
            o["firesOn"] = .array(firesOn.sorted().map { .string($0.rawValue) })
            o["firesOnce"] = .bool(firesOnce)
            o["zoneWide"] = .bool(zoneName == nil)
            if let zoneName { o["zoneID"] = zoneID(zoneName, owner: owner) }
        case .recordZone(let zoneName, _):
            o["zoneID"] = zoneID(zoneName, owner: owner)
        case .database:
            break
        }
        return .object(o)
    }

    static func zoneID(_ name: String, owner: String) -> JSON {
        ZoneID(zoneName: name, ownerRecordName: owner).json
    }

    /// Web Services notificationInfo keys (reference §2.14): the alert body and its localization, the launch image,
    /// the sound, the badge and content-available flags, and the desired keys.
    static func notificationInfo(_ n: NotificationInfo) -> JSON {
        var o: [String: JSON] = ["shouldBadge": .bool(n.shouldBadge), "shouldSendContentAvailable": .bool(n.shouldSendContentAvailable)]
        if let alertBody = n.alertBody { o["alertBody"] = .string(alertBody) }
        if let v = n.alertLocalizationKey { o["alertLocalizationKey"] = .string(v) }
        if !n.alertLocalizationArgs.isEmpty { o["alertLocalizationArgs"] = .array(n.alertLocalizationArgs.map { .string($0) }) }
        if let v = n.alertActionLocalizationKey { o["alertActionLocalizationKey"] = .string(v) }
        if let v = n.alertLaunchImage { o["alertLaunchImage"] = .string(v) }
        if let v = n.soundName { o["soundName"] = .string(v) }
        if !n.desiredKeys.isEmpty { o["desiredKeys"] = .array(n.desiredKeys.map { .string($0) }) }
        return .object(o)
    }

    /// The filters a stored predicate compiles to against the current schema; nil when it no longer compiles.
    static func filters(type: String, predicate: String, arguments: [String], db: CKDatabase) -> [QueryFilter]? {
        do throws(CKError) {
            let schema = try db.container.schema(db.environment)
            return try db.makePlan(QueryRequest(recordType: type, predicate: predicate, arguments: arguments), schema: schema).plan.filters
        } catch {
            return nil
        }
    }

    /// A filter as `filterBy` writes it: `{comparator, fieldName | systemFieldName, fieldValue:{value, type}, distance?}`.
    static func filterJSON(_ f: QueryFilter) -> JSON {
        var o: [String: JSON] = ["comparator": .string(f.comparator.rawValue), "fieldValue": valueJSON(f.value)]
        if f.field.hasPrefix("___") {
            let names = ["___recordID": "recordName", "___createTime": "createdTimestamp", "___modTime": "modifiedTimestamp",
                         "___createdBy": "createdUserRecordName", "___modifiedBy": "modifiedUserRecordName"]
            o["systemFieldName"] = .string(names[f.field] ?? f.field)
        } else if f.field != "self" {
            o["fieldName"] = .string(f.field)
        }
        if let d = f.distance { o["distance"] = .double(d) }
        return .object(o)
    }

    /// A query constant as a Web Services field dictionary.
    static func valueJSON(_ v: QueryValue) -> JSON {
        let (value, type) = typed(v)
        return .object(["value": value, "type": .string(type)])
    }

    private static func typed(_ v: QueryValue) -> (JSON, String) {
        switch v {
        case .string(let s): return (.string(s), "STRING")
        case .int(let i): return (.int(i), "INT64")
        case .double(let d): return (.double(d), "DOUBLE")
        case .bool(let b): return (.int(b ? 1 : 0), "INT64")
        case .date(let t): return (.int(t), "TIMESTAMP")
        case .bytes(let b): return (.string(Data(b).base64EncodedString()), "BYTES")
        case .reference(let r):
            var o: [String: JSON] = ["recordName": .string(r.recordName), "action": .string("NONE")]
            if let z = r.zoneName { o["zoneID"] = .object(["zoneName": .string(z)]) }
            return (.object(o), "REFERENCE")
        case .location(let l): return (.object(["latitude": .double(l.latitude), "longitude": .double(l.longitude)]), "LOCATION")
        case .list(let items):
            let typedItems = items.map(typed)
            return (.array(typedItems.map(\.0)), (typedItems.first?.1 ?? "STRING") + "_LIST")
        }
    }

    // MARK: Reading

    /// Reads a subscription dictionary of a subscriptions/modify operation; `path` names it in errors
    /// (`operations[2].subscription`).
    static func decode(_ json: JSON, path: String) throws(CKError) -> Subscription {
        guard case .object(let o) = json else { throw CKError.invalid("\(path): expected a subscription object, got \(json.kindName)") }
        let id = try subscriptionID(o, path: path) ?? ""
        let info = try NotificationInfo(json: o["notificationInfo"].flatMap { $0.isNull ? nil : $0 }, path: path + ".notificationInfo")
        let zoneName = try self.zoneName(o["zoneID"], path: path + ".zoneID")
        guard let typeJSON = o["subscriptionType"], let type = typeJSON.stringValue else {
            throw CKError.invalid("\(path).subscriptionType: expected \"query\" or \"zone\"")
        }
        switch type {
        case "query":
            guard case .object(let q)? = o["query"] else { throw CKError.invalid("\(path).query: a query subscription needs {recordType, filterBy?}") }
            for k in q.keys where !["recordType", "filterBy", "sortBy"].contains(k) {
                throw CKError.invalid("\(path).query: unknown key '\(k)' (a query has recordType, filterBy and sortBy)")
            }
            guard let recordType = q["recordType"]?.stringValue, !recordType.isEmpty else {
                throw CKError.invalid("\(path).query.recordType: expected a record type name")
            }
            var filters: [QueryFilter] = []
            if let fb = q["filterBy"], !fb.isNull {
                guard let items = fb.arrayValue else { throw CKError.invalid("\(path).query.filterBy: expected an array of filters") }
                for (i, f) in items.enumerated() { filters.append(try QueryFilter.filter(f, path: "\(path).query.filterBy[\(i)]")) }
            }
            let (predicate, arguments) = try render(filters, path: path + ".query.filterBy")
            let firesOn = try events(o["firesOn"], path: path + ".firesOn")
            let firesOnce = try bool(o["firesOnce"], path: path + ".firesOnce") ?? false
            // zoneWide defaults to true unless a zone is named; zoneWide false without a zone means the default zone.
            let zoneWide = try bool(o["zoneWide"], path: path + ".zoneWide") ?? (zoneName == nil)
            return Subscription(subscriptionID: id, kind: .query(recordType: recordType, predicate: predicate, arguments: arguments,
                                                                 firesOn: firesOn, firesOnce: firesOnce,
                                                                 zoneName: zoneWide ? nil : zoneName ?? Names.defaultZoneName),
                                notificationInfo: info)
        case "zone":
            return Subscription(subscriptionID: id, kind: .recordZone(zoneName: zoneName ?? Names.defaultZoneName, recordType: nil),
                                notificationInfo: info)
        default:
            throw CKError.invalid("\(path).subscriptionType: '\(type)' is not \"query\" or \"zone\"")
        }
    }

    /// `subscriptionID`, or CloudKit JS's `subscriptionId` spelling; nil when absent.
    static func subscriptionID(_ o: [String: JSON], path: String) throws(CKError) -> String? {
        let key = o["subscriptionID"] != nil ? "subscriptionID" : "subscriptionId"
        guard let v = o[key], !v.isNull else { return nil }
        guard let s = v.stringValue else { throw CKError.invalid("\(path).\(key): expected a string, got \(v.kindName)") }
        return s
    }

    private static func zoneName(_ json: JSON?, path: String) throws(CKError) -> String? {
        guard let json, !json.isNull else { return nil }
        guard case .object(let z) = json else { throw CKError.invalid("\(path): expected {zoneName, ownerRecordName?}") }
        guard let v = z["zoneName"] else { return Names.defaultZoneName }
        guard let name = v.stringValue else { throw CKError.invalid("\(path).zoneName: expected a string, got \(v.kindName)") }
        return name
    }

    private static func bool(_ json: JSON?, path: String) throws(CKError) -> Bool? {
        guard let json, !json.isNull else { return nil }
        guard let b = json.boolValue else { throw CKError.invalid("\(path): expected true or false, got \(json.kindName)") }
        return b
    }

    /// `firesOn`: create, update, delete; absent means all three (CKQuerySubscription's default).
    private static func events(_ json: JSON?, path: String) throws(CKError) -> Set<Subscription.Event> {
        guard let json, !json.isNull else { return Set(Subscription.Event.allCases) }
        guard let items = json.arrayValue else { throw CKError.invalid("\(path): expected an array of \"create\", \"update\", \"delete\"") }
        var out = Set<Subscription.Event>()
        for (i, e) in items.enumerated() {
            guard let ev = e.stringValue.flatMap(Subscription.Event.init(rawValue:)) else {
                throw CKError.invalid("\(path)[\(i)]: expected \"create\", \"update\" or \"delete\"")
            }
            out.insert(ev)
        }
        return out
    }

    /// Filters as a predicate over `%K` (field names) and `%@` (values typed by prefix), ANDed.
    static func render(_ filters: [QueryFilter], path: String) throws(CKError) -> (String, [String]) {
        guard !filters.isEmpty else { return ("TRUEPREDICATE", []) }
        var parts: [String] = []
        var args: [String] = []
        for (i, f) in filters.enumerated() {
            let value = try argument(f.value, path: "\(path)[\(i)].fieldValue")
            let ops: [QueryFilter.Comparator: String] = [.EQUALS: "==", .NOT_EQUALS: "!=", .LESS_THAN: "<", .LESS_THAN_OR_EQUALS: "<=",
                                                         .GREATER_THAN: ">", .GREATER_THAN_OR_EQUALS: ">="]
            let text: String
            switch f.comparator {
            case .CONTAINS_ALL_TOKENS:
                parts.append("self CONTAINS %@")
                args.append(value)
                continue
            case .NEAR:
                guard let d = f.distance, d.isFinite, d >= 0 else {
                    throw CKError.invalid("\(path)[\(i)].distance: NEAR needs a distance in metres")
                }
                guard f.field.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }) else {
                    throw CKError.invalid("\(path)[\(i)].fieldName: '\(f.field)' is not a field name")
                }
                parts.append("distanceToLocation:fromLocation:(\(f.field), %@) < \(d)")
                args.append(value)
                continue
            case .BEGINS_WITH, .NOT_BEGINS_WITH: text = "%K BEGINSWITH %@"
            case .IN, .NOT_IN: text = "%K IN %@"
            case .LIST_CONTAINS, .NOT_LIST_CONTAINS: text = "%K CONTAINS %@"
            case .LIST_CONTAINS_ANY, .NOT_LIST_CONTAINS_ANY: text = "ANY %K IN %@"
            case .LIST_MEMBER_BEGINS_WITH, .NOT_LIST_MEMBER_BEGINS_WITH: text = "ANY %K BEGINSWITH %@"
            default:
                guard let op = ops[f.comparator] else {
                    throw CKError.invalid("\(path)[\(i)].comparator: \(f.comparator.rawValue) is not supported in a subscription's query",
                                          hint: "use EQUALS, NOT_EQUALS, LESS_THAN(_OR_EQUALS), GREATER_THAN(_OR_EQUALS), BEGINS_WITH, IN, NOT_IN, LIST_CONTAINS(_ANY), NEAR or CONTAINS_ALL_TOKENS")
                }
                text = "%K \(op) %@"
            }
            let negated: Set<QueryFilter.Comparator> = [.NOT_BEGINS_WITH, .NOT_IN, .NOT_LIST_CONTAINS, .NOT_LIST_CONTAINS_ANY, .NOT_LIST_MEMBER_BEGINS_WITH]
            parts.append(negated.contains(f.comparator) ? "NOT (\(text))" : text)
            args.append(f.displayName)
            args.append(value)
        }
        return (parts.joined(separator: " AND "), args)
    }

    /// A value as a typed `--arg` text (`string:…`, `int64:…`, a JSON array for lists) that reads back as itself.
    private static func argument(_ v: QueryValue, path: String) throws(CKError) -> String {
        switch v {
        case .string(let s): return "string:" + s
        case .int(let i): return "int64:\(i)"
        case .double(let d): return "double:\(d)"
        case .bool(let b): return "int64:\(b ? 1 : 0)"
        case .date(let t): return "timestamp:\(t)"
        case .bytes(let b): return "bytes:" + Data(b).base64EncodedString()
        case .reference(let r): return "reference:" + r.recordName + (r.zoneName.map { "@" + $0 } ?? "")
        case .location(let l): return "location:\(l.latitude),\(l.longitude)"
        case .list(let items):
            var out: [JSON] = []
            for (i, item) in items.enumerated() {
                if case .list = item { throw CKError.invalid("\(path)[\(i)]: lists of lists can't be compared") }
                out.append(.string(try argument(item, path: "\(path)[\(i)]")))
            }
            return JSON.array(out).serialized()
        }
    }
}
