import CKModel
import CKStorage

/// What the pipeline resolved for an operation, handed to its apply stage.
package struct PipelineState {
    package var context: OperationContext
    /// container.json as the operation read it, once: the caller's account, roles and quotas.
    package let info: JSON
    /// The zone catalog as read under the lock.
    package var catalog: ZoneCatalog
    /// The operation's zone, resolved; nil for whole-database operations.
    package var zone: Zone?
    /// The permission stage for records: every record the body reads or writes, and every record type it checks,
    /// passes it (grants need the record for `_creator`; a written record's fault point is the same call).
    package let gate: RecordGate
    /// The fault stage's rule engine: a modify request checks its rules per request with it (per record: `gate.write`).
    package let faults: FaultEngine
    /// The quota stage's budget for saves; nil when no quota is set.
    package var quota: QuotaBudget?
    /// An injected networkFailure that lets the operation apply and then loses its response.
    package var lostResponse: CKError?
    /// The changes the apply stage made, in order: the effects stage hands them to the one writer.
    package var changes: [StoreChange] = []
    /// Set by a body that writes through its own writer (a record modify) when it wrote nothing: the caller is then
    /// not listed in container.json, as for a read.
    package var wroteNothing = false
    /// In the shared database: every share of the environment, as read under the lock.
    package var shares: ShareDirectory?
}

extension CKDatabase {
    /// The one entry of every server operation. Stages run in this order: validate → resolve database and zone →
    /// injected faults → permissions → quota → apply → effects. The environment's lock is taken before the zone
    /// is resolved and held to the end, so what the stages checked is what the operation applies. The apply
    /// stage returns its changes in `state.changes`; the effects stage hands them to the environment's one writer
    /// (`progress` is told the lines of a replaced environment as they are written).
    package func perform<T>(_ kind: OperationKind, zone zoneName: String? = nil, administrator: Bool = false,
                    validate: () throws(CKError) -> Void = {}, progress: (Int) -> Void = { _ in },
                    _ apply: (inout PipelineState) throws(CKError) -> T) throws(CKError) -> T {
        try validate()
        try container.finishRegistration(env)
        // One read of container.json per operation: the caller's account status, roles and quota (a user never
        // met is available).
        let info = try container.info()
        let known = caller.userName.flatMap { container.user(named: $0, in: info) }
        // A name the container never met that is a near miss of one it lists is a typo, not a new user.
        if let name = caller.userName, known == nil { try container.refuseNearMiss(user: name, in: info) }
        let status = caller.isAnonymous ? AccountStatus.noAccount : known?.accountStatus ?? .available
        let roles = known?.roles[environment] ?? []
        var wroteNothing = false
        let result = try env.locked(exclusive: kind.writes) { () throws(CKError) -> T in
            let catalog = try env.readCatalog()
            // The shared database is computed from the owners' zones: its zones are those of accepted shares.
            let directory = scope == .shared ? try ShareDirectory(env: env, catalog: catalog) : nil
            let zone = try zoneName.map { (name) throws(CKError) -> Zone in
                if let directory { return try resolveSharedZone(name, directory: directory) }
                return try resolveZone(name, catalog: catalog)
            }
            let context = OperationContext(kind: kind, caller: caller, container: container.identifier, environment: environment,
                                           database: scope, zone: zone?.zoneID, accountStatus: status)
            let faults = FaultEngine(env, deferred: kind.writes, now: container.store.now)
            let shares = try zone.flatMap { (z) throws(CKError) -> ShareView? in
                guard let directory else { return nil }
                return try shareView(z, directory: directory)
            }
            let gate = RecordGate.operation(context, database: scope, roles: roles, administrator: administrator,
                                           listed: known != nil, faults: faults, shares: shares)
            var state = PipelineState(context: context, info: info, catalog: catalog, zone: zone, gate: gate, faults: faults)
            state.shares = directory
            // A record modify checks its rules per request, once it knows whether it saves or deletes.
            if kind != .recordModify { state.lostResponse = try injectFaults(faults, faultPoint(context, ops: FaultRule.ops(of: kind))) }
            try store.admit(context) { (c) throws(CKError) in
                if !administrator { try authorize(c) }
                if kind == .recordModify && !administrator { state.quota = try quotaBudget(catalog: catalog, info: info, zone: zone) }
            }
            let result: T
            do throws(CKError) {
                result = try apply(&state)
                wroteNothing = state.wroteNothing && state.changes.isEmpty
                try env.apply(state.changes, progress: progress)
            } catch {
                // The operation failed (a fired rule, a refusal): the counts its fault stage moved are its outcome.
                try? faults.writeHeld()
                throw error
            }
            // Counts not taken by a request of records go after the changes: a crash never spends one on an
            // operation that did not happen.
            try faults.writeHeld()
            if let lost = state.lostResponse { throw lost }
            return result
        }
        // A user the container already lists needs no second look at container.json; a delete that deleted nothing
        // leaves no trace of its caller.
        if kind.writes && known == nil && !wroteNothing { registerAfterWrite() }
        return result
    }

    /// The fault stage for one point of an operation: a firing rule's error is thrown, nothing written; an
    /// after-commit rule's error is returned, to be thrown once the operation is applied.
    package func injectFaults(_ engine: FaultEngine, _ point: FaultPoint) throws(CKError) -> CKError? {
        try engine.inject(point)
    }

    /// Where an operation stands, as fault rules see it.
    package func faultPoint(_ context: OperationContext, ops: Set<FaultRule.Op>) -> FaultPoint {
        FaultPoint(ops: ops, zone: context.zone?.zoneName, database: scope, user: caller.userName, record: nil)
    }

    /// The account part of the permission stage: the private and shared databases, and a user's own feeds,
    /// need a signed-in user with a usable account; the public database can be read by anyone, written by
    /// signed-in users only. Grants are checked per record by `RecordGate`.
    package func authorize(_ context: OperationContext) throws(CKError) {
        guard scope != .public || context.kind.writes || context.kind.isPersonal else { return }
        let what = "\(context.kind.phrase) in the \(scope.rawValue) database"
        if let refusal = context.accountStatus.refusal(for: caller, what) { throw refusal }
    }
}
