import CKCore

/// `ck completion <shell>`: completion scripts generated from the command tree; and the hidden
/// `ck __complete <kind> [<record-type>]` the scripts call for names that live in the store.
enum CompletionCommand {
    static let spec = CommandSpec(
        "completion", summary: "Print a shell completion script for bash, zsh or fish.",
        discussion: "The script completes commands, options and their values from the same command tree as --help. Containers, zones, record types, fields, record names, shares, users, subscription IDs, notification IDs, devices, key-value keys and fault rule IDs come from the store: the script asks ck for them, honouring --data-dir, --container, --env, --db, --zone and --as on the line and the CK_ environment variables.",
        arguments: [ArgumentSpec("shell", help: "bash, zsh or fish.", choices: CompletionRenderer.Shell.allCases.map(\.rawValue))],
        examples: [("source <(ck completion bash)", "Complete ck in the current bash."),
                   ("ck completion zsh > ~/.zfunc/_ck", "Install the zsh completion (after mkdir -p ~/.zfunc; ~/.zshrc needs fpath=(~/.zfunc $fpath) before compinit)."),
                   ("ck completion fish > ~/.config/fish/completions/ck.fish", "Install the fish completion (after mkdir -p ~/.config/fish/completions).")],
        run: run)

    static let completeSpec = CommandSpec(
        "__complete", summary: "Print completion candidates from the store, one a line (used by completion scripts).",
        arguments: [ArgumentSpec("kind", help: "One of: " + CompletionRenderer.dynamicKinds.map(\.rawValue).joined(separator: ", ") + "."),
                    ArgumentSpec("record-type", help: "For fields and recordName: only this record type.", optional: true)],
        hidden: true, run: complete)

    /// Record names offered at most.
    static let recordNameLimit = 300

    static func run(_ inv: Invocation) throws -> Int32 {
        let name = try inv.single("shell: bash, zsh or fish")
        guard let shell = CompletionRenderer.Shell(rawValue: name) else {
            throw UsageError("unknown shell '\(name)': expected bash, zsh or fish", command: inv.command.path)
        }
        inv.out(CompletionRenderer.script(shell))
        return ExitCode.success
    }

    static func complete(_ inv: Invocation) throws -> Int32 {
        let kinds = CompletionRenderer.dynamicKinds.map(\.rawValue)
        guard (1...2).contains(inv.positionals.count), let kindName = inv.positionals.first,
              let kind = CompletionKind(rawValue: kindName), CompletionRenderer.dynamicKinds.contains(kind) else {
            throw UsageError("expected a kind (\(kinds.joined(separator: ", "))) and optionally a record type", command: inv.command.path)
        }
        let type = inv.positionals.dropFirst().first.flatMap { $0.isEmpty ? nil : $0 }
        // Completion never makes a store: with none there is nothing to offer.
        guard CKStore.exists(at: inv.storeLocation.path) else { return ExitCode.success }
        let candidates: [String]
        switch kind {
        case .container:
            candidates = try inv.store().containerIDs()
        case .zone:
            candidates = try inv.database().zones().map(\.zoneID.zoneName)
        case .customZone:
            candidates = try inv.database().zones().map(\.zoneID.zoneName).filter { $0 != Names.defaultZoneName }
        case .recordType:
            candidates = try inv.container().schema(inv.environment()).recordTypes.keys.sorted()
        case .field, .fieldAssignment, .indexField, .sortField:
            let schema = try inv.container().schema(inv.environment())
            let types = type.map { [$0] } ?? Array(schema.recordTypes.keys)
            var fields = Set<String>()
            for t in types {
                for (f, field) in schema.recordTypes[t]?.fields ?? [:] where RecordTypeSchema.systemFields[f] == nil {
                    // A sort takes only SORTABLE fields (development marks user fields so as they are created).
                    if kind != .sortField || field.sortable { fields.insert(f) }
                }
            }
            switch kind {
            case .fieldAssignment: candidates = fields.sorted().map { $0 + "=" }
            // The system fields take indexes too (errors ask for one on ___modTime, ___recordID, …).
            case .indexField: candidates = fields.sorted() + RecordTypeSchema.systemFields.keys.sorted()
            // The system fields by the names a query sorts by (each needs its ___ index SORTABLE); '-' sorts descending.
            case .sortField:
                let names = fields.sorted() + ["creationDate", "modificationDate", "recordName"]
                candidates = names + names.map { "-" + $0 }
            default: candidates = fields.sorted()
            }
        case .recordName:
            candidates = try inv.database().records(zone: inv.zone)
                .filter { type == nil || $0.recordType == type }
                .prefix(recordNameLimit).map(\.recordName)
        case .share:
            candidates = try inv.database().records(zone: inv.zone).filter(\.isShare).prefix(recordNameLimit).map(\.recordName)
        case .user:
            candidates = try inv.container().users().map(\.name)
        case .role:
            candidates = try inv.container().schema(inv.environment()).roles.sorted()
        case .subscription:
            candidates = try inv.database().subscriptions().map(\.subscriptionID)
        case .device:
            candidates = Device.names(for: try inv.database())
        case .kvKey:
            candidates = try KeyValueStore(database: try inv.database()).entries().map(\.key)
        case .fault:
            candidates = try inv.container().faults(environment: inv.environment()).map(\.id)
        case .notification:
            candidates = try inv.database().notifications(unreadOnly: false, since: nil).suffix(recordNameLimit).map(\.notificationID)
        default:
            candidates = []
        }
        for c in candidates where !c.contains("\n") { inv.line(c) }
        return ExitCode.success
    }
}
