import CKModel

/// Writes a schema in exactly the layout of cktool's export-schema (reference ckdb.md §1.5 and §7).
package enum CKDBPrinter {
    package static func render(_ schema: Schema) -> String {
        var out = "DEFINE SCHEMA\n\n"
        // Built-in roles exist implicitly; CREATE ROLE for them would not parse back.
        let roles = Set(schema.roles).filter { !$0.hasPrefix("_") }.sorted(by: CKDB.byteOrder)
        for role in roles { out += "    CREATE ROLE \(CKDB.quoted(role));\n" }
        if !roles.isEmpty { out += "\n" }
        let types = schema.typesWithUsers
        let blocks = types.keys.sorted(by: CKDB.byteOrder).compactMap { name in
            types[name].map { block(name: name, $0) }
        }
        out += blocks.joined(separator: "\n\n")
        out += "\n"
        return out
    }

    private static func block(name: String, _ type: RecordTypeSchema) -> String {
        var fields = type.fields
        // Exports list all six system fields, indexed or not, always with their fixed types.
        for (system, fieldType) in RecordTypeSchema.systemFields {
            var f = fields[system] ?? FieldSchema(type: fieldType)
            f.type = fieldType
            f.encrypted = false
            f.isNumber = false
            f.preferred = nil
            fields[system] = f
        }
        // CloudKit's Users type always carries its roles list.
        if name == "Users" && fields["roles"] == nil {
            fields["roles"] = FieldSchema(type: FieldType(.int64, list: true))
        }
        let names = fields.keys.sorted(by: CKDB.byteOrder)
        let width = (names.map { CKDB.quoted($0).count }.max() ?? 0) + 1
        var items: [String] = []
        for n in names {
            guard let f = fields[n] else { continue }
            let q = CKDB.quoted(n)
            var line = "        " + q + String(repeating: " ", count: max(1, width - q.count)) + f.schemaTypeName
            if f.queryable { line += " QUERYABLE" }
            if f.searchable { line += " SEARCHABLE" }
            if f.sortable { line += " SORTABLE" }
            items.append(line)
        }
        for g in CKDB.canonicalGrants(type.grants) {
            items.append("        GRANT " + g.permissions.map(\.rawValue).joined(separator: ", ") + " TO " + CKDB.quoted(g.role))
        }
        return "    RECORD TYPE \(CKDB.quoted(name)) (\n" + items.joined(separator: ",\n") + "\n    );"
    }
}
