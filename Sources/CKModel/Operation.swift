
/// The kinds of server operation; every one enters the server through the one door: `CKDatabase.perform` for a
/// database's operations, `CKStore.perform` for developer and administrator work. Both run the same stages.
public enum OperationKind: String, CaseIterable, Sendable {
    case recordModify, recordFetch, recordList, query, queryPlan
    case zoneCreate, zoneDelete, zonePurge, zoneList, zoneSummary
    case subscriptionSave, subscriptionDelete, subscriptionList
    case zoneChanges, databaseChanges
    case notificationList, notificationRead
    case fixturesExport, fixturesImport
    case quotaUsage
    case keyValueRead, keyValueWrite
    case assetUpload, assetDownload
    case shareList, shareResolve, shareAccept
    // Developer and administrator work: run as the declared developer caller, to whom client rules don't apply.
    case storeInit, containerCreate, containerUse, containerDelete, containerList
    case schemaRead, schemaImport, schemaDeploy, schemaReset, schemaIndexes
    case userList, userCreate, accountStatusSet, roleSet, quotaSet
    case faultList, faultAdd, faultClear
    case garbageCollect, doctorCheck, doctorRepair
    case serveAuthRead, webTokenCreate, webTokenRevoke, serverKeyAdd, serverKeyRemove
    case clockRead, clockSet

    /// Whether the operation changes the store (it takes the exclusive lock, and needs a signed-in user).
    public var writes: Bool {
        switch self {
        case .recordModify, .shareAccept, .assetUpload, .zoneCreate, .zoneDelete, .zonePurge, .subscriptionSave, .subscriptionDelete, .notificationRead, .fixturesImport,
             .keyValueWrite, .storeInit, .containerCreate, .containerUse, .containerDelete, .schemaImport, .schemaDeploy, .schemaReset,
             .schemaIndexes, .userCreate, .accountStatusSet, .roleSet, .quotaSet, .faultAdd, .faultClear, .garbageCollect, .doctorRepair,
             .webTokenCreate, .webTokenRevoke, .serverKeyAdd, .serverKeyRemove, .clockSet:
            return true
        default: return false
        }
    }

    /// Developer and administrator work: only the declared developer caller may do it.
    public var isDeveloperWork: Bool {
        switch self {
        case .storeInit, .containerCreate, .containerUse, .containerDelete, .containerList, .schemaRead, .schemaImport, .schemaDeploy,
             .schemaReset, .schemaIndexes, .userList, .userCreate, .accountStatusSet, .roleSet, .quotaSet, .faultList, .faultAdd, .faultClear,
             .garbageCollect, .doctorCheck, .doctorRepair, .serveAuthRead, .webTokenCreate, .webTokenRevoke, .serverKeyAdd,
             .serverKeyRemove, .clockRead, .clockSet:
            return true
        default: return false
        }
    }

    /// Operations on a user's own data: they need a signed-in user in every database.
    package var isPersonal: Bool {
        switch self {
        case .zoneChanges, .databaseChanges, .notificationList, .notificationRead, .subscriptionSave, .subscriptionDelete,
             .subscriptionList, .keyValueRead, .keyValueWrite, .shareList, .shareResolve, .shareAccept:
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
        case .assetUpload: return "assets can't be uploaded"
        case .assetDownload: return "assets can't be downloaded"
        case .shareList: return "shares can't be listed"
        case .shareResolve: return "the share can't be looked up"
        case .shareAccept: return "the share can't be accepted"
        case .storeInit: return "no store can be made"
        case .containerCreate: return "containers can't be created"
        case .containerUse: return "the current container can't be changed"
        case .containerDelete: return "containers can't be deleted"
        case .containerList: return "containers can't be listed"
        case .schemaRead: return "the schema can't be read"
        case .schemaImport: return "the schema can't be imported"
        case .schemaDeploy: return "the schema can't be deployed"
        case .schemaReset: return "the development environment can't be reset"
        case .schemaIndexes: return "indexes can't be changed"
        case .userList: return "users can't be listed"
        case .userCreate: return "users can't be created"
        case .accountStatusSet: return "account states can't be changed"
        case .roleSet: return "roles can't be changed"
        case .quotaSet: return "quotas can't be changed"
        case .faultList: return "faults can't be listed"
        case .faultAdd: return "faults can't be added"
        case .faultClear: return "faults can't be cleared"
        case .garbageCollect: return "garbage can't be collected"
        case .doctorCheck: return "the store can't be checked"
        case .doctorRepair: return "the store can't be repaired"
        case .serveAuthRead: return "web auth tokens and server-to-server keys can't be read"
        case .webTokenCreate: return "web auth tokens can't be created"
        case .webTokenRevoke: return "web auth tokens can't be revoked"
        case .serverKeyAdd: return "server-to-server keys can't be added"
        case .serverKeyRemove: return "server-to-server keys can't be removed"
        case .clockRead: return "the store's clock can't be read"
        case .clockSet: return "the store's clock can't be set"
        }
    }
}

/// One server operation as the pipeline's stages see it.
public struct OperationContext: Sendable {
    public let kind: OperationKind
    public let caller: Caller
    /// The container it works on; nil for work on the store itself (making it, listing its containers).
    public let container: String?
    /// The environment it works in; nil for work on a whole container or store.
    public let environment: Environment?
    /// The database it works in; nil for developer work.
    public let database: DatabaseScope?
    /// The zone it works in, once resolved; nil for operations on a whole database.
    public package(set) var zone: ZoneID?
    /// The caller's account status, as the container has it.
    public package(set) var accountStatus: AccountStatus

    package init(kind: OperationKind, caller: Caller, container: String?, environment: Environment?, database: DatabaseScope?,
                 zone: ZoneID?, accountStatus: AccountStatus) {
        self.kind = kind
        self.caller = caller
        self.container = container
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
