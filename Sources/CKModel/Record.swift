
/// Which of a container's three databases.
public enum DatabaseScope: String, Sendable, CaseIterable {
    case `public`, `private`, shared
}

/// A container's two environments, each a self-contained tree on disk.
public enum Environment: String, Sendable, CaseIterable {
    case development, production
}

/// A zone's identity: its name and the user who owns it.
public struct ZoneID: Hashable, Sendable {
    /// Owner name of public-database zones.
    public static let publicOwner = "_defaultOwner"

    public var zoneName: String
    public var ownerRecordName: String

    public init(zoneName: String, ownerRecordName: String) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
    }

    public var isDefault: Bool { zoneName == Names.defaultZoneName }

    public var json: JSON {
        .object(["zoneName": .string(zoneName), "ownerRecordName": .string(ownerRecordName),
                 "zoneType": .string(isDefault ? "DEFAULT_ZONE" : "REGULAR_CUSTOM_ZONE")])
    }
}

/// Who changed a record, and when (ms since 1970).
public struct RecordStamp: Equatable, Sendable {
    public var timestamp: Int64
    public var userRecordName: String
    public var deviceID: String

    public init(timestamp: Int64, userRecordName: String, deviceID: String = RecordStamp.deviceID) {
        self.timestamp = timestamp
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }

    /// The device id `ck` writes; real CloudKit shows a hex id or "iCloud".
    public static let deviceID = "ck"

    package var json: JSON {
        .object(["timestamp": .int(timestamp), "userRecordName": .string(userRecordName), "deviceID": .string(deviceID)])
    }

    package init(json: JSON?, path: String) throws(CKError) {
        guard let json, let t = json["timestamp"]?.int64Value, let u = json["userRecordName"]?.stringValue else {
            throw CKError.invalid("\(path): expected {\"timestamp\": ms, \"userRecordName\": …}")
        }
        self.init(timestamp: t, userRecordName: u, deviceID: json["deviceID"]?.stringValue ?? RecordStamp.deviceID)
    }
}

/// A record as the server keeps it.
public struct Record: Equatable, Sendable {
    public var recordName: String
    public var recordType: String
    public var zoneID: ZoneID
    public var changeTag: String
    public var fields: [String: FieldValue]
    public var created: RecordStamp
    public var modified: RecordStamp
    /// The record's parent (CKRecord.parent): a record of the same zone, referenced with action NONE.
    public var parent: String?
    /// A shared hierarchy's root: the name of its share record (CKRecord.share), in the same zone.
    public var share: String?
    /// The short GUID of a share and of its root (the share URL's last part); a root keeps it across reshares.
    public var shortGUID: String?
    /// What a `cloudkit.share` record holds beyond its fields.
    public var shareInfo: Share?

    public init(recordName: String, recordType: String, zoneID: ZoneID, changeTag: String,
                fields: [String: FieldValue], created: RecordStamp, modified: RecordStamp, parent: String? = nil,
                share: String? = nil, shortGUID: String? = nil, shareInfo: Share? = nil) {
        self.recordName = recordName
        self.recordType = recordType
        self.zoneID = zoneID
        self.changeTag = changeTag
        self.fields = fields
        self.created = created
        self.modified = modified
        self.parent = parent
        self.share = share
        self.shortGUID = shortGUID
        self.shareInfo = shareInfo
    }

    /// The Web Services record dictionary. `keys` limits the user fields (nil = all).
    public func json(keys: [String]? = nil) -> JSON {
        var f: [String: JSON] = [:]
        for (k, v) in fields where keys == nil || keys?.contains(k) == true { f[k] = v.fieldJSON }
        var o: [String: JSON] = [
            "recordName": .string(recordName), "recordType": .string(recordType),
            "recordChangeTag": .string(changeTag), "fields": .object(f),
            "created": created.json, "modified": modified.json, "zoneID": zoneID.json,
            "deleted": .bool(false),
        ]
        if let parent { o["parent"] = Record.parentJSON(parent) }
        addShareKeys(&o)
        return .object(o)
    }

    /// Reads a stored record dictionary (a zone log line's `record`); values are typed by their `type` keys.
    public init(json: JSON, path: String) throws(CKError) {
        guard case .object(let o) = json else { throw CKError.invalid("\(path): expected a record object") }
        guard let name = o["recordName"]?.stringValue else { throw CKError.invalid("\(path): missing recordName") }
        guard let type = o["recordType"]?.stringValue else { throw CKError.invalid("\(path): missing recordType") }
        guard let tag = o["recordChangeTag"]?.stringValue else { throw CKError.invalid("\(path): missing recordChangeTag") }
        guard let zone = o["zoneID"]?["zoneName"]?.stringValue,
              let owner = o["zoneID"]?["ownerRecordName"]?.stringValue else {
            throw CKError.invalid("\(path): missing zoneID")
        }
        var fields: [String: FieldValue] = [:]
        if let fj = o["fields"], !fj.isNull {
            guard case .object(let fo) = fj else { throw CKError.invalid("\(path).fields: expected an object") }
            for (k, v) in fo {
                if let value = try FieldValue.from(fieldJSON: v, declared: nil, path: "\(path).fields.\(k)") {
                    fields[k] = value
                }
            }
        }
        self.init(recordName: name, recordType: type, zoneID: ZoneID(zoneName: zone, ownerRecordName: owner),
                  changeTag: tag, fields: fields,
                  created: try RecordStamp(json: o["created"], path: path + ".created"),
                  modified: try RecordStamp(json: o["modified"], path: path + ".modified"),
                  parent: o["parent"]?["recordName"]?.stringValue)
        try readShareKeys(o, path: path)
    }

    /// Bytes the record counts against CloudKit's 1 MB limit: its fields, assets excluded.
    public var size: Int {
        var total = recordName.utf8.count + recordType.utf8.count
        for (k, v) in fields {
            if case .asset = v { continue }
            if case .list(.asset, _) = v { continue }
            total += k.utf8.count + v.valueJSON.serialized().utf8.count
        }
        return total
    }

    /// An upper bound of `size` that costs no serialization (escaping at most doubles a string, plus quotes).
    package var sizeBound: Int {
        func bound(_ v: FieldValue) -> Int {
            switch v {
            case .string(let s): return 6 * s.utf8.count + 2  // a control character is written as \u00XX
            case .bytes(let b): return b.count * 4 / 3 + 8
            case .list(_, let items): return items.reduce(2) { $0 + bound($1) + 1 }
            case .reference(let r): return 6 * (r.recordName.utf8.count + (r.zoneName?.utf8.count ?? 0) + (r.ownerRecordName?.utf8.count ?? 0)) + 96
            case .location: return 1024
            case .encrypted(let plain): return bound(plain)
            default: return 256
            }
        }
        return fields.reduce(recordName.utf8.count + recordType.utf8.count) { $0 + $1.key.utf8.count + bound($1.value) }
    }
}
