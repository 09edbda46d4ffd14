import Foundation
import CKModel
import CKServer

/// Records, zone IDs and tombstones as CloudKit Web Services sends them (web-services.md §6): every field with
/// its `type`, `pluginFields:{}`, `deleted:false`, `created`/`modified` with `deviceID`, and a `zoneID` with
/// `zoneType` except in the public database. The command line's `-o json` shapes are separate (CKServer/WebServices).
struct WireRecordEncoder {
    let context: RequestContext
    /// Only these user fields (nil = all).
    var desiredKeys: [String]?
    /// `numbersAsStrings`: INT64 and DOUBLE values (and lists of them) as strings.
    var numbersAsStrings = false

    init(_ context: RequestContext, desiredKeys: [String]? = nil, numbersAsStrings: Bool = false) {
        self.context = context
        self.desiredKeys = desiredKeys
        self.numbersAsStrings = numbersAsStrings
        self.scope = context.scope
    }

    /// The database the records come from: zone IDs are left out in the public one. records/resolve, on
    /// /public/, shows a root from the owner's private zone.
    var scope: DatabaseScope

    init(_ context: RequestContext, desiredKeys: [String]? = nil, numbersAsStrings: Bool = false, scope: DatabaseScope) {
        self.init(context, desiredKeys: desiredKeys, numbersAsStrings: numbersAsStrings)
        self.scope = scope
    }

    /// The `deviceID` stamped on what Web Services requests write: Apple's records written through Web Services
    /// carry "2" (web-services.md §6.2), which also tells them apart from the command line's "ck".
    static let webServicesDeviceID = "2"

    /// `{zoneName, ownerRecordName, zoneType}` with DEFAULT_ZONE or REGULAR_CUSTOM_ZONE.
    static func zoneID(_ id: ZoneID) -> JSON {
        .object(["zoneName": .string(id.zoneName), "ownerRecordName": .string(id.ownerRecordName),
                 "zoneType": .string(id.isDefault ? "DEFAULT_ZONE" : "REGULAR_CUSTOM_ZONE")])
    }

    /// The record dictionary of a fetched or saved record; a share shows `viewer` (default: the caller's own
    /// entry) as its `currentUserParticipant`.
    func record(_ r: Record, keys: [String]? = nil, viewer: Share.Participant? = nil) -> JSON {
        let keys = keys ?? desiredKeys
        var fields: [String: JSON] = [:]
        for (k, v) in r.fields where keys == nil || keys?.contains(k) == true { fields[k] = field(v) }
        var o: [String: JSON] = [
            "recordName": .string(r.recordName), "recordType": .string(r.recordType),
            "fields": .object(fields), "pluginFields": .object([:]),
            "recordChangeTag": .string(r.changeTag),
            "created": stamp(r.created), "modified": stamp(r.modified), "deleted": .bool(false),
        ]
        if scope != .public { o["zoneID"] = WireRecordEncoder.zoneID(r.zoneID) }
        if let parent = r.parent { o["parent"] = .object(["recordName": .string(parent)]) }
        addShareKeys(r, to: &o, viewer: viewer)
        return .object(o)
    }

    /// A root's `share` and `shortGUID`; a share's `shortGUID, publicPermission, participants, owner,
    /// currentUserParticipant` (sharing.md §10.2). Share keys are no fields: desiredKeys leaves them in.
    func addShareKeys(_ r: Record, to o: inout [String: JSON], viewer: Share.Participant?) {
        if let share = r.share { o["share"] = .object(["recordName": .string(share), "zoneID": WireRecordEncoder.zoneID(r.zoneID)]) }
        if let guid = r.shortGUID { o["shortGUID"] = .string(guid) }
        guard let info = r.shareInfo else { return }
        o["publicPermission"] = .string(info.publicPermission.wireName)
        o["participants"] = .array(info.participants.map(\.json))
        if let owner = info.owner { o["owner"] = owner.json }
        let me = viewer ?? context.caller.userRecordName.flatMap { info.participant($0) }
        if let me { o["currentUserParticipant"] = me.json }
    }

    /// A change-feed tombstone: `{recordName, deleted:true, zoneID}`, no type or fields.
    static func tombstone(_ name: String, zoneID: ZoneID) -> JSON {
        .object(["recordName": .string(name), "deleted": .bool(true), "zoneID": WireRecordEncoder.zoneID(zoneID)])
    }

    /// A modify's delete result: `{recordName, deleted:true}`.
    static func deletion(_ name: String) -> JSON {
        .object(["recordName": .string(name), "deleted": .bool(true)])
    }

    func stamp(_ s: RecordStamp) -> JSON {
        .object(["timestamp": .int(s.timestamp), "userRecordName": .string(s.userRecordName), "deviceID": .string(s.deviceID)])
    }

    /// A field dictionary: `{value, type}` (+ `isEncrypted:true` for an encrypted value, as ck stores it).
    func field(_ v: FieldValue) -> JSON {
        guard case .object(var o) = v.fieldJSON else { return v.fieldJSON }
        o["value"] = value(v.plain)
        return .object(o)
    }

    /// A bare value as the wire carries it: assets with `downloadURL` (and `wrappingKey`/`referenceChecksum`
    /// outside the public database), references' zone IDs with `zoneType`, numbers as strings when asked.
    func value(_ v: FieldValue) -> JSON {
        switch v {
        case .asset(let a):
            var o: [String: JSON] = [
                "fileChecksum": .string(Data(FieldValue.hexBytes(a.sha256)).base64EncodedString()),
                "size": .int(a.size),
                "downloadURL": .string(context.server.assets.downloadURL(a, context: context)),
            ]
            if scope != .public {
                // ck encrypts nothing, but private-database clients expect the keys: the ones the upload answered.
                let uploaded = AssetTransfer.assetDictionary(a)
                o["wrappingKey"] = uploaded["wrappingKey"]
                o["referenceChecksum"] = uploaded["referenceChecksum"]
            }
            return .object(o)
        case .reference:
            guard case .object(var o) = v.valueJSON else { return v.valueJSON }
            if case .object(var z)? = o["zoneID"] {
                let name = z["zoneName"]?.stringValue ?? Names.defaultZoneName
                z["zoneType"] = .string(name == Names.defaultZoneName ? "DEFAULT_ZONE" : "REGULAR_CUSTOM_ZONE")
                o["zoneID"] = .object(z)
            }
            return .object(o)
        case .int64(let i): return numbersAsStrings ? .string(String(i)) : .int(i)
        case .double(let d): return numbersAsStrings ? .string(JSON.double(d).serialized()) : .double(d)
        case .list(_, let items): return .array(items.map(value))
        case .encrypted(let plain): return value(plain)
        default: return v.valueJSON
        }
    }

    /// A failed record in its item's place: exactly `recordName, reason, serverErrorCode` (+ `retryAfter`).
    static func error(_ e: CKError, recordName: String) -> JSON {
        WireError.item(e, key: "recordName", id: .string(recordName))
    }
}
