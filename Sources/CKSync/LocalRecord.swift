import CKModel

/// A record as a device sees it: the server copy it last fetched with its own pending edits on top.
public struct LocalRecord: Sendable {
    /// What the device still has to send for this record.
    public enum Pending: Sendable, Equatable {
        /// In step with the last fetched server copy.
        case none
        /// Edited on the device; `keys` were set or removed since the last fetch.
        case save(keys: [String])
        /// Deleted on the device; the server still has it.
        case delete
    }

    public var zoneName: String
    public var recordName: String
    public var recordType: String
    /// The fields as the device shows them (server copy plus pending edits).
    public var fields: [String: FieldValue]
    /// The change tag of the server copy this record is based on; nil for a record the server has not seen.
    public var changeTag: String?
    public var pending: Pending
    /// The server copy (the ancestor of a merge); nil for a record created on the device.
    public var serverRecord: Record?
}

/// What `Device.info()` tells about a device.
public struct DeviceInfo: Sendable {
    public var name: String
    public var path: String
    public var containerID: String
    public var environment: Environment
    public var user: String
    public var userRecordName: String
    /// When the device was created and last synced (ms since 1970; nil = never synced).
    public var created: Int64
    public var lastSync: Int64?
    public var databaseToken: String?
    /// Zone change tokens by zone name (nil = the zone is known but not fetched yet).
    public var zoneTokens: [String: String?]
    public var serverRecordCount: Int
    public var pendingSaves: Int
    public var pendingDeletes: Int
}
