import CKModel
import CKSchema

/// What a hand-written fixtures document may leave out, filled in as the server would have (docs/fixtures.md):
/// owners (the importing caller, or the public database's owner), creation and modification stamps (now, by the
/// owner), zone capabilities (a saved zone's), a record's zone (the default zone) and field types the document's
/// schema declares. Change tags are left empty here: the import numbers them as saves would.
package struct FixtureDefaults {
    /// The importing caller's user record name; nil when signed out (nothing can be owned by nobody).
    package let caller: String?
    package let now: Int64

    private func owner(_ path: String) throws(CKError) -> String {
        guard let caller else {
            throw CKError.invalid("\(path): missing, and with no signed-in user there is no owner to supply",
                                  hint: "give it, or import as a user (--as)")
        }
        return caller
    }

    /// A `$.zones[i]` entry with its defaults filled in.
    package func zone(_ json: JSON, path: String) throws(CKError) -> JSON {
        guard var o = json.objectValue else { throw CKError.invalid("\(path): expected a zone object") }
        guard o["zoneName"]?.stringValue != nil else { throw CKError.invalid("\(path).zoneName: missing (a zone needs a name)") }
        if o["database"] == nil { o["database"] = .string(DatabaseScope.private.rawValue) }
        if o["ownerRecordName"] == nil { o["ownerRecordName"] = .string(try owner(path + ".ownerRecordName")) }
        if o["capabilities"] == nil { o["capabilities"] = .array(ZoneCapability.defaults.sorted().map { .string($0.rawValue) }) }
        if o["created"] == nil { o["created"] = .int(now) }
        return .object(o)
    }

    /// A record dictionary of `$.records[i].record` with its defaults filled in; `tagged` says whether it had a
    /// change tag (if not, an empty one stands in until the import numbers it).
    package func record(_ json: JSON, database: DatabaseScope, schema: Schema, path: String) throws(CKError) -> (record: JSON, tagged: Bool) {
        guard var o = json.objectValue else { throw CKError.invalid("\(path): expected a record object") }
        guard o["recordName"]?.stringValue != nil else { throw CKError.invalid("\(path).recordName: missing (a record needs a name)") }
        guard let type = o["recordType"]?.stringValue else { throw CKError.invalid("\(path).recordType: missing (a record needs a type)") }
        var zone = o["zoneID"]?.objectValue ?? [:]
        if o["zoneID"] != nil && o["zoneID"]?.objectValue == nil { throw CKError.invalid("\(path).zoneID: expected an object") }
        if zone["zoneName"] == nil { zone["zoneName"] = .string(Names.defaultZoneName) }
        if zone["ownerRecordName"] == nil {
            zone["ownerRecordName"] = .string(database == .public ? ZoneID.publicOwner : try owner(path + ".zoneID.ownerRecordName"))
        }
        o["zoneID"] = .object(zone)
        let tagged = o["recordChangeTag"] != nil
        if !tagged { o["recordChangeTag"] = .string("") }
        // The creator of a public record is the importing caller; of a private one, the zone's owner.
        let creator: () throws(CKError) -> String = { () throws(CKError) -> String in
            database == .public ? try owner(path + ".created.userRecordName") : zone["ownerRecordName"]?.stringValue ?? ""
        }
        var created = try stamp(o["created"], path: path + ".created")
        if created["userRecordName"] == nil { created["userRecordName"] = .string(try creator()) }
        if created["timestamp"] == nil { created["timestamp"] = .int(now) }
        o["created"] = .object(created)
        var modified = try stamp(o["modified"], path: path + ".modified")
        for (k, v) in created where modified[k] == nil { modified[k] = v }
        o["modified"] = .object(modified)
        if case .object(var fields)? = o["fields"] {
            // A value without a type takes the type the document's schema declares for its field.
            for (k, v) in fields {
                guard case .object(var f) = v, f["type"] == nil, let declared = schema.recordTypes[type]?.fields[k] else { continue }
                f["type"] = .string(declared.type.wsName)
                if declared.encrypted && f["isEncrypted"] == nil { f["isEncrypted"] = .bool(true) }
                fields[k] = .object(f)
            }
            o["fields"] = .object(fields)
        }
        return (.object(o), tagged)
    }

    private func stamp(_ json: JSON?, path: String) throws(CKError) -> [String: JSON] {
        guard let json, !json.isNull else { return [:] }
        guard let o = json.objectValue else { throw CKError.invalid("\(path): expected {\"timestamp\": ms, \"userRecordName\": …}") }
        return o
    }
}
