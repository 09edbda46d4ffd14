import CKModel

/// One CKSyncEngine event, as `ck sync --events` prints it: the engine's names and payloads, in the order it
/// posts them to its delegate's `handleEvent`.
public enum SyncEvent: Sendable {
    /// Why a zone left the database (CKSyncEngine.Event.FetchedDatabaseChanges.Deletion.Reason).
    public enum ZoneDeletionReason: String, Sendable {
        /// Deleted by an app (possibly on another device): the device forgets the zone.
        case deleted
        /// Deleted by the user from iCloud settings: local data is wiped and not uploaded again.
        case purged
        /// Gone with the user's reset of encrypted data: the device uploads what it holds again.
        case encryptedDataReset
    }

    /// CKSyncEngine.Event.AccountChange.ChangeType.
    public enum AccountChangeType: String, Sendable {
        case signIn, signOut, switchAccounts
    }

    /// An account change and what the device removed for it.
    public struct AccountChange: Sendable {
        public var type: AccountChangeType
        /// The user record name signed out of (signOut, switchAccounts).
        public var previousUser: String?
        /// The user record name signed in (signIn, switchAccounts).
        public var currentUser: String?
        /// Pending edits cleared, as CKSyncEngine clears its pending changes.
        public var clearedPendingChanges: Int
        /// Server copies of the previous account's records removed from the device.
        public var removedRecords: Int
    }

    /// A record deleted on the server, with its type (recordWithIDWasDeletedBlock's pair).
    public struct DeletedRecord: Sendable, Equatable {
        public var zoneName: String
        public var recordName: String
        public var recordType: String
    }

    /// A save the server refused, with the server's record when it sent one (serverRecordChanged).
    public struct FailedSave: Sendable {
        public var zoneName: String
        public var recordName: String
        public var recordType: String
        public var error: CKError
    }

    /// A delete the server refused.
    public struct FailedDelete: Sendable {
        public var zoneName: String
        public var recordName: String
        public var error: CKError
    }

    /// The device's state serialization: its tokens and how many changes wait to be sent.
    public struct State: Sendable {
        public var databaseToken: String?
        /// Zone name and token, sorted by zone.
        public var zoneTokens: [(zoneName: String, token: String?)]
        public var pendingRecordZoneChanges: Int
    }

    case stateUpdate(State)
    case accountChange(AccountChange)
    case willFetchChanges
    case fetchedDatabaseChanges(modifications: [String], deletions: [(zoneName: String, reason: ZoneDeletionReason)])
    case willFetchRecordZoneChanges(zoneName: String)
    case fetchedRecordZoneChanges(modifications: [Record], deletions: [DeletedRecord])
    case didFetchRecordZoneChanges(zoneName: String, error: CKError?)
    case didFetchChanges
    case willSendChanges(zoneNames: [String])
    case sentDatabaseChanges(savedZones: [String], failedZoneSaves: [(zoneName: String, error: CKError)])
    case sentRecordZoneChanges(savedRecords: [Record], failedRecordSaves: [FailedSave],
                               deletedRecordIDs: [(zoneName: String, recordName: String)], failedRecordDeletes: [FailedDelete])
    case didSendChanges

    /// CKSyncEngine's name for the event.
    public var name: String {
        switch self {
        case .stateUpdate: "stateUpdate"
        case .accountChange: "accountChange"
        case .willFetchChanges: "willFetchChanges"
        case .fetchedDatabaseChanges: "fetchedDatabaseChanges"
        case .willFetchRecordZoneChanges: "willFetchRecordZoneChanges"
        case .fetchedRecordZoneChanges: "fetchedRecordZoneChanges"
        case .didFetchRecordZoneChanges: "didFetchRecordZoneChanges"
        case .didFetchChanges: "didFetchChanges"
        case .willSendChanges: "willSendChanges"
        case .sentDatabaseChanges: "sentDatabaseChanges"
        case .sentRecordZoneChanges: "sentRecordZoneChanges"
        case .didSendChanges: "didSendChanges"
        }
    }
}
