import CKCore

/// `ck model schema <paths…> [--mode] [--models] [--import] [--file]`: the model's development schema as .ckdb.
enum ModelSchemaCommand {
    /// The zone NSPersistentCloudKitContainer mirrors into, in the private database.
    static let coreDataZone = "com.apple.coredata.cloudkit.zone"

    static func run(_ inv: Invocation) throws -> Int32 {
        let (model, synced) = try ModelCommand.load(inv)
        let findings = ModelChecker.check(model, synced: synced)
        let schema = ModelSchemaMapper.schema(model, synced: synced, mode: ModelCommand.mode(inv))
        let failed = ModelCommand.reportOnStderr(findings, inv)
        guard inv.parsed.flag("import") else {
            try inv.writeDocument(CKDB.print(schema), to: inv.parsed.value("file"))
            return failed ? ExitCode.rejectedInput : ExitCode.success
        }
        if failed {
            throw CKError(.invalidArguments, "the model breaks CloudKit's rules (listed above); nothing imported",
                          hint: "fix the errors 'ck model check' reports, then import again")
        }
        let container = try inv.container()
        // The zone is the acting user's, created as that caller (account status and all) in the same operation as
        // the schema: a crash leaves both or neither.
        let (changes, created) = try container.importModelSchema(schema, file: "the model's schema", zone: coreDataZone, as: try inv.caller())
        if inv.parsed.value("file") != nil { try inv.writeDocument(CKDB.print(schema), to: inv.parsed.value("file")) }
        try inv.emit(SchemaCommand.Changes(changes: changes, none: "Schema unchanged."))
        if created { inv.note("created zone \(coreDataZone) in the private database of \(inv.user)") }
        return ExitCode.success
    }
}
