import CKModel
import CKSchema

extension QueryCompiler {
    /// The refusal of a filter or sort on an encrypted field: the server can't read its values.
    package static func encryptedField(_ key: String, schema: FieldSchema, column: Int, compiler: QueryCompiler) -> CKError {
        compiler.fail(column == 0 ? nil : column,
                      "Field '\(key)' is encrypted (\(schema.schemaTypeName)): CloudKit can't query, sort or search encrypted fields",
                      hint: "filter on a plain field, or fetch the records and compare '\(key)' on the device")
    }
}
