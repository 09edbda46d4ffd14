/// What the pipeline resolved for an operation, handed to its apply stage.
struct PipelineState {
    var context: OperationContext
    /// The zone catalog as read under the lock.
    var catalog: ZoneCatalog
    /// The operation's zone, resolved; nil for whole-database operations.
    var zone: Zone?
    /// The permission stage's view of the caller, for checks that need a record (`_creator`).
    let access: Access
}

extension CKDatabase {
    /// The one entry of every server operation. Stages run in this order: validate → resolve database and zone →
    /// injected faults → permissions → quota → apply → effects. The environment's lock is taken before the zone
    /// is resolved and held to the end, so what the stages checked is what the operation applies.
    func perform<T>(_ kind: OperationKind, zone zoneName: String? = nil, administrator: Bool = false,
                    validate: () throws(CKError) -> Void = {},
                    _ apply: (inout PipelineState) throws(CKError) -> T) throws(CKError) -> T {
        try validate()
        let status = try container.accountStatus(of: caller)
        let roles = try caller.userName.flatMap { (n) throws(CKError) -> [String]? in try container.user(named: n)?.roles[environment] } ?? []
        let access = Access(caller: caller, database: scope, signedIn: status.isSignedIn, roles: roles, administrator: administrator)
        let result = try env.locked(exclusive: kind.writes) { () throws(CKError) -> T in
            let catalog = try env.readCatalog()
            let zone = try zoneName.map { (name) throws(CKError) -> Zone in try resolveZone(name, catalog: catalog) }
            let context = OperationContext(kind: kind, caller: caller, environment: environment, database: scope,
                                           zone: zone?.zoneID, accountStatus: status)
            for fault in store.hooks.faults { try fault(context) }
            if !administrator { try authorize(context) }
            for quota in store.hooks.quota { try quota(context) }
            var state = PipelineState(context: context, catalog: catalog, zone: zone, access: access)
            return try apply(&state)
        }
        if kind.writes { registerAfterWrite() }
        return result
    }

    /// The account part of the permission stage: the private and shared databases, and a user's own feeds,
    /// need a signed-in user with a usable account; the public database can be read by anyone, written by
    /// signed-in users only. Grants are checked per record type by `Access`.
    func authorize(_ context: OperationContext) throws(CKError) {
        guard scope != .public || context.kind.writes || context.kind.isPersonal else { return }
        let what = "\(context.kind.phrase) in the \(scope.rawValue) database"
        if let refusal = context.accountStatus.refusal(for: caller, what) { throw refusal }
    }
}
