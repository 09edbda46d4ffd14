import CKCore

/// cktool's schema verbs over ck's schema operations (the .ckdb language, import rules and reset).
extension CktoolCommand {
    static let fileOption = OptionSpec("file", value: "file", help: "Schema file (.ckdb).", completion: .file)

    static let exportSchema = verb(
        "export-schema", summary: "Print the schema in cktool's .ckdb export layout, or write it to --output-file.",
        required: [teamID, containerID, environment],
        optional: [OptionSpec("output-file", value: "output-file", help: "Write here instead of stdout.", completion: .file), token],
        run: { inv in
            let text = CKDB.print(try target(inv).schema(try inv.environment()))
            try inv.writeDocument(text, to: inv.parsed.value("output-file"))
            return ExitCode.success
        })

    static let importSchema = verb(
        "import-schema", summary: "Make a .ckdb file the development schema; prints nothing on success.",
        discussion: "As cktool: development only (production answers 'endpoint not applicable in the environment'), and a change that would lose data production has is refused, changing nothing.",
        required: [teamID, containerID, environment, fileOption],
        optional: [OptionSpec("validate", help: "Validate the file first; a failed validation imports nothing."), token],
        run: { inv in
            let container = try target(inv)
            let env = try inv.environment()
            let (schema, label, _) = try SchemaCommand.readSchema(path: inv.parsed.value(fileOption.long) ?? "", inv)
            if inv.parsed.flag("validate") { _ = try container.validateImport(schema, file: label, environment: env) }
            _ = try container.importSchema(schema, file: label, environment: env)
            return ExitCode.success
        })

    static let validateSchema = verb(
        "validate-schema", summary: "Check a .ckdb file offline, with cktool's 'Schema is valid.' and 'Schema validation failed' lines.",
        required: [teamID, containerID, environment, fileOption], optional: [token],
        run: { inv in
            let container = try target(inv)
            do {
                let (schema, label, _) = try SchemaCommand.readSchema(path: inv.parsed.value(fileOption.long) ?? "", inv)
                _ = try container.validateImport(schema, file: label, environment: try inv.environment())
            } catch let e as CKError {
                inv.terminal.writeErr("❌ Schema validation failed: " + ErrorReport.printable(e.reason) + "\n")
                return ExitCode.failure
            }
            inv.line("✅ Schema is valid.")
            return ExitCode.success
        })

    static let resetSchema = verb(
        "reset-schema", summary: "Reset development to production's schema and delete all development data.",
        discussion: "As cktool: no confirmation is asked and there is no --environment; only development is reset.",
        required: [teamID, containerID], optional: [token],
        run: { inv in
            _ = try target(inv).resetDevelopment()
            return ExitCode.success
        })
}
