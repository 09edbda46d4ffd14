import CKCore

/// `ck device`: the emulated devices `ck sync` keeps, and offline edits on them.
enum DeviceCommand {
    static let deviceArgument = SyncCommand.deviceArgument

    static let spec = CommandSpec(
        "device", summary: "List, show, edit offline and delete emulated sync devices.",
        discussion: "A device is a client replica of the acting user's private database (--as, -c, -e), kept in its own SQLite file under the store's devices/ directory; 'ck sync <device>' creates it. Its records are the server copies it last fetched with its own pending edits on top. 'ck device save' and 'ck device remove' edit a device offline; the next 'ck sync' pushes the edits. Devices are client state: 'ck export' leaves them out.",
        examples: [("ck device save tablet Note --name n2 -z Notes title=Offline", "Edit on tablet without touching the server."),
                   ("ck device records tablet -z Notes", "What tablet shows, pending edits marked."),
                   ("ck sync tablet", "Push the edit, pull the rest.")],
        subcommands: [
            CommandSpec("list", summary: "List the acting user's devices.", run: list),
            CommandSpec("show", summary: "Show a device: user, tokens, pending edits, last sync.",
                        arguments: [deviceArgument], run: show),
            DeviceRecordsCommand.records, DeviceRecordsCommand.save, DeviceRecordsCommand.remove,
            CommandSpec("delete", summary: "Delete a device's replica file (its unsynced edits are lost).",
                        arguments: [deviceArgument],
                        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")],
                        run: delete),
        ])

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        let db = try inv.database()
        var infos: [DeviceInfo] = []
        for n in Device.names(for: db) { infos.append(try Device.open(n, database: db, create: false).info()) }
        switch try inv.outputFormat() {
        case .json: inv.line(JSON.object(["devices": .array(infos.map(infoJSON))]).pretty())
        case .jsonl: for i in infos { inv.line(infoJSON(i).serialized()) }
        case .name: for i in infos { inv.line(i.name) }
        case .plain:
            for i in infos { inv.line([i.name, String(i.serverRecordCount), String(i.pendingSaves + i.pendingDeletes), i.lastSync.map { ISO8601.format(milliseconds: $0) } ?? "-"].joined(separator: "\t")) }
        case .table:
            if infos.isEmpty {
                try inv.noteEmpty("no devices for user \(db.user); 'ck sync <device>' creates one")
                return ExitCode.success
            }
            var t = Table(["DEVICE", "RECORDS", "PENDING", "LAST SYNC"])
            for i in infos {
                t.add([i.name, String(i.serverRecordCount), String(i.pendingSaves + i.pendingDeletes),
                       i.lastSync.map { ISO8601.format(milliseconds: $0) } ?? "never"])
            }
            inv.out(t.aligned(width: inv.terminal.width))
        }
        return ExitCode.success
    }

    static func infoJSON(_ i: DeviceInfo) -> JSON {
        var tokens: [String: JSON] = [:]
        for (z, t) in i.zoneTokens { tokens[z] = t.map { .string($0) } ?? .null }
        return .object([
            "device": .string(i.name), "path": .string(i.path), "container": .string(i.containerID),
            "environment": .string(i.environment.rawValue), "user": .string(i.user), "userRecordName": .string(i.userRecordName),
            "created": .int(i.created), "lastSync": i.lastSync.map { .int($0) } ?? .null,
            "databaseToken": i.databaseToken.map { .string($0) } ?? .null, "zoneTokens": .object(tokens),
            "records": .int(Int64(i.serverRecordCount)), "pendingSaves": .int(Int64(i.pendingSaves)),
            "pendingDeletes": .int(Int64(i.pendingDeletes)),
        ])
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("device name")
        let i = try Device.open(name, database: try inv.database(), create: false).info()
        switch try inv.outputFormat() {
        case .json: inv.line(infoJSON(i).pretty())
        case .jsonl: inv.line(infoJSON(i).serialized())
        case .name: inv.line(i.name)
        case .plain, .table:
            var rows: [(String, String)] = [
                ("device", i.name), ("user", "\(i.user) (\(i.userRecordName))"), ("container", i.containerID),
                ("environment", i.environment.rawValue), ("file", i.path),
                ("created", ISO8601.format(milliseconds: i.created)),
                ("last sync", i.lastSync.map { ISO8601.format(milliseconds: $0) } ?? "never"),
                ("records", String(i.serverRecordCount)), ("pending saves", String(i.pendingSaves)),
                ("pending deletes", String(i.pendingDeletes)), ("database token", i.databaseToken ?? "-"),
            ]
            for z in i.zoneTokens.keys.sorted() { rows.append(("zone \(z)", (i.zoneTokens[z] ?? nil) ?? "-")) }
            try inv.printRows(rows)
        }
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
        try inv.report(.object(["device": .string(name), "deleted": .bool(true), "pendingLost": .int(Int64(pending))]), name: name,
                       plain: name + "\tdeleted\t" + String(pending),
                       table: "Deleted device \(name)" + (pending > 0 ? " (\(SyncCommand.plural(pending, "unsynced edit")) lost)" : ""))
        return ExitCode.success
    }
}
