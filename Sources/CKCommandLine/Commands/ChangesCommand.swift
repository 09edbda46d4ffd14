import CKCore

/// `ck changes zone|database`: the change feeds behind CloudKit sync (changes/zone, changes/database).
enum ChangesCommand {
    static let sinceOption = OptionSpec("since", value: "token",
                                        help: "Changes after this syncToken (from the previous call); omit to start from the beginning.")
    static let limitOption = OptionSpec("limit", value: "n", help: "At most n items (resultsLimit); moreComing says when to ask again.")

    static let spec = CommandSpec(
        "changes", summary: "Fetch what changed in a zone or a database since a change token.",
        discussion: "A change token (syncToken) is a position in a change feed: pass the one the previous call printed and you get only what changed since, as CKFetchRecordZoneChangesOperation and CKFetchDatabaseChangesOperation do. Tokens are opaque and bound to one environment, database, user and zone; zone and database tokens are not interchangeable. Only the private and shared databases have change feeds, and only custom zones with the fetchChanges capability (not _defaultZone). A token older than the zone's last compaction ('ck gc'), or from a zone deleted and created again, answers changeTokenExpired (exit 9): toss the local copy and fetch again without a token.",
        examples: [("ck changes zone Notes", "Everything in zone Notes, and a token."),
                   ("ck changes zone Notes --since \"$TOKEN\" -o json", "Only what changed since TOKEN."),
                   ("ck changes database", "Which custom zones were created, changed or deleted.")],
        subcommands: [
            CommandSpec("zone", summary: "Records saved or deleted in a custom zone since a token.",
                        arguments: [ArgumentSpec("zone", help: "Zone name (default: --zone).", optional: true, completion: .zone)],
                        options: [sinceOption, limitOption, RecordCommand.keysOption],
                        run: zone),
            CommandSpec("database", summary: "Custom zones created, changed or deleted since a token.",
                        options: [sinceOption, limitOption],
                        run: database),
        ])

    static func limit(_ inv: Invocation) throws -> Int? {
        guard let v = inv.parsed.value("limit") else { return nil }
        guard let n = Int(v), n >= 1 else { throw UsageError("--limit takes a whole number of at least 1, not '\(v)'", command: inv.command.path) }
        return n
    }

    static func zone(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one zone name", command: inv.command.path) }
        let name = inv.positionals.first ?? inv.zone
        let c = try inv.database().zoneChanges(zone: name, since: inv.parsed.value("since"), limit: try limit(inv),
                                               desiredKeys: RecordCommand.keys(inv))
        // Built only for the JSON formats, one change at a time.
        func item(_ ch: RecordChange) throws -> JSON {
            if let r = ch.record { return try RecordCommand.recordJSON(r, inv) }
            return .object(["recordName": .string(ch.recordName), "recordType": .string(ch.recordType),
                            "zoneID": c.zoneID.json, "deleted": .bool(true)])
        }
        switch try inv.outputFormat() {
        case .json:
            inv.line(JSON.object(["zoneID": c.zoneID.json, "records": .array(try c.changes.map(item)), "syncToken": .string(c.syncToken),
                                  "moreComing": .bool(c.moreComing)]).pretty())
        case .jsonl:
            for ch in c.changes { inv.line(try item(ch).serialized()) }
            inv.line(JSON.object(["syncToken": .string(c.syncToken), "moreComing": .bool(c.moreComing)]).serialized())
        case .plain:
            for ch in c.changes {
                if let r = ch.record { inv.line("saved\t" + RecordText.plain(r)) } else { inv.line("deleted\t\(ch.recordName)\t\(ch.recordType)") }
            }
            inv.line("syncToken\t" + c.syncToken)
            if c.moreComing { inv.line("moreComing\ttrue") }
        case .table:
            var t = Table(["CHANGE", "RECORD", "TYPE", "TAG", "FIELDS"])
            for ch in c.changes {
                if let r = ch.record {
                    let fields = r.fields.keys.sorted().compactMap { k in r.fields[k].map { k + "=" + RecordText.display($0) } }
                    t.add(["saved", r.recordName, r.recordType, r.changeTag, fields.joined(separator: " ")])
                } else {
                    t.add(["deleted", ch.recordName, ch.recordType, "-", ""])
                }
            }
            if c.changes.isEmpty { inv.line("No changes in \(c.zoneID.zoneName).") } else { inv.out(t.aligned()) }
            inv.line("syncToken: " + c.syncToken)
            if c.moreComing { inv.line("moreComing: ask again with --since to get the rest") }
        }
        return ExitCode.success
    }

    static func database(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("database takes no arguments", command: inv.command.path) }
        let c = try inv.database().databaseChanges(since: inv.parsed.value("since"), limit: try limit(inv))
        func zoneJSON(_ z: ZoneChange) -> JSON {
            var o: [String: JSON] = ["zoneID": z.zoneID.json]
            if z.deleted { o["deleted"] = .bool(true) }
            if z.purged { o["purged"] = .bool(true) }
            return .object(o)
        }
        switch try inv.outputFormat() {
        case .json:
            inv.line(JSON.object(["zones": .array(c.zones.map(zoneJSON)), "syncToken": .string(c.syncToken),
                                  "moreComing": .bool(c.moreComing)]).pretty())
        case .jsonl:
            for z in c.zones { inv.line(zoneJSON(z).serialized()) }
            inv.line(JSON.object(["syncToken": .string(c.syncToken), "moreComing": .bool(c.moreComing)]).serialized())
        case .plain:
            for z in c.zones { inv.line((z.purged ? "purged\t" : z.deleted ? "deleted\t" : "changed\t") + z.zoneID.zoneName) }
            inv.line("syncToken\t" + c.syncToken)
            if c.moreComing { inv.line("moreComing\ttrue") }
        case .table:
            var t = Table(["CHANGE", "ZONE"])
            for z in c.zones { t.add([z.purged ? "purged" : z.deleted ? "deleted" : "changed", z.zoneID.zoneName]) }
            if c.zones.isEmpty { inv.line("No zone changes.") } else { inv.out(t.aligned()) }
            inv.line("syncToken: " + c.syncToken)
            if c.moreComing { inv.line("moreComing: ask again with --since to get the rest") }
        }
        return ExitCode.success
    }
}
