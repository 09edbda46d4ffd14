import CKCore

/// `ck kv sync <device>` and `ck kv events <device>`: a device's key-value sync and the notifications it received.
enum KVSyncCommand {
    static let spec = CommandSpec(
        "sync", summary: "Sync a device's key-value store: push its writes, pull the others'.",
        discussion: "The newest write per key wins: the later write time, then the device name in byte order. Before a device's first sync, its writes of keys the server already holds are discarded for the server's values. A write over a quota stays on the device, pending, and the device receives a quotaViolationChange event (the command exits 10). Keys whose value changed on the device arrive as one event: initialSyncChange on its first sync, serverChange after. When the user's account is not available, nothing moves; signing in again replaces the device's store with the account's and delivers accountChange. 'ck sync <device>' does this too, after the records.",
        arguments: [SyncCommand.deviceArgument],
        examples: [("ck kv sync phone", "Create phone on first use and download the store.")],
        run: run)

    static let events = CommandSpec(
        "events", summary: "List the change notifications a device received (didChangeExternallyNotification).",
        discussion: "Each event has an id, a time, the reason (serverChange, initialSyncChange, quotaViolationChange, accountChange) and the changed keys. -o json and -o jsonl give the notification's userInfo with Apple's key names: NSUbiquitousKeyValueStoreChangeReasonKey (0 serverChange, 1 initialSyncChange, 2 quotaViolationChange, 3 accountChange) and NSUbiquitousKeyValueStoreChangedKeysKey.",
        arguments: [SyncCommand.deviceArgument],
        options: [OptionSpec("since", value: "id", help: "Only events after this id.", rule: .integer(min: 0))],
        examples: [("ck kv events tablet --since 3", "Events tablet received after event 3.")],
        run: runEvents)

    static func run(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("device name")
        let device = try Device.open(name, database: try inv.database())
        let report = try KeyValueSync(device: device).sync()
        try inv.emit(Synced(report: report))
        try check(report)
        return ExitCode.success
    }

    /// Refused writes make the command exit 10, as edits the server kept out do in 'ck sync'.
    static func check(_ r: KVSyncReport) throws {
        guard !r.refused.isEmpty else { return }
        throw CKError(.partialFailure, "\(SyncCommand.plural(r.refused.count, "key-value write")) over quota \(r.refused.count == 1 ? "stays" : "stay") on device '\(r.device)'",
                      hint: "remove keys or store less, then sync again; 'ck kv events \(r.device)' shows the quotaViolationChange",
                      items: r.refused.map { CKError.ItemFailure(id: $0.key, error: CKError(.quotaExceeded, $0.reason)) })
    }

    static func plainLines(_ r: KVSyncReport) -> [String] {
        var out: [String] = []
        if let s = r.skipped { out.append("kv\tskipped\t" + RecordText.escape(s)) }
        for k in r.pushed { out.append("kv\tpushed\t" + RecordText.escape(k)) }
        for k in r.pulled { out.append("kv\tpulled\t" + RecordText.escape(k)) }
        for k in r.overridden { out.append("kv\toverridden\t" + RecordText.escape(k)) }
        for f in r.refused { out.append("kv\trefused\t" + KVCommand.plainCell(f.key) + "\t" + KVCommand.plainCell(f.reason)) }
        for e in r.events { out.append("kv\tevent\t\(e.id)\t\(e.reason.rawValue)\t" + KVCommand.plainCell(e.keys.joined(separator: ","))) }
        return out
    }

    static func summary(_ r: KVSyncReport) -> String {
        if let s = r.skipped { return "Key-value store of \(r.device) not synced: \(s)" }
        return "Synced key-value store of \(r.device): pushed \(SyncCommand.plural(r.pushed.count, "key")), pulled \(SyncCommand.plural(r.pulled.count, "key"))"
    }

    static func detailLines(_ r: KVSyncReport) -> [String] {
        var out: [String] = []
        if !r.overridden.isEmpty { out.append("overridden by newer server values: " + r.overridden.joined(separator: ", ")) }
        for f in r.refused { out.append("refused \(KVCommand.visible(f.key)): \(KVCommand.visible(f.reason))") }
        for e in r.events { out.append("event \(e.id): \(e.reason.rawValue) " + (e.keys.isEmpty ? "(no keys)" : KVCommand.visible(e.keys.joined(separator: ", ")))) }
        return out
    }

    static func runEvents(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("device name")
        let since = inv.parsed.value("since").flatMap { Int64($0) }
        let device = try Device.open(name, database: try inv.database(), create: false)
        let list = try device.keyValueEvents(since: since)
        try inv.emit(Events(device: name, events: list))
        return ExitCode.success
    }
}
