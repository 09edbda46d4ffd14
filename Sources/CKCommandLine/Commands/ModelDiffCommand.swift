import CKCore

/// `ck model diff <paths…> --against <export.ckdb | production>`: the additive-only rule, checked before release.
enum ModelDiffCommand {
    static func run(_ inv: Invocation) throws -> Int32 {
        guard let against = inv.parsed.value("against") else {
            throw UsageError("--against is required: a .ckdb export, or production", command: inv.command.path)
        }
        let (model, synced) = try ModelCommand.load(inv)
        let findings = ModelChecker.check(model, synced: synced)
        let schema = ModelSchemaMapper.schema(model, synced: synced, mode: ModelCommand.mode(inv))
        let target: Schema
        if let env = Environment(rawValue: against) {
            target = try inv.container().schema(env)
        } else {
            target = try SchemaCommand.readSchema(path: against, inv).0
        }
        let failed = ModelCommand.reportOnStderr(findings, inv)
        let d = ModelSchemaDiff(model: schema, against: target)
        switch try inv.outputFormat() {
        case .json:
            inv.line(JSON.object(["against": .string(against), "additions": .array(d.additions.map(\.json)),
                                  "conflicts": .array(d.conflicts.map(\.json)), "kept": .array(d.kept.map(\.json)),
                                  "other": .array(d.other.map(\.json))]).pretty())
        case .jsonl:
            for c in d.all { inv.line(c.json.serialized()) }
        case .plain, .name, .table:
            for c in d.all { inv.line(c.summary) }
            if try inv.outputFormat() == .table {
                if d.all.isEmpty { inv.line("No differences: \(against) has the model's schema.") }
                if !d.conflicts.isEmpty {
                    inv.note("\(d.conflicts.count) field\(d.conflicts.count == 1 ? "" : "s") marked ! \(against) has with another type; CloudKit can't change a field's type")
                }
                if !d.kept.isEmpty {
                    inv.note("\(d.kept.count) thing\(d.kept.count == 1 ? "" : "s") marked - \(against) keeps though the model no longer has \(d.kept.count == 1 ? "it" : "them"): schemas are additive")
                }
            }
        }
        return failed || !d.conflicts.isEmpty ? ExitCode.rejectedInput : ExitCode.success
    }
}
