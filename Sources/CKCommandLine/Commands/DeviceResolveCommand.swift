import CKCore

/// `ck device resolve`: the app's answer to a conflict a sync handed back (`ck sync --on-conflict manual`).
enum DeviceResolveCommand {
    static let spec = CommandSpec(
        "resolve", summary: "Resolve a pending conflict: keep the server's record, the device's, or some fields of each.",
        discussion: "--take server drops the device's edit (the device keeps the server's record); --take client keeps the device's version; --take FIELD[,FIELD…] takes those fields from the device's version and the rest from the server's record. The device's copy becomes the server's record and what is kept of its own version becomes an edit based on the server record's change tag, as an app re-saves a merged record after serverRecordChanged: the next 'ck sync' sends it and, unless the server changed the record again meanwhile (then it is a conflict again), it is saved. Without -z the record is looked for in every zone.",
        arguments: [DeviceCommand.deviceArgument, ArgumentSpec("record-name", help: "Record name.", completion: .recordName)],
        options: [OptionSpec("take", value: "side", help: "server, client, or a comma-separated list of fields to take from the device.")],
        examples: [("ck device resolve phone n1 -z Notes --take server", "Drop phone's edit of n1."),
                   ("ck device resolve phone n1 -z Notes --take title,body", "Keep phone's title and body, the server's other fields.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count == 2 else { throw UsageError("expected a device name and a record name", command: inv.command.path) }
        guard let side = inv.parsed.value("take") else {
            throw UsageError("--take is required: server, client, or a comma-separated list of fields", command: inv.command.path)
        }
        let take: ConflictTake
        switch side {
        case "server": take = .server
        case "client": take = .client
        default:
            let fields = side.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !fields.isEmpty else {
                throw UsageError("invalid value '\(side)' for --take: expected server, client or field names", command: inv.command.path)
            }
            take = .fields(fields)
        }
        let d = try DeviceRecordsCommand.device(inv)
        let name = inv.positionals[1]
        let zone = DeviceRecordsCommand.zoneFilter(inv)
        let record = try d.resolveConflict(name, zone: zone, take: take)
        try inv.emit(Resolved(recordName: name, device: d.name, take: side, record: record))
        return ExitCode.success
    }
}
