import CKCore

/// `ck model check <paths…>`: every finding, with its position, rule, the validator's message and a fix.
enum ModelCheckCommand {
    static func run(_ inv: Invocation) throws -> Int32 {
        let (model, synced) = try ModelCommand.load(inv)
        let findings = ModelChecker.check(model, synced: synced)
        let errors = findings.filter { $0.severity == .error }.count
        try inv.emit(ModelCommand.Checked(findings: findings, models: ModelCommand.distinct(model.entities.filter { synced.contains($0.name) }.map(\.name)), files: model.files))
        return errors > 0 ? ExitCode.rejectedInput : ExitCode.success
    }
}
