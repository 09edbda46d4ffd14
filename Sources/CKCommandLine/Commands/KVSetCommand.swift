import CKCore

/// `ck kv set` and `ck kv remove`: writes to the server, or to a device's local copy with --device.
enum KVSetCommand {
    static let spec = CommandSpec(
        "set", summary: "Set a key's value (on the server, or on a device with --device).",
        discussion: "The value is typed as 'ck record save' types a field, except that true/false/yes/no (any case) make a bool: an integer, a decimal number, an ISO 8601 date, else a string; --type says it outright (\(KVValue.typeNames.joined(separator: ", ")); data is base64 or @file; bool is true/false/yes/no; 'key:type' is refused: the type goes in --type). --json gives any value as JSON: arrays and objects become arrays and dictionaries, {\"$date\": \"…\"} a date and {\"$data\": \"…\"} data. Arrays and dictionaries nest at most \(KVLimits.maxDepth) levels. An empty key or one over \(KVLimits.maxKeyBytes) bytes is refused at once; on the server a write over a quota is refused with quotaExceeded (exit 6), on a device it is kept and refused at sync.",
        arguments: [KVCommand.keyArgument, ArgumentSpec("value", help: "The value, unless --json is given.", optional: true)],
        options: [OptionSpec("type", value: "type", help: "The value's type: \(KVValue.typeNames.joined(separator: ", ")) (or int64, timestamp, bytes)."),
                  OptionSpec("json", value: "json", help: "The value as JSON (any type, arrays and dictionaries included)."),
                  KVCommand.deviceOption],
        examples: [("ck kv set theme dark", "A string."),
                   ("ck kv set darkMode true", "A bool (true, false, yes or no; --type string keeps the word)."),
                   ("ck kv set recent --json '[\"a\", \"b\"]'", "An array of strings."),
                   ("ck kv set --device phone volume 7", "An integer, on phone only until it syncs.")],
        run: run)

    static let remove = CommandSpec(
        "remove", summary: "Remove a key (on the server, or on a device with --device).",
        arguments: [KVCommand.keyArgument], options: [KVCommand.deviceOption], run: runRemove)

    static func run(_ inv: Invocation) throws -> Int32 {
        let args = inv.positionals
        let json = inv.parsed.value("json")
        if json == nil, inv.parsed.value("type") == nil, let first = args.first, let typed = typedKey(first) {
            // `enabled:bool` is record-save syntax; kept as a key name it would silently store under the wrong key.
            let value = args.count > 1 ? args[1] : typed.value ?? "<value>"
            throw UsageError("key '\(Names.describe(first))' reads as key:type, which ck kv set does not take: write 'ck kv set \(typed.key) \(value) --type \(typed.type)' (with --type given, '\(Names.describe(first))' is taken as the key name)",
                             command: inv.command.path)
        }
        if json == nil, args.count == 1, let eq = args[0].firstIndex(of: "=") {
            let k = args[0][..<eq], v = args[0][args[0].index(after: eq)...]
            throw UsageError("expected a key and a value as two arguments: write 'ck kv set \(Names.describe(String(k))) \(Names.describe(String(v)))'",
                             command: inv.command.path)
        }
        guard let key = args.first, args.count == (json == nil ? 2 : 1) else {
            throw UsageError(json == nil ? "expected a key and a value (or a key and --json)" : "expected a key only: --json gives the value",
                             command: inv.command.path)
        }
        let value: KVValue
        if let json {
            try KVLimits.validateKey(key)
            if inv.parsed.value("type") != nil { throw UsageError("--type and --json do not go together: JSON carries its own types", command: inv.command.path) }
            value = try KVValue.parse(json: json, key: key)
        } else {
            try KVLimits.validateKey(key)
            value = try KVValue.parse(args[1], type: inv.parsed.value("type"), key: key, files: .directory(inv.terminal.workingDirectory))
        }
        if let d = try KVCommand.device(inv, create: true) {
            let e = try d.setKeyValue(key, value)
            try inv.emit(KVCommand.Set(entry: KVCommand.Entry(key: key, value: value, modified: e.modified, deviceID: e.deviceID, pending: true), device: d.name))
        } else {
            let e = try KVCommand.server(inv).set(key, value)
            try inv.emit(KVCommand.Set(entry: KVCommand.Entry(key: key, value: value, modified: e.modified, deviceID: e.deviceID, pending: nil), device: nil))
        }
        return ExitCode.success
    }

    /// `name:type` or `name:type=value` where type is one --type takes, split; nil for any other key.
    static func typedKey(_ text: String) -> (key: String, type: String, value: String?)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var rest = String(text[text.index(after: colon)...])
        var value: String? = nil
        if let eq = rest.firstIndex(of: "=") {
            value = String(rest[rest.index(after: eq)...])
            rest = String(rest[..<eq])
        }
        let names = KVValue.typeNames + ["int64", "int", "timestamp", "bytes", "boolean", "dict"]
        guard !text[..<colon].isEmpty, names.contains(rest.lowercased()) else { return nil }
        return (String(text[..<colon]), rest.lowercased(), value)
    }

    static func runRemove(_ inv: Invocation) throws -> Int32 {
        let key = try KVCommand.key(inv)
        if let d = try KVCommand.device(inv, create: false) {
            try d.removeKeyValue(key)
            try inv.emit(KVCommand.Removed(key: key, device: d.name))
        } else {
            try KVCommand.server(inv).remove(key)
            try inv.emit(KVCommand.Removed(key: key, device: nil))
        }
        return ExitCode.success
    }
}
