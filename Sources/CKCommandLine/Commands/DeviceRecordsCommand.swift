import CKCore

/// `ck device records|save|remove`: a device's records, and offline edits a later `ck sync` pushes.
enum DeviceRecordsCommand {
    static let records = CommandSpec(
        "records", summary: "List a device's records, pending edits marked (all zones, or -z).",
        arguments: [DeviceCommand.deviceArgument], run: listRecords)

    static let save = CommandSpec(
        "save", summary: "Save a record on a device only; 'ck sync' pushes it.",
        discussion: "Fields are field[:type]=value as for 'ck record save'. Without a type, a field takes the type it has on the device's records of that type, else the type the value looks like. Devices keep no asset bytes, so asset fields are refused. The zone (-z) must be a custom zone.",
        arguments: [DeviceCommand.deviceArgument,
                    ArgumentSpec("record-type", help: "Record type.", completion: .recordType),
                    ArgumentSpec("field=value", help: "Field values to set: field[:type]=value.", optional: true, repeatable: true, completion: .fieldAssignment)],
        options: [OptionSpec("name", value: "name", help: "Record name (default: a new UUID).", completion: .recordName),
                  OptionSpec("unset", value: "field", help: "Remove a field (repeatable).", repeatable: true, completion: .field)],
        examples: [("ck device save tablet Note --name n1 -z Notes title=Edited", "Edit n1 on tablet, offline.")],
        run: runSave)

    static let remove = CommandSpec(
        "remove", summary: "Delete a record on a device only; 'ck sync' pushes the deletion.",
        arguments: [DeviceCommand.deviceArgument, ArgumentSpec("record-name", help: "Record name.", completion: .recordName)],
        run: runRemove)

    /// The device named first; `create` for an offline edit on a device never synced (ck needs no set-up).
    static func device(_ inv: Invocation, create: Bool = false) throws -> Device {
        guard let name = inv.positionals.first else { throw UsageError("expected a device name", command: inv.command.path) }
        return try Device.open(name, database: try inv.database(), create: create)
    }

    static func pendingText(_ p: LocalRecord.Pending) -> String {
        switch p {
        case .none: return "-"
        case .save(let keys): return keys.isEmpty ? "save" : "save(" + keys.joined(separator: ",") + ")"
        case .delete: return "delete"
        }
    }

    static func recordJSON(_ l: LocalRecord) -> JSON {
        var fields: [String: JSON] = [:]
        for (k, v) in l.fields { fields[k] = v.fieldJSON }
        var o: [String: JSON] = ["recordName": .string(l.recordName), "recordType": .string(l.recordType),
                                 "zoneName": .string(l.zoneName), "fields": .object(fields),
                                 "recordChangeTag": l.changeTag.map { .string($0) } ?? .null]
        switch l.pending {
        case .none: o["pending"] = .null
        case .save(let keys): o["pending"] = .string("save"); o["changedKeys"] = .array(keys.map { .string($0) })
        case .delete: o["pending"] = .string("delete")
        }
        return .object(o)
    }

    /// -z when given (flag or CK_ZONE); nil = every zone.
    static func zoneFilter(_ inv: Invocation) -> String? { inv.setting("zone", env: "CK_ZONE") }

    static func listRecords(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count == 1 else { throw UsageError("expected one device name", command: inv.command.path) }
        let d = try device(inv)
        let zone = zoneFilter(inv)
        try inv.emit(Records(records: try d.records(zone: zone),
                             empty: "no records on \(d.name)\(zone.map { " in zone " + $0 } ?? ""); 'ck sync \(d.name)' fetches the server's",
                             width: inv.terminal.width))
        return ExitCode.success
    }

    static func runSave(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count >= 2 else { throw UsageError("expected a device name and a record type", command: inv.command.path) }
        // The zone first: a refused edit does not leave a new device behind.
        let zone = try syncZone(inv)
        // A near-miss zone is refused before a new device is made for the edit.
        let db = try inv.database()
        if let name = inv.positionals.first, try !Device.exists(name, for: db) { try Device.refuseNearMiss(zone: zone, database: db) }
        let d = try device(inv, create: true)
        let type = inv.positionals[1]
        var fields: [String: FieldValue?] = [:]
        for a in inv.positionals.dropFirst(2) {
            let (key, input) = try RecordSaveCommand.assignment(a, inv: inv)
            guard case .text(let text, let explicit, let action, let encrypted) = input else { continue }
            let v = try d.fieldValue(text, type: explicit, action: action, recordType: type, key: key)
            fields[key] = .some(encrypted ? try v.encrypting(path: "fields.\(key)") : v)
        }
        for key in inv.parsed.all("unset") { fields[key] = .some(nil) }
        let saved = try d.save(recordType: type, recordName: inv.parsed.value("name"), zone: zone, fields: fields)
        try inv.emit(Saved(record: saved, device: d.name))
        return ExitCode.success
    }

    static func runRemove(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count == 2 else { throw UsageError("expected a device name and a record name", command: inv.command.path) }
        let d = try device(inv)
        let name = inv.positionals[1]
        let zone = try syncZone(inv)
        let outcome = try d.delete(recordName: name, zone: zone)
        try inv.emit(Removed(recordName: name, zone: zone, device: d.name, dropped: outcome == .none))
        return ExitCode.success
    }

    /// The zone (-z) a device edit goes to. Devices sync custom zones only: when -z is missing, the refusal names
    /// the user's custom zones rather than suggest making one that exists.
    static func syncZone(_ inv: Invocation) throws -> String {
        let zone = inv.zone
        do { try Device.checkSyncZone(zone) } catch {
            var e = error
            let custom = ((try? inv.database().zones()) ?? []).map(\.zoneID.zoneName).filter { $0 != Names.defaultZoneName }
            if let first = custom.first {
                e.hint = "pass -z with a custom zone of yours: " + custom.joined(separator: ", ") + " (e.g. -z \(first))"
            }
            throw e
        }
        return zone
    }
}
