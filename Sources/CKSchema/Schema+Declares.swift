import CKModel

extension Schema {
    /// Whether every value is of a field `recordType` declares with the value's type and encryption: admitting
    /// them (`admit`) would neither change the schema nor refuse them. A bulk load's records after the first
    /// are so, and skip the admission's sorting and copying.
    public func declaresAll(_ recordType: String, _ values: [String: FieldValue]) -> Bool {
        guard let fields = recordTypes[recordType]?.fields else { return false }
        for (key, value) in values {
            guard let declared = fields[key], declared.encrypted == value.isEncrypted, declared.accepts(value.type) else { return false }
        }
        return true
    }
}
