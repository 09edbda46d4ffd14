import CKModel

extension Schema {
    /// ENCRYPTED_BYTES is how Apple's apps send any encrypted field (the server sees only ciphertext), so an
    /// encrypted field of any type takes encrypted bytes, kept and answered as they came.
    package static func isCiphertext(_ value: FieldValue, for declared: FieldSchema) -> Bool {
        declared.encrypted && value.isEncrypted && value.type == FieldType(.bytes, list: declared.type.isList)
    }

    /// The refusal of a plain value for an encrypted field, or of an encrypted value for a plain one.
    package static func encryptionMismatch(key: String, recordType: String, declared: FieldSchema) -> CKError {
        let cli = declared.type.cliName
        if declared.encrypted {
            return CKError(.invalidArguments,
                           "field '\(key)' of type '\(recordType)' is \(declared.schemaTypeName): its value must be encrypted (encryptedValues)",
                           hint: "give \(key):\(FieldType.encryptedCLIPrefix)\(cli)=…, or \"isEncrypted\": true beside the type in JSON")
        }
        return CKError(.invalidArguments,
                       "field '\(key)' of type '\(recordType)' is \(declared.schemaTypeName), not encrypted: an encrypted value can't be stored in it",
                       hint: "give a plain value (\(key):\(cli)=…), or use another field for encrypted data")
    }
}
