import CKModel

extension CKStore {
    /// The door of developer and administrator work (containers, schema, users and roles, quotas, faults, gc,
    /// doctor): the same stages as a database's operations, in the same order — validate, faults, permissions,
    /// quota — then `apply`, which takes the locks its files need. Only the declared developer may do such work.
    package func perform<T>(_ kind: OperationKind, container: String?, environment: Environment? = nil, as caller: Caller = .developer,
                            validate: () throws(CKError) -> Void = {},
                            _ apply: () throws(CKError) -> T) throws(CKError) -> T {
        try validate()
        let context = OperationContext(kind: kind, caller: caller, container: container, environment: environment, database: nil,
                                       zone: nil, accountStatus: .available)
        try admit(context) { (c) throws(CKError) in
            guard c.kind.isDeveloperWork, !c.caller.isDeveloper else { return }
            throw CKError(.permissionFailure, "\(c.kind.phrase) by \(c.caller.description): this is the developer's work",
                          hint: "do it from the command line or the control plane, as the developer")
        }
        return try apply()
    }

    /// The stages every operation passes before it applies, whichever door it came in by: the injected-fault
    /// hooks, the permission check the door supplies, then the quota hooks.
    package func admit(_ context: OperationContext, authorize: (OperationContext) throws(CKError) -> Void) throws(CKError) {
        for fault in hooks.faults { try fault(context) }
        try authorize(context)
        for quota in hooks.quota { try quota(context) }
    }
}
