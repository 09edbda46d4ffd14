import CKModel

extension Schema {
    /// The declared type of a field of a record type, or nil.
    public func declaredType(_ recordType: String, _ field: String) -> FieldType? {
        recordTypes[recordType]?.fields[field]?.type
    }

    /// The field a just-in-time save creates: indexed as development indexes it (strings also searchable,
    /// locations QUERYABLE SORTABLE as real exports show them). Assets and encrypted fields get no index:
    /// the server can't index what it can't read.
    package static func justInTimeField(_ type: FieldType, encrypted: Bool = false) -> FieldSchema {
        if encrypted || type.base == .asset { return FieldSchema(type: type, encrypted: encrypted) }
        if type.isList { return FieldSchema(type: type, queryable: true) }
        switch type.base {
        case .string: return FieldSchema(type: type, queryable: true, sortable: true, searchable: true)
        case .int64, .double, .timestamp, .bytes, .location: return FieldSchema(type: type, queryable: true, sortable: true)
        case .reference: return FieldSchema(type: type, queryable: true)
        case .asset: return FieldSchema(type: type)
        }
    }

    /// Checks a record's values against the schema. Development creates missing types and fields
    /// (just-in-time schema); production refuses them. Returns true when the schema changed.
    package mutating func admit(recordType: String, values: [String: FieldValue], environment: Environment) throws(CKError) -> Bool {
        var changed = false
        if recordTypes[recordType] == nil && recordType == Schema.defaultUsersType.name {
            // Every schema has the Users type; a user adding fields to its user record makes it explicit.
            recordTypes[recordType] = Schema.defaultUsersType
            changed = true
        }
        if recordTypes[recordType] == nil {
            guard environment == .development else {
                throw CKError(.invalidArguments, "Cannot create new type \(recordType) in production schema",
                              hint: "add the type in development and deploy the schema to production")
            }
            recordTypes[recordType] = RecordTypeSchema(name: recordType, grants: RecordTypeSchema.defaultGrants)
            changed = true
        }
        for key in values.keys.sorted() {
            guard let value = values[key] else { continue }
            if let declared = recordTypes[recordType]?.fields[key] {
                if declared.encrypted != value.isEncrypted {
                    throw Schema.encryptionMismatch(key: key, recordType: recordType, declared: declared)
                }
                guard declared.accepts(value.type) || Schema.isCiphertext(value, for: declared) else {
                    let name = declared.isNumber ? declared.schemaTypeName : declared.type.wsName
                    throw CKError(.invalidArguments,
                                  "invalid attempt to set value type \(value.type.wsName) for field '\(key)' for type '\(recordType)', defined to be: \(name)",
                                  hint: "give the field a \(declared.type.cliName) value (\(key):\(declared.type.cliName)=…)")
                }
                continue
            }
            guard environment == .development else {
                throw CKError(.invalidArguments, "Cannot create new field '\(key)' in type \(recordType) in production schema",
                              hint: "add the field in development and deploy the schema to production")
            }
            recordTypes[recordType]?.fields[key] = Schema.justInTimeField(value.type, encrypted: value.isEncrypted)
            changed = true
        }
        return changed
    }
}
