
extension RecordOperation {
    /// Reads one batch item: a Web Services operation `{"operationType", "record"}` or a bare record dictionary.
    /// A bare record becomes what a native save would send: `defaultType` decides (create, update with its
    /// recordChangeTag, or forceUpdate under a policy).
    public init(json: JSON, path: String, policy: SavePolicy?) throws(CKError) {
        guard case .object(let o) = json else {
            throw CKError.invalid("\(path): expected a JSON object (a record or {\"operationType\", \"record\"}), found \(json.kindName)")
        }
        var opType: RecordOperationType? = nil
        var recordJSON = json
        if let t = o["operationType"] {
            guard let s = t.stringValue, let ot = RecordOperationType(rawValue: s) else {
                throw CKError.invalid("\(path).operationType: expected one of \(RecordOperationType.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            opType = ot
            guard let r = o["record"], case .object = r else { throw CKError.invalid("\(path).record: expected a record object") }
            recordJSON = r
            for k in o.keys where !["operationType", "record", "desiredKeys"].contains(k) {
                throw CKError.invalid("\(path).\(k): unknown key '\(k)' in an operation")
            }
        }
        let rpath = opType == nil ? path : path + ".record"
        guard case .object(let r) = recordJSON else { throw CKError.invalid("\(rpath): expected an object") }
        let known: Set<String> = ["recordName", "recordType", "recordChangeTag", "fields", "zoneID", "created", "modified", "deleted", "createShortGUID", "parent"]
        for k in r.keys where !known.contains(k) && !RecordOperation.shareRequestKeys.contains(k) && !RecordOperation.shareEchoKeys.contains(k) {
            throw CKError.invalid("\(rpath).\(k): unknown key '\(k)' in a record", hint: "records have recordName, recordType, recordChangeTag, fields and parent")
        }
        func str(_ k: String) throws(CKError) -> String? {
            guard let v = r[k], !v.isNull else { return nil }
            guard let s = v.stringValue else { throw CKError.invalid("\(rpath).\(k): expected a string") }
            return s
        }
        var fields: [String: FieldInput] = [:]
        if let f = r["fields"], !f.isNull {
            guard case .object(let fo) = f else { throw CKError.invalid("\(rpath).fields: expected an object of field dictionaries") }
            for (k, v) in fo {
                guard case .object = v else {
                    throw CKError.invalid("\(rpath).fields.\(k): expected a field dictionary {\"value\": …, \"type\": …}, found \(v.kindName)")
                }
                fields[k] = v["value"].map { $0.isNull } ?? true ? .unset : .json(v)
            }
        }
        let tag = try str("recordChangeTag")
        let name = try str("recordName")
        let type = try str("recordType")
        if let ot = opType {
            self.init(type: ot, recordName: name, recordType: type, changeTag: tag, fields: fields)
        } else {
            self = RecordOperation.save(recordType: type ?? "", recordName: name, fields: fields, ifTag: tag, policy: policy)
            if type == nil { self.recordType = nil }
        }
        if let p = r["parent"] {
            if p.isNull { parent = .remove } else {
                let (pname, pzone) = try Record.parent(json: p, path: rpath + ".parent")
                parent = .set(pname, zone: pzone)
            }
        }
        try readShareKeys(r, recordType: type, path: rpath)
        if self.type.isDelete || self.type == .update || self.type == .replace {
            if name == nil { throw CKError.invalid("\(rpath): \(self.type.rawValue) needs a recordName") }
        }
        if self.type == .create && type == nil {
            throw CKError.invalid("\(rpath).recordType: missing: a new record needs its recordType")
        }
    }

    /// The zone a batch item names in its record's zoneID, if any.
    public static func zoneName(in json: JSON) -> String? {
        (json["record"] ?? json)["zoneID"]?["zoneName"]?.stringValue
    }
}
