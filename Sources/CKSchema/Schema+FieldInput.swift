import CKModel

extension Schema {
    /// Types a client's field dictionary by the schema (declared type), else by its explicit or inferred type.
    /// An untyped value for a field the schema encrypts is encrypted.
    package func value(fieldJSON j: JSON, recordType: String, key: String, path: String) throws(CKError) -> FieldValue? {
        let declared = declaredType(recordType, key)
        guard var v = try FieldValue.from(fieldJSON: j, declared: declared, path: path).map({ Schema.coerceEmptyList($0, declared) }) else {
            return nil
        }
        if j["type"] == nil, j["isEncrypted"] == nil, recordTypes[recordType]?.fields[key]?.encrypted == true {
            v = try v.encrypting(path: path)
        }
        return v
    }

    /// An empty list takes the declared list type (JSON `[]` says nothing about its items).
    package static func coerceEmptyList(_ v: FieldValue, _ declared: FieldType?) -> FieldValue {
        if case .list(_, let items) = v, items.isEmpty, let d = declared, d.isList { return .list(d.base, []) }
        return v
    }
}
