import CKCore

enum DoctorCommand {
    static let spec = CommandSpec(
        "doctor", summary: "Check a store's files and say what is wrong and how to fix it.",
        discussion: "Checks ck.json, every container.json, schema.json and zones.json, every line of every zone log, the index's freshness, orphaned assets, temporary files left by interrupted writes, symbolic links anywhere in the store (ck follows none), intent records naming a file their operation never changes, and files ck does not make. Nothing changes unless --repair is given; then bad data is moved aside into <store>/lost+found/<time>/ (never deleted): bad log lines and torn tails are cut out of their logs, a broken zones.json is rebuilt from the logs, a broken schema.json is replaced by an empty one, a link itself (never what it points to) and a refused intent record are moved, the index is caught up. Exits 0 when no problem was found (warnings allowed), 1 otherwise.",
        options: [OptionSpec("repair", help: "Move bad data aside and rebuild what can be rebuilt.")],
        examples: [("ck doctor", "Check the store."), ("ck doctor --repair", "Move bad data into lost+found and rebuild.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("doctor takes no arguments", command: inv.command.path) }
        // A read-only command: a missing store is an error (Invocation.store), never created here.
        let store = try inv.store()
        let repair = inv.parsed.flag("repair")
        // Device replicas belong to the sync layer, which examines them itself (read only).
        let findings = try StoreDoctor.examine(store, repair: repair) + Device.examineReplicas(in: store.root)
        let problems = findings.filter { $0.severity == .problem && !$0.repaired }
        try inv.emit(Examined(store: store.root, findings: findings, ok: problems.isEmpty))
        return problems.isEmpty ? ExitCode.success : ExitCode.failure
    }
}
