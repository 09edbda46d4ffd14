import Foundation
import CKCore

enum ZoneCommand {
    static let spec = CommandSpec(
        "zone", summary: "Create, list, show and delete record zones.",
        discussion: "Custom zones exist only in the private database (the public database has only _defaultZone; creating one there answers badDatabase). Capabilities are the server's: every custom zone has fetchChanges (change feeds), atomic (all-or-nothing batches) and sharing; zoneWideSharing is added on request (--zone-wide-sharing). The default zone has none.",
        examples: [("ck zone create Notes", "Create a custom zone in the private database of the current user."),
                   ("ck -z Notes record save Note title=Hi", "Save a record into it.")],
        subcommands: [
            CommandSpec("create", summary: "Create a custom zone (saving an existing zone keeps it and its records).",
                        arguments: [ArgumentSpec("zone", help: "Zone name: ASCII, not starting with '_'.")],
                        options: [OptionSpec("zone-wide-sharing", help: "Also give the zone zoneWideSharing (a share of the whole zone)."),
                                  OptionSpec("capabilities", value: "list",
                                             help: "Test aid, not CloudKit: give the zone only these comma-separated capabilities (to rehearse a zone without atomic or fetchChanges).",
                                             rule: .list(ZoneCapability.allCases.map(\.rawValue)))],
                        run: create),
            CommandSpec("list", summary: "List the zones of the database.", run: list),
            CommandSpec("show", summary: "Show a zone: owner, capabilities, record count.",
                        arguments: [ArgumentSpec("zone", help: "Zone name (default: --zone or _defaultZone).", optional: true, completion: .zone)],
                        run: show),
            CommandSpec("delete", summary: "Delete a custom zone and all its records.",
                        arguments: [ArgumentSpec("zone", help: "Zone name.", completion: .customZone)],
                        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")],
                        run: delete),
            CommandSpec("purge", summary: "Delete a custom zone as the user does from iCloud settings.",
                        discussion: "Like delete, but devices then meet userDeletedZone and the database change feed reports the zone as purged; 'ck sync' wipes the zone on the device with its pending edits and does not upload them again (CKSyncEngine's deletion reason purged).",
                        arguments: [ArgumentSpec("zone", help: "Zone name.", completion: .customZone)],
                        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")],
                        run: purge),
            CommandSpec("reset-encrypted", summary: "Delete a custom zone as a reset of the user's encrypted data does.",
                        discussion: "What CloudKit does to the user's zones when the user resets end-to-end encrypted data (recovering an account without its keys): the zone and its records go, the database change feed reports the zone deleted with reason encryptedDataReset, and 'ck sync' creates the zone again and uploads what the device holds. Web Services reports it as a plain deletion.",
                        arguments: [ArgumentSpec("zone", help: "Zone name.", completion: .customZone)],
                        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")],
                        run: resetEncrypted),
        ])

    static func caps(_ z: Zone) -> String {
        z.capabilities.isEmpty ? "-" : z.capabilities.sorted().map(\.rawValue).joined(separator: ",")
    }

    static func create(_ inv: Invocation) throws -> Int32 {
        let zoneName = try inv.single("zone name")
        // The parser has checked each capability name.
        var caps = inv.parsed.value("capabilities").map { Set(ValueRule.items($0).compactMap(ZoneCapability.init(rawValue:))) }
            ?? ZoneCapability.defaults
        if inv.parsed.flag("zone-wide-sharing") { caps.formUnion([.sharing, .zoneWideSharing]) }
        let (zone, created) = try inv.database().createZone(zoneName, capabilities: caps)
        if !created { inv.note("zone '\(zoneName)' already exists; saved as CloudKit saves an existing zone: its records and capabilities are kept") }
        try inv.emit(Zones(zones: [zone], verb: created ? "Created zone" : "Zone", width: inv.terminal.width))
        return ExitCode.success
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        try inv.emit(Zones(zones: try inv.database().zones(), width: inv.terminal.width))
        return ExitCode.success
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one zone name", command: inv.command.path) }
        let s = try inv.database().zoneSummary(inv.positionals.first ?? inv.zone)
        try inv.emit(Show(summary: ZoneDescription(zone: s.zone, recordCount: s.recordCount)))
        return ExitCode.success
    }

    static func delete(_ inv: Invocation) throws -> Int32 { try delete(inv, purge: false) }
    static func purge(_ inv: Invocation) throws -> Int32 { try delete(inv, purge: true) }
    static func resetEncrypted(_ inv: Invocation) throws -> Int32 { try delete(inv, purge: false, reset: true) }

    static func delete(_ inv: Invocation, purge: Bool, reset: Bool = false) throws -> Int32 {
        let zoneName = try inv.single("zone name")
        let db = try inv.database()
        let summary = try db.zoneSummary(zoneName)
        if !inv.parsed.flag("yes") && summary.recordCount > 0
            && !inv.confirm("\(purge ? "Purge" : reset ? "Reset encrypted data of" : "Delete") zone \(zoneName) and its \(summary.recordCount) records?") {
            inv.note("nothing deleted")
            return ExitCode.failure
        }
        let count = purge ? try db.purgeZone(zoneName) : reset ? try db.resetEncryptedZone(zoneName) : try db.deleteZone(zoneName)
        try inv.emit(Deleted(deletion: ZoneDeletion(zoneID: summary.zone.zoneID, recordCount: count, purged: purge, encryptedDataReset: reset)))
        return ExitCode.success
    }
}
