import CKCore

/// `ck kv`: the iCloud key-value store (NSUbiquitousKeyValueStore) of the acting user, on the server or on a device.
enum KVCommand {
    static let deviceOption = OptionSpec("device", value: "device", help: "Work on this device's local copy (a later sync pushes it) instead of the server.",
                                         completion: .device)
    static let keyArgument = ArgumentSpec("key", help: "Key: 1 to \(KVLimits.maxKeyBytes) bytes of UTF-8.", completion: .kvKey)

    static let spec = CommandSpec(
        "kv", summary: "The iCloud key-value store: set, get, list, sync, and the change events devices receive.",
        discussion: "Each user (--as) has one key-value store per container and environment, as NSUbiquitousKeyValueStore keeps an app's settings: at most \(KVLimits.maxKeys) keys, \(KVLimits.maxTotalBytes) bytes for all keys and values, \(KVLimits.maxValueBytes) bytes for one value, keys of at most \(KVLimits.maxKeyBytes) bytes. Without --device a command works on the server directly and a write over a quota is refused (exit 6). With --device it works on that device's local copy: writes wait for 'ck kv sync <device>' (or 'ck sync <device>'), where the newest write per key wins and a write over a quota stays on the device and is reported as a quotaViolationChange event. See 'ck help kv'.",
        examples: [("ck kv set theme dark", "Set a string on the server."),
                   ("ck kv set --device phone volume 7", "Set an integer on phone only."),
                   ("ck kv sync phone", "Push phone's writes and pull the others'."),
                   ("ck kv events tablet -o json", "The notifications tablet received, with Apple's userInfo keys.")],
        subcommands: [KVSetCommand.spec, KVReadCommands.get, KVReadCommands.list, KVSetCommand.remove, KVReadCommands.show,
                      KVSyncCommand.spec, KVSyncCommand.events])

    /// The device named by --device, if any; `create` makes it on first use (as 'ck device save' does).
    static func device(_ inv: Invocation, create: Bool) throws -> Device? {
        guard let name = inv.parsed.value("device") else { return nil }
        return try Device.open(name, database: try inv.database(), create: create)
    }

    /// The store of the acting user on the server.
    static func server(_ inv: Invocation) throws -> KeyValueStore { KeyValueStore(database: try inv.database()) }

    /// The one key a command takes.
    static func key(_ inv: Invocation) throws -> String { try inv.single("key") }
}
