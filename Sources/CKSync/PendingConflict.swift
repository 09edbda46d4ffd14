import CKModel

/// A save the server refused and the app has not resolved yet (`--on-conflict manual`, or a conflict program that
/// failed): the device's edit stays pending and is not sent again until `ck device resolve`.
public struct PendingConflict: Sendable {
    public var zoneName: String
    public var recordName: String
    public var recordType: String
    /// The server record's change tag; nil when the server deleted the record.
    public var serverChangeTag: String?
    /// The record the device's edit was made on (Web Services JSON); nil for a record the device created.
    public var ancestor: JSON?
    /// The device's version: the ancestor with the edit on top; nil when the device deleted the record.
    public var client: JSON?
    /// The server's record when the save failed (CKRecordChangedErrorServerRecordKey); nil when it was deleted.
    public var server: JSON?
    /// Why it was left to the app: a conflict program's failure, or nil for `manual`.
    public var error: String?
    /// When the conflict was stored (ms since 1970, the store's clock).
    public var created: Int64
}

/// What `ck device resolve --take` keeps of a conflict.
public enum ConflictTake: Sendable, Equatable {
    /// The server's record: the device's edit is dropped.
    case server
    /// The device's version, sent again under the server's change tag.
    case client
    /// These fields from the device's version, the rest from the server's record.
    case fields([String])
}
