
/// Encrypted values (CKRecord.encryptedValues): the server keeps them but can't read them.
extension FieldValue {
    /// The base types CloudKit can encrypt; references and assets must stay readable by the server.
    public static let encryptableBases: [FieldType.Base] = [.bytes, .string, .double, .int64, .location, .timestamp]

    /// True for a value kept in encryptedValues.
    public var isEncrypted: Bool { if case .encrypted = self { return true }; return false }

    /// The value without its encryption.
    public var plain: FieldValue { if case .encrypted(let v) = self { return v }; return self }

    /// This value as an encrypted one; references and assets are refused with the field and the rule.
    public func encrypting(path: String) throws(CKError) -> FieldValue {
        let p = plain
        guard FieldValue.encryptableBases.contains(p.type.base) else {
            let why = p.type.base == .reference ? "CloudKit needs references on the server (for DELETE_SELF, VALIDATE and sharing)"
                                                : "CloudKit encrypts asset bytes itself"
            throw CKError.invalid("\(path): a \(p.type.wsName) field can't be encrypted: \(why)",
                                  hint: "encrypt only STRING, INT64, DOUBLE, TIMESTAMP, BYTES or LOCATION values (or lists of them)")
        }
        return .encrypted(p)
    }

    /// The Web Services type of encrypted bytes, as Apple's own apps send it.
    package static func encryptedBytesWSName(list: Bool) -> String { list ? "ENCRYPTED_BYTES_LIST" : "ENCRYPTED_BYTES" }

    /// Whether `name` is ENCRYPTED_BYTES (false) or ENCRYPTED_BYTES_LIST (true); nil for other names.
    package static func encryptedBytesList(wsName name: String) -> Bool? {
        switch name {
        case encryptedBytesWSName(list: false): return false
        case encryptedBytesWSName(list: true): return true
        default: return nil
        }
    }

    /// The type as output labels it: `STRING`, or `ENCRYPTED STRING` for an encrypted value.
    public var typeLabel: String { isEncrypted ? "ENCRYPTED " + type.wsName : type.wsName }
}
