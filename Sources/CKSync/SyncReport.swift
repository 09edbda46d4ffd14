import CKModel

/// What one `SyncEngine.sync` did: pushed, merged, pulled, refetched, and what stayed pending and why.
public struct SyncReport: Sendable {
    /// A key both sides changed differently, and which side's value was kept.
    public struct KeyConflict: Sendable, Equatable {
        public var key: String
        public var winner: ConflictPolicy
    }

    /// A record the server had changed since the device fetched it: merged three ways and saved again.
    public struct Merge: Sendable {
        public var zoneName: String
        public var recordName: String
        /// Device keys taken because the server had not changed them.
        public var mergedKeys: [String]
        /// Keys both sides changed differently.
        public var conflicts: [KeyConflict]
        /// For a pending delete of a record the server changed: whether the delete was sent again.
        public var deleteKept: Bool?
    }

    /// An edit the device gave up: the server deleted the record (or its zone) while the device had edits.
    public struct Dropped: Sendable {
        public var zoneName: String
        public var recordName: String
        public var reason: String
    }

    /// An edit still pending after this sync, with the error that kept it.
    public struct Kept: Sendable {
        public var zoneName: String
        public var recordName: String?
        public var error: CKError
    }

    /// What the pull applied in one zone.
    public struct ZonePull: Sendable {
        public var zoneName: String
        public var saved: Int
        public var deleted: Int
        /// True when the zone was deleted on the server and wiped on the device.
        public var zoneDeleted: Bool
        /// Why the zone was deleted, when it was.
        public var deletionReason: SyncEvent.ZoneDeletionReason? = nil
        /// The records saved on the device, by name, in feed order (what fetchedRecordZoneChanges hands an app).
        public var modifiedRecordNames: [String] = []
        /// The records deleted on the device, with their types.
        public var deletedRecordIDs: [SyncEvent.DeletedRecord] = []
    }

    /// A record by zone and name.
    public struct RecordRef: Sendable, Equatable {
        public var zoneName: String
        public var recordName: String
    }

    /// The user's account status changed since the device last synced (CKSyncEngine's accountChange event).
    public struct AccountChange: Sendable, Equatable {
        public var from: AccountStatus
        public var to: AccountStatus
        /// signIn, signOut or switchAccounts; nil for a change that is none of them (e.g. to restricted).
        public var type: SyncEvent.AccountChangeType? = nil
        /// Pending edits and server copies the change removed from the device.
        public var clearedPendingChanges = 0
        public var removedRecords = 0
    }

    /// A server error the sync met, whatever it did about it.
    public struct ErrorMet: Sendable {
        public var operation: String
        public var zoneName: String?
        public var error: CKError
    }

    /// A call tried again after a retryable error, and how long the engine waited first.
    public struct Retry: Sendable {
        public var operation: String
        public var zoneName: String?
        public var code: CKError.Code
        public var wait: Double
    }

    public var device: String
    public var accountChange: AccountChange?
    /// Every server error met, in order.
    public var errors: [ErrorMet] = []
    public var retries: [Retry] = []
    /// Seconds waited in all before retries.
    public var waited: Double = 0
    /// Zones missing from the server (never made, or gone in an encrypted-data reset), created again and uploaded
    /// from the device.
    public var recreated: [String] = []
    /// Zones the user purged: wiped on the device with their pending edits, which are not sent again.
    public var purged: [String] = []
    /// The quota was exceeded: later saves stayed pending, deletions were still sent.
    public var quotaExceeded = false
    /// The error that ended the sync early; what it had not sent stays pending.
    public var stopped: CKError?
    public var pushedSaves: [RecordRef] = []
    public var pushedDeletes: [RecordRef] = []
    public var merges: [Merge] = []
    public var dropped: [Dropped] = []
    public var kept: [Kept] = []
    /// Failed saves left to the app (`--on-conflict manual`, or a conflict program that failed): still pending.
    public var conflicts: [Conflict] = []
    public var pulled: [ZonePull] = []
    /// Zones (or "database") whose change token had expired: the local copy was tossed and fetched again.
    public var refetched: [String] = []
    public var syncedAt: Int64 = 0

    public init(device: String) { self.device = device }

    public var pulledSaves: Int { pulled.reduce(0) { $0 + $1.saved } }
    public var pulledDeletes: Int { pulled.reduce(0) { $0 + $1.deleted } }
    public var conflictCount: Int { merges.reduce(0) { $0 + $1.conflicts.count } }
}
