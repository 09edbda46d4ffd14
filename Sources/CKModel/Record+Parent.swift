
/// The parent reference (CKRecord.parent): what sharing follows to share a hierarchy.
extension Record {
    /// The Web Services `parent` dictionary: `{"recordName": …}` (a parent reference's action is always NONE).
    package static func parentJSON(_ name: String) -> JSON { .object(["recordName": .string(name)]) }

    /// Reads a request's `parent` key: `{"recordName"[, "zoneID"][, "action": "NONE"]}`, or a bare name.
    /// Returns the parent's name and the zone it names, if any.
    package static func parent(json: JSON, path: String) throws(CKError) -> (name: String, zone: String?) {
        if let s = json.stringValue { return (s, nil) }
        guard case .object(let o) = json, let name = o["recordName"]?.stringValue else {
            throw CKError.invalid("\(path): expected a parent {\"recordName\": …}")
        }
        for k in o.keys where !["recordName", "zoneID", "action"].contains(k) {
            throw CKError.invalid("\(path): unknown key '\(k)' in a parent reference (expected recordName, zoneID, action)")
        }
        if let a = o["action"], !a.isNull, a.stringValue != Reference.Action.none.rawValue {
            throw CKError.invalid("\(path).action: a parent reference must use action NONE, not \(a.stringValue ?? a.serialized())",
                                  hint: "drop the action: CloudKit keeps parents with NONE (use a DELETE_SELF field to delete children with their parent)")
        }
        return (name, o["zoneID"]?["zoneName"]?.stringValue)
    }
}
