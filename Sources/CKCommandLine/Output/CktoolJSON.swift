import CKCore

/// cktool's JSON: the Web Services shapes, with field types spelled as cktool's --fields-json spells them
/// (`stringType`, `int64ListType`), so a printed record's fields can be fed back to create-record.
enum CktoolJSON {
    /// A Web Services record dictionary in cktool's spelling.
    static func record(_ ws: JSON) -> JSON {
        guard case .object(var o) = ws, case .object(var fields)? = o["fields"] else { return ws }
        for (key, field) in fields {
            guard case .object(var f) = field, let name = f["type"]?.stringValue, let type = FieldType(name: name) else { continue }
            f["type"] = .string(type.cktoolName)
            fields[key] = .object(f)
        }
        o["fields"] = .object(fields)
        return .object(o)
    }

    /// query-records' answer: the records, and `continuationToken` at the top level when more follow.
    static func records(_ records: [JSON], continuationToken: String?) -> JSON {
        var o: [String: JSON] = ["records": .array(records.map(record))]
        if let continuationToken { o["continuationToken"] = .string(continuationToken) }
        return .object(o)
    }
}
