import CKModel
import CKSchema
import CKServer

/// `/_ck/schema` and `/_ck/schema/deploy`: what `ck schema show`, `ck schema export` and `ck schema deploy` show and do.
extension ControlPlane {
    /// `GET /_ck/schema` → `{container, environment, recordTypes: [{name, fields: [{name, type, queryable, sortable,
    /// searchable}], grants: [{role, permissions}]}], roles, ckdb}`: each type as `ck schema show TYPE -o json` has it
    /// (system fields included, fields in byte order), and `ckdb` exactly as `ck schema export` prints it.
    static func schema(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let (container, environment) = try target(request, body: [:], server: server)
        let schema = try container.schema(environment)
        let byBytes = { (a: String, b: String) in a.utf8.lexicographicallyPrecedes(b.utf8) }
        let types = schema.recordTypes.keys.sorted(by: byBytes).compactMap { name -> JSON? in
            guard let t = schema.recordTypes[name] else { return nil }
            var fields = t.fields
            for (sys, type) in RecordTypeSchema.systemFields where fields[sys] == nil { fields[sys] = FieldSchema(type: type) }
            let list = fields.keys.sorted(by: byBytes).compactMap { n -> JSON? in
                fields[n].map { f in
                    .object(["name": .string(n), "type": .string(f.schemaTypeName), "queryable": .bool(f.queryable),
                             "sortable": .bool(f.sortable), "searchable": .bool(f.searchable)])
                }
            }
            return .object(["name": .string(name), "fields": .array(list),
                            "grants": .array(t.normalizedGrants.map {
                                .object(["role": .string($0.role), "permissions": .array($0.permissions.map { .string($0.rawValue) })])
                            })])
        }
        var o = header(container, environment)
        o["recordTypes"] = .array(types)
        o["roles"] = .array(schema.roles.sorted().map { .string($0) })
        o["ckdb"] = .string(CKDB.print(schema))
        return .object(o)
    }

    /// `POST /_ck/schema/deploy` `{dryRun?}` → `{dryRun, changes: [change], lines: [summary]}`: development's schema
    /// copied to production as `ck schema deploy -y` does; with `dryRun: true` only what it would change, as
    /// `ck schema deploy --dry-run` lists it, and nothing changes.
    static func deploy(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["dryRun"])
        let dryRun = try flag("dryRun", body) ?? false
        // A deploy always goes from development to production: the environment the console shows is checked, not used.
        _ = try environment(request, body: body)
        let container = try server.store.container(try parameter("container", request, body: body))
        let changes = try container.deploySchema(dryRun: dryRun)
        return .object(["container": .string(container.identifier), "environment": .string(Environment.production.rawValue),
                        "dryRun": .bool(dryRun), "changes": .array(changes.map(\.json)), "lines": .array(changes.map { .string($0.summary) })])
    }
}
