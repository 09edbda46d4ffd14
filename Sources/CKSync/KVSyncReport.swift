import CKModel

/// What one key-value sync of a device did.
public struct KVSyncReport: Sendable {
    /// A write the server refused over a quota: it stays on the device, pending.
    public struct Refusal: Sendable, Equatable {
        public var key: String
        public var reason: String
    }

    public var device: String
    /// Keys whose value (or removal) the server took from the device.
    public var pushed: [String] = []
    /// Keys whose value on the device changed from the server's.
    public var pulled: [String] = []
    /// Device writes the server already had a newer write of (or, before the first download, any value of).
    public var overridden: [String] = []
    public var refused: [Refusal] = []
    /// The notifications recorded on the device by this sync.
    public var events: [KVEvent] = []
    /// Set when the sync did nothing because the user may not sync (the account status, e.g. noAccount).
    public var skipped: String?
    public var syncedAt: Int64 = 0

    public init(device: String) { self.device = device }

    /// Whether the sync moved or reported anything.
    public var isEmpty: Bool { pushed.isEmpty && pulled.isEmpty && overridden.isEmpty && refused.isEmpty && events.isEmpty && skipped == nil }
}
