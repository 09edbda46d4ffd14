import CKModel

/// CKSyncEngine's account change types, from the account status a device saw at its last sync.
extension SyncEngine {
    /// switchAccounts when the device was signed in as another user; signOut when the account went noAccount;
    /// signIn at the first sync with an account, or when one came back from noAccount; nil otherwise (a change
    /// to restricted or temporarilyUnavailable is no sign-in or sign-out: the device keeps its data and waits).
    package static func accountChangeType(from previous: AccountStatus?, to status: AccountStatus, switched: Bool) -> SyncEvent.AccountChangeType? {
        if switched { return .switchAccounts }
        if status == .noAccount { return previous == nil ? nil : .signOut }
        if status == .available && (previous == nil || previous == .noAccount) { return .signIn }
        return nil
    }
}
