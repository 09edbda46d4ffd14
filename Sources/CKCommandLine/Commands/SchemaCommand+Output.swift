import CKCore

/// What `ck schema` prints.
extension SchemaCommand {
    /// `schema import`, `diff` and `deploy`: `{"changes": [change]}`, plus `"from"`, `"to"` and `"conflicts"` for a
    /// diff and `"dryRun"` for a deploy; jsonl: one change a line. People and scripts read one summary a change.
    struct Changes: CommandOutput {
        var changes: [SchemaChange]
        /// What people read when nothing changed.
        var none: String
        /// A diff's environments and the changes deploy would refuse.
        var compared: (from: Environment, to: Environment, conflicts: [SchemaChange])? = nil
        /// A deploy's `--dry-run`, when this is a deploy that did (or would do) something.
        var deployed: Bool? = nil
        /// The changes were listed on stderr before the user confirmed them: the table does not list them again.
        var listed = false

        var json: JSON {
            var o: [String: JSON] = ["changes": .array(changes.map(\.json))]
            if let c = compared {
                o["from"] = .string(c.from.rawValue)
                o["to"] = .string(c.to.rawValue)
                o["conflicts"] = .array(c.conflicts.map(\.json))
            }
            if let dryRun = deployed { o["dryRun"] = .bool(dryRun) }
            return .object(o)
        }
        var jsonLines: [JSON] { changes.map(\.json) }
        var plain: [String] { changes.map(\.summary) }
        var table: String { listed ? "" : Self.text(changes.isEmpty ? [none] : plain) }
        var notes: [String] {
            if let c = compared, !c.conflicts.isEmpty {
                return ["\(c.conflicts.count) change\(c.conflicts.count == 1 ? "" : "s") marked - or ! would be refused by deploy"]
            }
            guard let dryRun = deployed else { return [] }
            return [dryRun ? "dry run: nothing deployed" : "deployed \(changes.count) change\(changes.count == 1 ? "" : "s") to production"]
        }
    }

    /// `schema show <type>`: `{"recordType", "fields": [{"name", "type", "queryable", "sortable", "searchable"}],
    /// "grants": [{"role", "permissions"}]}`.
    struct TypeShown: CommandOutput {
        var name: String
        /// The fields, system fields included, in byte order.
        var fields: [(name: String, schema: FieldSchema)]
        var grants: [Grant]

        var json: JSON {
            .object([
                "recordType": .string(name),
                "fields": .array(fields.map { n, f in
                    .object(["name": .string(n), "type": .string(f.schemaTypeName), "queryable": .bool(f.queryable),
                             "sortable": .bool(f.sortable), "searchable": .bool(f.searchable)])
                }),
                "grants": .array(grants.map { .object(["role": .string($0.role), "permissions": .array($0.permissions.map { .string($0.rawValue) })]) }),
            ])
        }
        var plain: [String] { fields.map { [$0.name, $0.schema.schemaTypeName, indexList($0.schema)].joined(separator: "\t") } }
        var table: String {
            var table = Table(["FIELD", "TYPE", "INDEXES"])
            for f in fields { table.add([f.name, f.schema.schemaTypeName, indexList(f.schema)]) }
            return table.aligned() + Self.text(grants.map { "GRANT \($0.permissions.map(\.rawValue).joined(separator: ", ")) TO \($0.role)" })
        }
    }

    /// `schema show`: `{"environment", "roles", "recordTypes": [{"name", "fields"}]}`, `fields` counting user fields.
    struct Types: CommandOutput {
        var environment: Environment
        var roles: [String]
        /// The record types in byte order.
        var types: [(name: String, schema: RecordTypeSchema)]

        var json: JSON {
            .object(["environment": .string(environment.rawValue), "roles": .array(roles.map { .string($0) }),
                     "recordTypes": .array(types.map { n, t in
                         .object(["name": .string(n), "fields": .int(Int64(t.fields.filter { RecordTypeSchema.systemFields[$0.key] == nil }.count))])
                     })])
        }
        var plain: [String] { types.map(\.name) }
        var table: String {
            if types.isEmpty { return "No record types in the \(environment.rawValue) schema.\n" }
            var table = Table(["RECORD TYPE", "FIELDS", "INDEXED SYSTEM FIELDS"])
            for (n, t) in types {
                let user = t.fields.keys.filter { RecordTypeSchema.systemFields[$0] == nil }.count
                let sys = t.fields.keys.filter { RecordTypeSchema.systemFields[$0] != nil }.sorted()
                table.add([n, String(user), sys.isEmpty ? "-" : sys.joined(separator: ",")])
            }
            return table.aligned() + (roles.isEmpty ? "" : "Roles: " + roles.joined(separator: ", ") + "\n")
        }
    }

    /// `schema validate`: `{"isValid": true, "changes"}`, on one line in json too (as cktool's validate-schema).
    struct Valid: CommandOutput {
        var changes: Int

        var json: JSON { .object(["isValid": .bool(true), "changes": .int(Int64(changes))]) }
        var compactJSON: Bool { true }
        var plain: [String] { ["✅ Schema is valid."] }
    }

    /// `schema reset`: `{"reset": true, "deletedRecords"}`.
    struct Reset: OutcomeOutput {
        var deletedRecords: Int

        var json: JSON { .object(["reset": .bool(true), "deletedRecords": .int(Int64(deletedRecords))]) }
        var line: String { String(deletedRecords) }
        var sentence: String { "Reset development to the production schema; deleted \(deletedRecords) record\(deletedRecords == 1 ? "" : "s")." }
    }
}
