import CKCore

/// `ck device`: the emulated devices `ck sync` keeps, and offline edits on them.
enum DeviceCommand {
    static let deviceArgument = SyncCommand.deviceArgument

    static let spec = CommandSpec(
        "device", summary: "List, show, edit offline and delete emulated sync devices.",
        discussion: "A device is a client replica of the acting user's private database (--as, -c, -e), kept in its own SQLite file under the store's devices/ directory; 'ck sync <device>' creates it, unless its name differs from one of the user's devices only in case or by one letter (a typo: 'ck device create NAME' makes such a device on purpose). Its records are the server copies it last fetched with its own pending edits on top. 'ck device save' and 'ck device remove' edit a device offline; the next 'ck sync' pushes the edits. Devices are client state: 'ck export' leaves them out.",
        examples: [("ck device save tablet Note --name n2 -z Notes title=Offline", "Edit on tablet without touching the server."),
                   ("ck device records tablet -z Notes", "What tablet shows, pending edits marked."),
                   ("ck sync tablet", "Push the edit, pull the rest.")],
        subcommands: [
            CommandSpec("list", summary: "List the acting user's devices.", run: list),
            CommandSpec("create", summary: "Create a device (even one whose name is close to another device's).",
                        arguments: [ArgumentSpec("device", help: "Device name.")], run: create),
            CommandSpec("show", summary: "Show a device: user, tokens, pending edits, last sync.",
                        arguments: [deviceArgument], run: show),
            DeviceRecordsCommand.records, DeviceRecordsCommand.save, DeviceRecordsCommand.remove,
            DeviceConflictsCommand.spec, DeviceResolveCommand.spec,
            CommandSpec("delete", summary: "Delete a device's replica file (its unsynced edits are lost).",
                        arguments: [deviceArgument],
                        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")],
                        run: delete),
            CommandSpec("switch-account", summary: "Sign a device in to another user's iCloud account.",
                        discussion: "The device's owner signs out of the acting user's account and in to --to's, as on an iPhone: the device becomes the other user's, and its next 'ck sync' reports accountChange switchAccounts, clears its pending edits and removes the previous account's records, as CKSyncEngine does (the key-value store is replaced by the new account's). Refused when the other user has a device of that name.",
                        arguments: [deviceArgument],
                        options: [OptionSpec("to", value: "user", help: "The user the device signs in as (required).", completion: .user)],
                        examples: [("ck --as alice device switch-account phone --to bob", "alice's phone is signed in as bob from now on.")],
                        run: switchAccount),
        ])

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        let db = try inv.database()
        var devices: [Show] = []
        for n in Device.names(for: db) { devices.append(Show(info: try Device.open(n, database: db, create: false).info())) }
        try inv.emit(List(devices: devices, user: db.user, width: inv.terminal.width))
        return ExitCode.success
    }

    static func create(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("device name")
        let (device, created) = try Device.create(name, database: try inv.database())
        if !created { inv.note("device '\(name)' already exists; it is left as it is") }
        try inv.emit(Show(info: try device.info()))
        return ExitCode.success
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("device name")
        try inv.emit(Show(info: try Device.open(name, database: try inv.database(), create: false).info()))
        return ExitCode.success
    }

    static func switchAccount(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("device name")
        let db = try inv.database()
        guard let to = inv.parsed.value("to") else {
            throw UsageError("switch-account needs --to USER: the user the device signs in as", command: inv.command.path)
        }
        let target = try inv.container().database(db.scope, environment: db.environment, caller: try Caller.user(to))
        let device = try Device.switchAccount(name, of: db, to: target)
        try inv.emit(Switched(info: try device.info(), from: db.user))
        return ExitCode.success
    }

    static func delete(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("device name")
        let db = try inv.database()
        let info = try Device.open(name, database: db, create: false).info()
        let pending = info.pendingSaves + info.pendingDeletes
        let question = "Delete device \(name)" + (pending > 0 ? " and its \(SyncCommand.plural(pending, "unsynced edit"))?" : "?")
        if !inv.parsed.flag("yes") && !inv.confirm(question) {
            inv.note("nothing deleted")
            return ExitCode.failure
        }
        try Device.remove(name, database: db)
        try inv.emit(Deleted(device: name, pending: pending))
        return ExitCode.success
    }
}
