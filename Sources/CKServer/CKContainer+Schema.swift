import Foundation
import CKModel
import CKSchema
import CKStorage

/// What `ck schema diff` and `ck schema deploy` report.
public struct SchemaDiff: Sendable {
    /// Changes that would turn the target environment's schema into the source's.
    public var changes: [SchemaChange]
    /// The changes CloudKit refuses: removing or retyping what the target (production) has.
    public var conflicts: [SchemaChange]
}

extension CKContainer {
    package func environmentStore(_ e: Environment) -> EnvironmentStore {
        EnvironmentStore(containerDir: dir, environment: e, indexEnabled: store.indexEnabled)
    }

    /// The changes that would make `target`'s schema match `source`'s.
    package func schemaDiffBody(from source: Environment = .development, to target: Environment = .production) throws(CKError) -> SchemaDiff {
        try withBothEnvironments(developmentExclusive: false, productionExclusive: false) { (dev, prod, _) throws(CKError) -> SchemaDiff in
            let s = source == .development ? try dev.readSchema() : try prod.readSchema()
            let t = target == .development ? try dev.readSchema() : try prod.readSchema()
            let changes = t.changes(to: s)
            return SchemaDiff(changes: changes, conflicts: target == .production ? changes.filter(\.losesData) : [])
        }
    }

    /// Checks a schema as import would, without writing: index rules, and nothing production has removed or retyped.
    /// Returns the changes import would make to development.
    package func validateImportBody(_ schema: Schema, file: String, environment: Environment = .development) throws(CKError) -> [SchemaChange] {
        try requireDevelopmentForImport(environment)
        return try withBothEnvironments(developmentExclusive: false, productionExclusive: false) { (dev, prod, _) throws(CKError) -> [SchemaChange] in
            try check(schema, file: file, production: try prod.readSchema())
            return try dev.readSchema().changes(to: schema)
        }
    }

    /// Makes `schema` the development schema, as `cktool import-schema` does; refuses what would lose production data.
    @discardableResult
    package func importSchemaBody(_ schema: Schema, file: String, environment: Environment = .development) throws(CKError) -> [SchemaChange] {
        try requireDevelopmentForImport(environment)
        return try withBothEnvironments(developmentExclusive: true, productionExclusive: false) { (dev, prod, writes) throws(CKError) -> [SchemaChange] in
            try check(schema, file: file, production: try prod.readSchema())
            let changes = try dev.readSchema().changes(to: schema)
            if !changes.isEmpty { writes[.development, default: []].append(.schema(schema)) }
            return changes
        }
    }

    /// `ck model schema --import`: the model's schema becomes development's and `zoneName` is created in the
    /// caller's private database, as one operation of the caller's database (one intent: schema.json, zones.json
    /// and the caller's entry in container.json commit together). Returns the schema's changes and whether the
    /// zone was created.
    package func importModelSchemaBody(_ schema: Schema, file: String, zone zoneName: String, as caller: Caller) throws(CKError) -> ([SchemaChange], created: Bool) {
        let db = database(.private, environment: .development, caller: caller)
        return try db.perform(.zoneCreate, validate: { () throws(CKError) in try Names.validateZoneName(zoneName) }) { (state) throws(CKError) -> ([SchemaChange], created: Bool) in
            let dev = db.env, prod = environmentStore(.production)
            // Development's lock (held) before production's, as everywhere.
            let changes = try prod.locked(exclusive: false) { () throws(CKError) -> [SchemaChange] in
                try check(schema, file: file, production: try prod.readSchema())
                return try dev.readSchema().changes(to: schema)
            }
            var catalog = state.catalog
            let id = db.zoneID(zoneName)
            let created = catalog.zone(id, in: .private) == nil
            guard !changes.isEmpty || created else {
                state.wroteNothing = true
                return (changes, false)
            }
            var replacement = EnvironmentReplacement(operation: "model schema import", staging: [])
            if !changes.isEmpty {
                replacement.staging.append("schema.json")
                replacement.schema = schema
            }
            if created {
                let seq = try dev.highestSeq(catalog: catalog) + 1
                catalog.zones.append(Zone(zoneID: id, database: .private, capabilities: ZoneCapability.defaults, created: store.now(), seq: seq))
                catalog.lastSeq = seq
                replacement.staging.append("zones.json")
                replacement.catalog = catalog
                // A log left by a delete that was interrupted belongs to the deleted zone, not this new one.
                replacement.remove.append(dev.relative(dev.logPath(database: .private, zone: id)))
                if let name = caller.userName { try stageRegistration(of: [name], info: state.info, in: &replacement, env: dev) }
            }
            state.changes.append(.replaceEnvironment(replacement))
            return (changes, created)
        }
    }

    private func requireDevelopmentForImport(_ environment: Environment) throws(CKError) {
        if environment == .production {
            throw CKError(.permissionFailure, "endpoint not applicable in the environment 'production'",
                          serverErrorCode: "BAD_REQUEST",
                          hint: "import into development, then 'ck schema deploy' copies it to production")
        }
    }

    private func check(_ schema: Schema, file: String, production: Schema) throws(CKError) {
        try schema.validateIndexes(file: file)
        let conflicts = production.dataLossConflicts(to: schema)
        if !conflicts.isEmpty {
            throw CKError(.invalidArguments,
                          "\(file): the schema would remove or retype \(conflicts.count) thing\(conflicts.count == 1 ? "" : "s") production has; CloudKit makes no changes",
                          hint: "keep every record type and field that production has, with its type",
                          items: conflicts.map(\.conflictFailure))
        }
    }

    /// Copies development's record types, fields, indexes, grants and roles to production (never records).
    /// Refuses, listing each conflict, when that would remove or retype anything production has.
    @discardableResult
    package func deploySchemaBody(dryRun: Bool = false) throws(CKError) -> [SchemaChange] {
        try withBothEnvironments(developmentExclusive: false, productionExclusive: !dryRun) { (dev, prod, writes) throws(CKError) -> [SchemaChange] in
            let d = try dev.readSchema(), p = try prod.readSchema()
            let changes = p.changes(to: d)
            let conflicts = changes.filter(\.losesData)
            if !conflicts.isEmpty {
                throw CKError(.invalidArguments,
                              "deploy refused: development would remove or retype \(conflicts.count) thing\(conflicts.count == 1 ? "" : "s") production has",
                              hint: "production is additive only; restore them in development (or 'ck schema reset' to start from production)",
                              items: conflicts.map(\.conflictFailure))
            }
            // Roles are only ever added to production.
            let applied = changes.filter { if case .removeRole = $0 { return false }; return true }
            if !dryRun && !applied.isEmpty {
                var merged = d
                for r in p.roles where !merged.roles.contains(r) { merged.roles.append(r) }
                writes[.production, default: []].append(.schema(merged))
            }
            return applied
        }
    }

    /// Makes development a copy of production's schema and deletes all development data, as `cktool reset-schema`.
    /// Returns the number of records deleted.
    @discardableResult
    package func resetDevelopmentBody() throws(CKError) -> Int {
        try withBothEnvironments(developmentExclusive: true, productionExclusive: false) { (dev, prod, writes) throws(CKError) -> Int in
            let production = try prod.readSchema()
            var catalog = try dev.readCatalog()
            var deleted = 0
            for path in dev.allLogPaths() {
                // A broken log is deleted with the rest; it only cannot be counted.
                deleted += (try? dev.readLog(path)).map { CKDatabase.fold($0.entries).count } ?? 0
            }
            // Every zone goes through the effects stage, so the database change feed tells devices to toss them.
            // Sequence numbers keep growing across a reset, so change tags stay unique.
            let owner = CKDatabase(container: self, scope: .private, environment: .development, owner: "")
            try owner.recordDropped(catalog.zones, catalog: &catalog)
            catalog.lastSeq = try dev.highestSeq(catalog: catalog) + 1
            // All of development's data goes in one all-or-nothing swap.
            var replacement = EnvironmentReplacement(operation: "schema reset", staging: ["public", "private", "assets", "schema.json", "zones.json"])
            replacement.trees = ["public", "private", "assets"]
            replacement.schema = production
            replacement.catalog = catalog
            writes[.development, default: []].append(.replaceEnvironment(replacement))
            return deleted
        }
    }

    /// Sets or removes indexes of a field (system fields included) in development's schema.
    @discardableResult
    package func setIndexesBody(recordType: String, field: String, queryable: Bool, sortable: Bool, searchable: Bool,
                           remove: Bool, environment: Environment = .development) throws(CKError) -> SchemaChange? {
        if environment == .production {
            throw CKError(.permissionFailure, "indexes can't be edited in production",
                          hint: "edit them in development and run 'ck schema deploy'")
        }
        let dev = environmentStore(.development)
        return try writing(dev) { (writes) throws(CKError) -> SchemaChange? in
            var schema = try dev.readSchema()
            guard var t = schema.recordTypes[recordType] else {
                let close = Names.closest(to: recordType, among: Array(schema.recordTypes.keys)).map { "did you mean '\($0)'? Otherwise " } ?? ""
                throw CKError(.unknownItem, "Did not find record type: \(recordType)",
                              hint: close + "save a record of that type first, or import a schema that defines it")
            }
            let systemType = RecordTypeSchema.systemFields[field]
            guard let old = t.fields[field] ?? systemType.map({ FieldSchema(type: $0) }) else {
                throw CKError(.unknownItem, "Did not find field: '\(field)' in type: '\(recordType)'",
                              hint: Names.closest(to: field, among: Array(t.fields.keys) + Array(RecordTypeSchema.systemFields.keys))
                                  .map { "did you mean '\($0)'?" })
            }
            var new = old
            let all = !queryable && !sortable && !searchable
            if remove {
                if queryable || all { new.queryable = false }
                if sortable || all { new.sortable = false }
                if searchable || all { new.searchable = false }
            } else {
                if all { throw CKError.invalid("name an index: --queryable, --sortable or --searchable") }
                if queryable { new.queryable = true }
                if sortable { new.sortable = true }
                if searchable { new.searchable = true }
            }
            if new == old { return nil }
            if systemType != nil && !new.queryable && !new.sortable && !new.searchable {
                t.fields[field] = nil
            } else {
                t.fields[field] = new
            }
            schema.recordTypes[recordType] = t
            try schema.validateIndexes(file: "\(recordType).\(field)")
            writes.append(.schema(schema))
            return .changeIndexes(type: recordType, field: field, from: old, to: new)
        }
    }
}
