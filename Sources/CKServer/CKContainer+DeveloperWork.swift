import CKModel
import CKSchema

/// A container's developer work, each through the store's door as the declared developer (see `CKStore.perform`).
/// The bodies (`…Body`) hold the semantics; these entries only name the operation and its target.
extension CKContainer {
    /// Compacts an environment's zone logs and removes unreferenced assets (`collectGarbageBody`).
    @discardableResult
    public func collectGarbage(_ environment: Environment, dryRun: Bool = false,
                               progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> GarbageReport {
        try store.perform(.garbageCollect, container: identifier, environment: environment) { () throws(CKError) in
            try collectGarbageBody(environment, dryRun: dryRun, progress: progress)
        }
    }

    /// Adds a fault rule to an environment (`addFaultBody`).
    @discardableResult
    public func addFault(_ rule: FaultRule, environment: Environment) throws(CKError) -> FaultRule {
        try store.perform(.faultAdd, container: identifier, environment: environment) { () throws(CKError) in
            try addFaultBody(rule, environment: environment)
        }
    }

    /// An environment's fault rules.
    public func faults(environment: Environment) throws(CKError) -> [FaultRule] {
        try store.perform(.faultList, container: identifier, environment: environment) { () throws(CKError) in
            try faultsBody(environment: environment)
        }
    }

    /// Removes one fault rule, or all (`clearFaultsBody`).
    @discardableResult
    public func clearFaults(_ id: String?, environment: Environment) throws(CKError) -> [String] {
        try store.perform(.faultClear, container: identifier, environment: environment) { () throws(CKError) in
            try clearFaultsBody(id, environment: environment)
        }
    }

    /// Sets or removes a user's quota, or the public database's (`setQuotaBody`).
    public func setQuota(_ bytes: Int64?, user: String?) throws(CKError) {
        try store.perform(.quotaSet, container: identifier) { () throws(CKError) in try setQuotaBody(bytes, user: user) }
    }

    /// The schema changes between two environments (`schemaDiffBody`).
    public func schemaDiff(from source: Environment = .development, to target: Environment = .production) throws(CKError) -> SchemaDiff {
        try store.perform(.schemaRead, container: identifier) { () throws(CKError) in try schemaDiffBody(from: source, to: target) }
    }

    /// Checks a schema as import would, without writing (`validateImportBody`).
    public func validateImport(_ schema: Schema, file: String, environment: Environment = .development) throws(CKError) -> [SchemaChange] {
        try store.perform(.schemaRead, container: identifier, environment: environment) { () throws(CKError) in
            try validateImportBody(schema, file: file, environment: environment)
        }
    }

    /// Makes `schema` the development schema, as `cktool import-schema` does (`importSchemaBody`).
    @discardableResult
    public func importSchema(_ schema: Schema, file: String, environment: Environment = .development) throws(CKError) -> [SchemaChange] {
        try store.perform(.schemaImport, container: identifier, environment: environment) { () throws(CKError) in
            try importSchemaBody(schema, file: file, environment: environment)
        }
    }

    /// Makes a model's schema development's and creates its zone as `caller`, all or nothing (`importModelSchemaBody`).
    package func importModelSchema(_ schema: Schema, file: String, zone: String, as caller: Caller) throws(CKError) -> ([SchemaChange], created: Bool) {
        try store.perform(.schemaImport, container: identifier, environment: .development) { () throws(CKError) -> ([SchemaChange], created: Bool) in
            let result = try importModelSchemaBody(schema, file: file, zone: zone, as: caller)
            try finishRegistration(environmentStore(.development))
            return result
        }
    }

    /// Copies development's schema to production (`deploySchemaBody`).
    @discardableResult
    public func deploySchema(dryRun: Bool = false) throws(CKError) -> [SchemaChange] {
        try store.perform(dryRun ? .schemaRead : .schemaDeploy, container: identifier, environment: .production) { () throws(CKError) in
            try deploySchemaBody(dryRun: dryRun)
        }
    }

    /// Resets development to production's schema and no data (`resetDevelopmentBody`).
    @discardableResult
    public func resetDevelopment() throws(CKError) -> Int {
        try store.perform(.schemaReset, container: identifier, environment: .development) { () throws(CKError) in try resetDevelopmentBody() }
    }

    /// Adds or removes a field's indexes (`setIndexesBody`).
    @discardableResult
    public func setIndexes(recordType: String, field: String, queryable: Bool, sortable: Bool, searchable: Bool,
                           remove: Bool, environment: Environment = .development) throws(CKError) -> SchemaChange? {
        try store.perform(.schemaIndexes, container: identifier, environment: environment) { () throws(CKError) in
            try setIndexesBody(recordType: recordType, field: field, queryable: queryable, sortable: sortable, searchable: searchable,
                               remove: remove, environment: environment)
        }
    }

    /// The users the container has met, by name.
    public func users() throws(CKError) -> [ContainerUser] {
        try store.perform(.userList, container: identifier) { () throws(CKError) -> [ContainerUser] in
            // Users an operation committed but a crash kept from being listed are listed first.
            for e in Environment.allCases { try finishRegistration(environmentStore(e)) }
            return try usersBody()
        }
    }

    /// Lists a user explicitly, even one whose name is a near miss of a listed user's (`createUserBody`); true when
    /// this call listed it.
    @discardableResult
    public func createUser(_ name: String) throws(CKError) -> Bool {
        try store.perform(.userCreate, container: identifier) { () throws(CKError) in try createUserBody(name) }
    }

    /// The user named `name` if the container lists it, nil for a name it never met; throws for a name it never met
    /// that is a near miss of a listed one (see `Names.isNearMiss`).
    public func resolveUser(_ name: String) throws(CKError) -> ContainerUser? {
        try Names.validateUserName(name)
        let info = try info()
        if let u = user(named: name, in: info) { return u }
        try refuseNearMiss(user: name, in: info)
        return nil
    }

    /// Sets a user's iCloud account status (`setAccountStatusBody`).
    public func setAccountStatus(_ status: AccountStatus, of user: String) throws(CKError) {
        try store.perform(.accountStatusSet, container: identifier) { () throws(CKError) in try setAccountStatusBody(status, of: user) }
    }

    /// Gives a user a custom role, or takes it away (`setRoleBody`); true when something changed.
    @discardableResult
    public func setRole(_ role: String, of user: String, held: Bool, environment: Environment) throws(CKError) -> Bool {
        try store.perform(.roleSet, container: identifier, environment: environment) { () throws(CKError) in
            try setRoleBody(role, of: user, held: held, environment: environment)
        }
    }
}
