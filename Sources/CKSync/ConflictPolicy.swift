/// How a sync resolves a key both the device and the server changed differently.
public enum ConflictPolicy: String, Sendable, CaseIterable {
    /// The device's value wins (CKSyncEngine's usual client-wins resolution).
    case local
    /// The server's value wins; the device's edit of that key is dropped.
    case server
}
