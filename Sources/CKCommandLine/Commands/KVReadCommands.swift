import CKCore

/// `ck kv get`, `ck kv list` and `ck kv show`: what the server (or a device, with --device) holds.
enum KVReadCommands {
    static let get = CommandSpec(
        "get", summary: "Print a key's value (from the server, or a device with --device).",
        discussion: "Table and plain output print the value as text: arrays and dictionaries as the JSON 'ck kv set --json' takes. -o json prints {\"key\", \"type\", \"value\", \"size\", \"modified\", \"deviceID\"} with the value in its typed form.",
        arguments: [KVCommand.keyArgument], options: [KVCommand.deviceOption], run: runGet)

    static let list = CommandSpec(
        "list", summary: "List keys with their type and size (from the server, or a device with --device).",
        options: [OptionSpec("prefix", value: "prefix", help: "Only keys starting with this."), KVCommand.deviceOption],
        run: runList)

    static let show = CommandSpec(
        "show", summary: "Show the store's usage against its limits (keys, bytes, largest value).",
        options: [KVCommand.deviceOption], run: runShow)

    static func items(_ inv: Invocation, prefix: String?) throws -> [KVCommand.Entry] {
        if let d = try KVCommand.device(inv, create: false) {
            return try d.keyValueEntries(prefix: prefix).compactMap { e in
                e.value.map { KVCommand.Entry(key: e.key, value: $0, modified: e.modified, deviceID: e.deviceID, pending: e.pending) }
            }
        }
        return try KVCommand.server(inv).entries(prefix: prefix).compactMap { e in
            e.value.map { KVCommand.Entry(key: e.key, value: $0, modified: e.modified, deviceID: e.deviceID, pending: nil) }
        }
    }

    static func runGet(_ inv: Invocation) throws -> Int32 {
        let key = try KVCommand.key(inv)
        let item: KVCommand.Entry
        if let d = try KVCommand.device(inv, create: false) {
            let e = try d.keyValueEntry(key)
            guard let v = e.value else { throw CKError(.unknownItem, "no key '\(key)' on device '\(d.name)'") }
            item = KVCommand.Entry(key: key, value: v, modified: e.modified, deviceID: e.deviceID, pending: e.pending)
        } else {
            let e = try KVCommand.server(inv).entry(key)
            guard let v = e.value else { throw CKError(.unknownItem, "no key '\(key)'") }
            item = KVCommand.Entry(key: key, value: v, modified: e.modified, deviceID: e.deviceID, pending: nil)
        }
        try inv.emit(KVCommand.Got(entry: item))
        return ExitCode.success
    }

    static func runList(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments; use --prefix to filter", command: inv.command.path) }
        let list = try items(inv, prefix: inv.parsed.value("prefix"))
        try inv.emit(KVCommand.List(entries: list, onDevice: inv.parsed.value("device") != nil))
        return ExitCode.success
    }

    static func runShow(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("show takes no arguments", command: inv.command.path) }
        let db = try inv.database()
        if let d = try KVCommand.device(inv, create: false) {
            try inv.emit(KVCommand.Usage(usage: .device(d.name, try d.keyValueInfo()), user: db.user))
            return ExitCode.success
        }
        let store = KeyValueStore(database: db)
        try inv.emit(KVCommand.Usage(usage: .server(try store.usage(), path: store.path), user: db.user))
        return ExitCode.success
    }
}
