import CKCore

/// `ck device conflicts`: the failed saves a sync handed back to the app (`ck sync --on-conflict manual`).
enum DeviceConflictsCommand {
    static let spec = CommandSpec(
        "conflicts", summary: "List a device's pending conflicts: failed saves left to the app (all zones, or -z).",
        discussion: "A sync with --on-conflict manual (or a merge program that failed) leaves each save the server refused — the record changed there (serverRecordChanged) or was deleted (unknownItem) — pending beside the server's record, as CKSyncEngine hands failed saves back to the app. Each conflict names the record, its zone and type and the server record's change tag; -o json adds the three versions in Web Services form: ancestor (what the edit was made on; null for a record the device created), client (the device's version) and server (null when the server deleted it), and error when a merge program failed. 'ck device resolve' settles one.",
        arguments: [DeviceCommand.deviceArgument],
        examples: [("ck device conflicts phone -o json", "The ancestor, client and server records of each conflict.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count == 1 else { throw UsageError("expected one device name", command: inv.command.path) }
        let d = try DeviceRecordsCommand.device(inv)
        let zone = DeviceRecordsCommand.zoneFilter(inv)
        try inv.emit(List(conflicts: try d.conflicts(zone: zone),
                          empty: "no conflicts on \(d.name)\(zone.map { " in zone " + $0 } ?? "")", width: inv.terminal.width))
        return ExitCode.success
    }
}
