
/// Why the key-value store changed externally: NSUbiquitousKeyValueStoreChangeReasonKey's values.
public enum KVChangeReason: String, CaseIterable, Sendable {
    /// Another device's change arrived from the server.
    case serverChange
    /// The device's first download of the store.
    case initialSyncChange
    /// The server refused a write over a quota; the device keeps the value.
    case quotaViolationChange
    /// The iCloud account changed (signed in again); the local store was replaced by the account's.
    case accountChange

    /// The integer NSUbiquitousKeyValueStore puts in the notification (its enum order in Apple's header).
    public var code: Int {
        switch self {
        case .serverChange: return 0
        case .initialSyncChange: return 1
        case .quotaViolationChange: return 2
        case .accountChange: return 3
        }
    }

    /// Apple's constant name, e.g. `NSUbiquitousKeyValueStoreServerChange`.
    public var constantName: String {
        switch self {
        case .serverChange: return "NSUbiquitousKeyValueStoreServerChange"
        case .initialSyncChange: return "NSUbiquitousKeyValueStoreInitialSyncChange"
        case .quotaViolationChange: return "NSUbiquitousKeyValueStoreQuotaViolationChange"
        case .accountChange: return "NSUbiquitousKeyValueStoreAccountChange"
        }
    }
}

/// One `didChangeExternallyNotification` a device received: its reason and the keys it names.
public struct KVEvent: Equatable, Sendable {
    /// The notification's name.
    public static let notificationName = "NSUbiquitousKeyValueStoreDidChangeExternallyNotification"
    /// The userInfo key of the reason.
    public static let reasonKey = "NSUbiquitousKeyValueStoreChangeReasonKey"
    /// The userInfo key of the changed keys.
    public static let changedKeysKey = "NSUbiquitousKeyValueStoreChangedKeysKey"

    /// Increasing per device; `ck kv events --since` takes it.
    public var id: Int64
    /// When it was recorded, ms since 1970.
    public var at: Int64
    public var reason: KVChangeReason
    public var keys: [String]

    package init(id: Int64, at: Int64, reason: KVChangeReason, keys: [String]) {
        self.id = id
        self.at = at
        self.reason = reason
        self.keys = keys
    }

    /// The notification's userInfo, with Apple's key names.
    public var userInfo: JSON {
        .object([KVEvent.reasonKey: .int(Int64(reason.code)), KVEvent.changedKeysKey: .array(keys.map { .string($0) })])
    }
}
