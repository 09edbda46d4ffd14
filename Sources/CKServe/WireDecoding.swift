import CKModel

/// Typed reads of a Web Services request body: each wrong type or missing key is a BAD_REQUEST naming its place
/// (`operations[3].record.fields.title: …`), never a crash.
struct WireBody {
    /// The object being read.
    let object: [String: JSON]
    /// Where it sits in the request (`""` for the body itself, `zones[2]` for an item).
    let path: String
    /// In the shared database a zone ID's `ownerRecordName` picks the owner: zone names read as `NAME:OWNER`.
    var sharedOwners = false

    init(_ object: [String: JSON], path: String = "", sharedOwners: Bool = false) {
        self.object = object
        self.path = path
        self.sharedOwners = sharedOwners
    }

    /// The place of `key` in messages.
    func place(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// A value that is present and not null.
    func value(_ key: String) -> JSON? {
        guard let v = object[key], !v.isNull else { return nil }
        return v
    }

    func string(_ key: String) throws(CKError) -> String? {
        guard let v = value(key) else { return nil }
        guard let s = v.stringValue else { throw WireBody.bad(place(key), "expected a string, got \(v.kindName)") }
        return s
    }

    func bool(_ key: String) throws(CKError) -> Bool? {
        guard let v = value(key) else { return nil }
        guard let b = v.boolValue else { throw WireBody.bad(place(key), "expected true or false, got \(v.kindName)") }
        return b
    }

    /// A whole number in `range`.
    func int(_ key: String, in range: ClosedRange<Int>) throws(CKError) -> Int? {
        guard let v = value(key) else { return nil }
        guard let i = v.int64Value, i >= Int64(range.lowerBound), i <= Int64(range.upperBound) else {
            let what = v.int64Value == nil ? "got \(v.kindName == "number" ? v.serialized() : v.kindName)" : "got \(v.serialized())"
            throw WireBody.bad(place(key), "expected a whole number from \(range.lowerBound) to \(range.upperBound), \(what)")
        }
        return Int(i)
    }

    func object(_ key: String) throws(CKError) -> WireBody? {
        guard let v = value(key) else { return nil }
        guard case .object(let o) = v else { throw WireBody.bad(place(key), "expected an object, got \(v.kindName)") }
        return WireBody(o, path: place(key), sharedOwners: sharedOwners)
    }

    /// The items of an array of objects; a single object is taken as a one-item array when `single` allows it
    /// (iCloud.com accepts `records` as one object in a lookup).
    func objects(_ key: String, single: Bool = false) throws(CKError) -> [WireBody]? {
        guard let v = value(key) else { return nil }
        if single, case .object(let o) = v { return [WireBody(o, path: place(key), sharedOwners: sharedOwners)] }
        guard case .array(let items) = v else { throw WireBody.bad(place(key), "expected an array, got \(v.kindName)") }
        var out: [WireBody] = []
        for (i, item) in items.enumerated() {
            guard case .object(let o) = item else { throw WireBody.bad("\(place(key))[\(i)]", "expected an object, got \(item.kindName)") }
            out.append(WireBody(o, path: "\(place(key))[\(i)]", sharedOwners: sharedOwners))
        }
        return out
    }

    /// `desiredKeys`: an array of field names (null = all fields).
    func desiredKeys(_ key: String = "desiredKeys") throws(CKError) -> [String]? {
        guard let v = value(key) else { return nil }
        guard case .array(let items) = v else { throw WireBody.bad(place(key), "expected an array of field names, got \(v.kindName)") }
        var out: [String] = []
        for (i, item) in items.enumerated() {
            guard let s = item.stringValue else { throw WireBody.bad("\(place(key))[\(i)]", "expected a field name (string), got \(item.kindName)") }
            out.append(s)
        }
        return out
    }

    /// A zone ID dictionary `{zoneName, ownerRecordName?, zoneType?}`: its zone name (`_defaultZone` when the key is
    /// absent and `required` is false). `ownerRecordName` and `zoneType` are accepted as clients echo them.
    func zoneName(_ key: String = "zoneID", required: Bool = false) throws(CKError) -> String? {
        guard let z = try object(key) else {
            if required { throw WireBody.bad(place(key), "missing: the request needs a zoneID {\"zoneName\": …}") }
            return nil
        }
        return try z.asZoneName()
    }

    /// This object read as a zone ID `{zoneName?, ownerRecordName?, zoneType?}`: its zone name; in the shared
    /// database `NAME:OWNER` when an owner is named, so two owners' zones of one name are told apart.
    func asZoneName() throws(CKError) -> String {
        for k in object.keys where !["zoneName", "ownerRecordName", "zoneType"].contains(k) {
            throw WireBody.bad(place(k), "unknown key '\(k)' in a zone ID (expected zoneName, ownerRecordName, zoneType)")
        }
        let owner = try string("ownerRecordName")
        _ = try string("zoneType")
        let name = try string("zoneName") ?? Names.defaultZoneName
        guard sharedOwners, let owner, !WireBody.placeholderOwners.contains(owner) else { return name }
        guard Names.isUserRecordName(owner) else {
            throw WireBody.bad(place("ownerRecordName"), "'\(Names.describe(owner))' is not a user record name (a shared zone's ownerRecordName is its owner's)")
        }
        // A ':' in the name would be read as an owner separator by the core; zone names never hold one.
        guard !name.contains(":") else { throw WireBody.bad(place("zoneName"), "'\(Names.describe(name))' is not a zone name") }
        return name + ":" + owner
    }

    /// Owner names clients send for "the current user" (CloudKit JS's `__defaultOwner__`): no owner picked.
    static let placeholderOwners: Set<String> = ["__defaultOwner__", "_defaultOwner"]

    /// The request-level BAD_REQUEST for a value at `place`.
    static func bad(_ place: String, _ why: String) -> CKError {
        CKError(.invalidArguments, place.isEmpty ? why : "\(place): \(why)")
    }
}

extension RequestContext {
    /// The body as a `WireBody`.
    var wire: WireBody { WireBody(body, sharedOwners: scope == .shared) }

    /// The zone ID a zone name read by `asZoneName` stands for, for an answer naming a zone that was not found:
    /// in the shared database `NAME:OWNER` is the owner's zone.
    func zoneID(named name: String) throws(CKError) -> ZoneID {
        if scope == .shared, let colon = name.firstIndex(of: ":") {
            return ZoneID(zoneName: String(name[..<colon]), ownerRecordName: String(name[name.index(after: colon)...]))
        }
        return try database().zoneID(name)
    }

    /// Whether the query string asks for `getCurrentSyncToken` (`true` or Python's `True`).
    var wantsSyncToken: Bool { request.query["getCurrentSyncToken"]?.lowercased() == "true" }
}
