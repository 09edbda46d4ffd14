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
        try inv.emit(ModelCommand.Compared(against: against, diff: d))
        return failed || !d.conflicts.isEmpty ? ExitCode.rejectedInput : ExitCode.success
    }
}
