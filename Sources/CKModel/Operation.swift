
/// The kinds of server operation; every one enters the server through `CKDatabase.perform` (the pipeline).
public enum OperationKind: String, CaseIterable, Sendable {
    case recordModify, recordFetch, recordList, query, queryPlan
    case zoneCreate, zoneDelete, zonePurge, zoneList, zoneSummary
    case subscriptionSave, subscriptionDelete, subscriptionList
    case zoneChanges, databaseChanges
    case notificationList, notificationRead
    case fixturesExport, fixturesImport
    case quotaUsage
    case keyValueRead, keyValueWrite

    /// Whether the operation changes the store (it takes the exclusive lock, and needs a signed-in user).
    public var writes: Bool {
        switch self {
        case .recordModify, .zoneCreate, .zoneDelete, .zonePurge, .subscriptionSave, .subscriptionDelete, .notificationRead, .fixturesImport,
             .keyValueWrite:
            return true
        default: return false
        }
    }

    /// Operations on a user's own data: they need a signed-in user in every database.
    package var isPersonal: Bool {
        switch self {
        case .zoneChanges, .databaseChanges, .notificationList, .notificationRead, .subscriptionSave, .subscriptionDelete,
             .subscriptionList, .keyValueRead, .keyValueWrite:
            return true
        default: return false
        }
    }

    /// How errors name the operation.
    package var phrase: String {
        switch self {
        case .recordModify: return "records can't be saved or deleted"
        case .recordFetch, .recordList: return "records can't be fetched"
        case .query, .queryPlan: return "records can't be queried"
        case .zoneCreate: return "zones can't be created"
        case .zoneDelete, .zonePurge: return "zones can't be deleted"
        case .zoneList, .zoneSummary: return "zones can't be listed"
        case .subscriptionSave: return "subscriptions can't be saved"
        case .subscriptionDelete: return "subscriptions can't be deleted"
        case .subscriptionList: return "subscriptions can't be listed"
        case .zoneChanges, .databaseChanges: return "changes can't be fetched"
        case .notificationList, .notificationRead: return "notifications can't be read"
        case .fixturesExport: return "nothing can be exported"
        case .fixturesImport: return "nothing can be imported"
        case .quotaUsage: return "storage can't be measured"
        case .keyValueRead: return "the key-value store can't be read"
        case .keyValueWrite: return "the key-value store can't be written"
        }
    }
}

/// One server operation as the pipeline's stages see it.
public struct OperationContext: Sendable {
    public let kind: OperationKind
    public let caller: Caller
    public let environment: Environment
    public let database: DatabaseScope
    /// The zone it works in, once resolved; nil for operations on a whole database.
    public package(set) var zone: ZoneID?
    /// The caller's account status, as the container has it.
    public package(set) var accountStatus: AccountStatus

    package init(kind: OperationKind, caller: Caller, environment: Environment, database: DatabaseScope, zone: ZoneID?,
                 accountStatus: AccountStatus) {
        self.kind = kind
        self.caller = caller
        self.environment = environment
        self.database = database
        self.zone = zone
        self.accountStatus = accountStatus
    }
}

/// The stages a later rule fills in: injected faults and quotas. Each sees every operation, in pipeline order.
public struct PipelineHooks: Sendable {
    /// Runs after the zone is resolved and before permissions; a thrown error fails the operation, nothing written.
    public var faults: [@Sendable (OperationContext) throws(CKError) -> Void] = []
    /// Runs after permissions and before the operation is applied.
    public var quota: [@Sendable (OperationContext) throws(CKError) -> Void] = []

    public init() {}
}
