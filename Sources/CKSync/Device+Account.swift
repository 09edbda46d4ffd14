import CKFiles
import CKModel
import CKServer

/// Account changes on a device, as CKSyncEngine handles them: a device signed in as another user, and the
/// clearing of the previous account's data.
extension Device {
    /// Signs a device of `db`'s user in as `target`'s user (the iPhone's owner switched iCloud accounts): its file
    /// moves to the new user's devices, and its next sync reports switchAccounts and removes the previous account's
    /// data. Refused while the new user has a device of that name.
    public static func switchAccount(_ name: String, of db: CKDatabase, to target: CKDatabase) throws(CKError) -> Device {
        guard target.userRecordName != db.userRecordName else {
            throw CKError.invalid("device '\(name)' is already signed in as \(db.user)", hint: "name another user with --to")
        }
        let device = try open(name, database: db, create: false)
        if try exists(name, for: target) {
            throw CKError.invalid("user '\(target.user)' already has a device '\(name)': a device is signed in to one account",
                                  hint: "delete that device first ('ck --as \(target.user) device delete \(name)'), or switch another device")
        }
        if let user = target.caller.userName { _ = try target.container.resolveUser(user) }
        let from = device.path
        do {
            // Not while the device syncs: the sync would write into a file that moved.
            let lock = try FileLock(path: from + ".lock", exclusive: true)
            defer { lock.unlock() }
            // Marked first, then moved: a crash between leaves the file with its owner, and the switch can run again.
            try device.transaction { () throws(CKError) in try device.setMeta("switchingTo", target.userRecordName) }
            let dir = directory(for: target)
            try FileIO.makeDirectory(dir)
            try FileIO.rename(from, dir + "/" + name + ".sqlite")
            FileIO.syncDirectory(dir)
            FileIO.syncDirectory(directory(for: db))
        }
        if FileIO.exists(from + ".lock") { try FileIO.unlink(from + ".lock") }
        return try open(name, database: target, create: false)
    }

    /// Refuses a device whose file a switch moved away while it was open (a sync that waited for the lock).
    package func checkNotMoved() throws(CKError) {
        guard FileIO.exists(path) else {
            throw CKError(.unknownItem, "device '\(name)' of user '\(database.user)' was switched to another account while this command waited",
                          hint: "'ck device list' shows the user's devices")
        }
    }

    /// The user record name the device belonged to before a switch not yet synced, or nil.
    package func switchedFrom() throws(CKError) -> String? {
        guard let u = try meta("userRecordName"), u != database.userRecordName else { return nil }
        return u
    }

    /// Removes what the device holds of the account: pending edits, server copies, tokens. Returns how many
    /// pending edits and records went. Call inside a transaction.
    package func clearAccountData() throws(CKError) -> (pending: Int, records: Int) {
        let counts = try rows("SELECT (SELECT count(*) FROM pending), (SELECT count(*) FROM server_records)") { s in (Int(s.int(0)), Int(s.int(1))) }
            .first ?? (0, 0)
        try run("DELETE FROM pending")
        try run("DELETE FROM server_records")
        try run("DELETE FROM zones")
        try forgetConflicts()
        try setMeta("databaseToken", nil)
        return counts
    }

    /// After a switch: the file now belongs to the signed-in user; its key-value store is replaced by the new
    /// account's at the next key-value sync (NSUbiquitousKeyValueStoreAccountChange). Call inside a transaction.
    package func adoptCurrentUser() throws(CKError) {
        try setMeta("user", database.user)
        try setMeta("userRecordName", database.userRecordName)
        try setMeta("switchingTo", nil)
        // Signed out of the previous account as far as the key-value store knows: its next sync replaces the values.
        try setMeta("kvAccount", AccountStatus.noAccount.rawValue)
    }
}
