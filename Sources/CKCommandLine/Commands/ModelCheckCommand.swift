import CKCore

/// `ck model check <paths…>`: every finding, with its position, rule, the validator's message and a fix.
enum ModelCheckCommand {
    static func run(_ inv: Invocation) throws -> Int32 {
        let (model, synced) = try ModelCommand.load(inv)
        let findings = ModelChecker.check(model, synced: synced)
        let errors = findings.filter { $0.severity == .error }.count
        let warnings = findings.count - errors
        switch try inv.outputFormat() {
        case .json:
            inv.line(JSON.object(["findings": .array(findings.map(\.json)), "errors": .int(Int64(errors)), "warnings": .int(Int64(warnings)),
                                  "models": .array(model.entities.filter { synced.contains($0.name) }.map { .string($0.name) }),
                                  "files": .array(model.files.map { .string($0) })]).pretty())
        case .jsonl:
            for f in findings { inv.line(f.json.serialized()) }
        case .plain, .name:
            for f in findings {
                inv.line([f.location.description, f.severity.rawValue, f.rule, f.subject, f.summary, f.message ?? "", f.fix ?? ""]
                    .map(RecordText.escape).joined(separator: "\t"))
            }
        case .table:
            for f in findings {
                inv.line(ModelCommand.headline(f))
                if let m = f.message { inv.line("  CloudKit: " + m) }
                if let fix = f.fix { inv.line("  fix: " + fix) }
            }
            let models = synced.count
            let scope = "\(models) model\(models == 1 ? "" : "s") in \(model.files.count) file\(model.files.count == 1 ? "" : "s")"
            if findings.isEmpty {
                inv.line("No problems: \(scope).")
            } else {
                inv.line("\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s"): \(scope).")
            }
        }
        return errors > 0 ? ExitCode.rejectedInput : ExitCode.success
    }
}
