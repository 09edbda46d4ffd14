import CKModel

/// Typed reads of a Web Services request body: each wrong type or missing key is a BAD_REQUEST naming its place
/// (`operations[3].record.fields.title: …`), never a crash.
struct WireBody {
    /// The object being read.
    let object: [String: JSON]
    /// Where it sits in the request (`""` for the body itself, `zones[2]` for an item).
    let path: String

    init(_ object: [String: JSON], path: String = "") {
        self.object = object
        self.path = path
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
        return WireBody(o, path: place(key))
    }

    /// The items of an array of objects; a single object is taken as a one-item array when `single` allows it
    /// (iCloud.com accepts `records` as one object in a lookup).
    func objects(_ key: String, single: Bool = false) throws(CKError) -> [WireBody]? {
        guard let v = value(key) else { return nil }
        if single, case .object(let o) = v { return [WireBody(o, path: place(key))] }
        guard case .array(let items) = v else { throw WireBody.bad(place(key), "expected an array, got \(v.kindName)") }
        var out: [WireBody] = []
        for (i, item) in items.enumerated() {
            guard case .object(let o) = item else { throw WireBody.bad("\(place(key))[\(i)]", "expected an object, got \(item.kindName)") }
            out.append(WireBody(o, path: "\(place(key))[\(i)]"))
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

    /// This object read as a zone ID `{zoneName?, ownerRecordName?, zoneType?}`: its zone name.
    func asZoneName() throws(CKError) -> String {
        for k in object.keys where !["zoneName", "ownerRecordName", "zoneType"].contains(k) {
            throw WireBody.bad(place(k), "unknown key '\(k)' in a zone ID (expected zoneName, ownerRecordName, zoneType)")
        }
        _ = try string("ownerRecordName")
        _ = try string("zoneType")
        return try string("zoneName") ?? Names.defaultZoneName
    }

    /// The request-level BAD_REQUEST for a value at `place`.
    static func bad(_ place: String, _ why: String) -> CKError {
        CKError(.invalidArguments, place.isEmpty ? why : "\(place): \(why)")
    }
}

extension RequestContext {
    /// The body as a `WireBody`.
    var wire: WireBody { WireBody(body) }

    /// Whether the query string asks for `getCurrentSyncToken` (`true` or Python's `True`).
    var wantsSyncToken: Bool { request.query["getCurrentSyncToken"]?.lowercased() == "true" }
}
