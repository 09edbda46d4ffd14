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

    /// Key, value, when, who, and (on a device) whether it is pending.
    struct Item {
        var key: String
        var value: KVValue
        var modified: Int64
        var deviceID: String
        var pending: Bool?

        var json: JSON { KVCommand.entryJSON(key: key, value: value, modified: modified, deviceID: deviceID, pending: pending) }
    }

    static func items(_ inv: Invocation, prefix: String?) throws -> [Item] {
        if let d = try KVCommand.device(inv, create: false) {
            return try d.keyValueEntries(prefix: prefix).compactMap { e in
                e.value.map { Item(key: e.key, value: $0, modified: e.modified, deviceID: e.deviceID, pending: e.pending) }
            }
        }
        return try KVCommand.server(inv).entries(prefix: prefix).compactMap { e in
            e.value.map { Item(key: e.key, value: $0, modified: e.modified, deviceID: e.deviceID, pending: nil) }
        }
    }

    static func runGet(_ inv: Invocation) throws -> Int32 {
        let key = try KVCommand.key(inv)
        let item: Item
        if let d = try KVCommand.device(inv, create: false) {
            let e = try d.keyValueEntry(key)
            guard let v = e.value else { throw CKError(.unknownItem, "no key '\(key)' on device '\(d.name)'") }
            item = Item(key: key, value: v, modified: e.modified, deviceID: e.deviceID, pending: e.pending)
        } else {
            let e = try KVCommand.server(inv).entry(key)
            guard let v = e.value else { throw CKError(.unknownItem, "no key '\(key)'") }
            item = Item(key: key, value: v, modified: e.modified, deviceID: e.deviceID, pending: nil)
        }
        try inv.report(item.json, plain: RecordText.escape(item.value.text), table: item.value.text)
        return ExitCode.success
    }

    static func runList(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments; use --prefix to filter", command: inv.command.path) }
        let list = try items(inv, prefix: inv.parsed.value("prefix"))
        let onDevice = inv.parsed.value("device") != nil
        switch try inv.outputFormat() {
        case .json: inv.line(JSON.object(["keys": .array(list.map(\.json))]).pretty())
        case .jsonl: for i in list { inv.line(i.json.serialized()) }
        case .plain, .name, .table:
            var t = Table(onDevice ? ["KEY", "TYPE", "SIZE", "PENDING"] : ["KEY", "TYPE", "SIZE"])
            for i in list {
                t.add([i.key, i.value.typeName, String(i.value.size)] + (onDevice ? [i.pending == true ? "yes" : "-"] : []))
            }
            if try inv.outputFormat() == .plain { inv.out(t.plain()); break }
            if list.isEmpty { inv.line("No keys" + (onDevice ? " on this device." : ".")); break }
            inv.out(t.aligned())
        }
        return ExitCode.success
    }

    static func usageRows(_ u: KVUsage) -> [(String, String)] {
        [("keys", "\(u.keys) of \(KVLimits.maxKeys)"),
         ("bytes", "\(u.totalBytes) of \(KVLimits.maxTotalBytes) (keys and values)"),
         ("largest value", u.largestKey.map { "\($0): \(u.largestBytes) of \(KVLimits.maxValueBytes) bytes" } ?? "-")]
    }

    static func usageJSON(_ u: KVUsage) -> [String: JSON] {
        ["keys": .int(Int64(u.keys)), "maxKeys": .int(Int64(KVLimits.maxKeys)),
         "bytes": .int(Int64(u.totalBytes)), "maxBytes": .int(Int64(KVLimits.maxTotalBytes)),
         "largestKey": u.largestKey.map { .string($0) } ?? .null, "largestBytes": .int(Int64(u.largestBytes)),
         "maxValueBytes": .int(Int64(KVLimits.maxValueBytes)), "maxKeyBytes": .int(Int64(KVLimits.maxKeyBytes))]
    }

    static func runShow(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("show takes no arguments", command: inv.command.path) }
        let db = try inv.database()
        if let d = try KVCommand.device(inv, create: false) {
            let i = try d.keyValueInfo()
            var o = usageJSON(i.usage)
            o["device"] = .string(d.name)
            o["pending"] = .int(Int64(i.pending))
            o["events"] = .int(Int64(i.events))
            o["lastSync"] = i.lastSync.map { .int($0) } ?? .null
            o["accountStatus"] = .string(i.accountStatus)
            switch try inv.outputFormat() {
            case .json: inv.line(JSON.object(o).pretty())
            case .jsonl: inv.line(JSON.object(o).serialized())
            case .plain, .name, .table:
                try inv.printRows([("device", d.name), ("user", db.user)] + usageRows(i.usage) + [
                    ("pending", String(i.pending)), ("events", String(i.events)),
                    ("last sync", i.lastSync.map { ISO8601.format(milliseconds: $0) } ?? "never"),
                    ("account", i.accountStatus)])
            }
            return ExitCode.success
        }
        let store = KeyValueStore(database: db)
        let u = try store.usage()
        var o = usageJSON(u)
        o["user"] = .string(db.user)
        o["path"] = .string(store.path)
        switch try inv.outputFormat() {
        case .json: inv.line(JSON.object(o).pretty())
        case .jsonl: inv.line(JSON.object(o).serialized())
        case .plain, .name, .table: try inv.printRows([("user", db.user)] + usageRows(u) + [("file", store.path)])
        }
        return ExitCode.success
    }
}
