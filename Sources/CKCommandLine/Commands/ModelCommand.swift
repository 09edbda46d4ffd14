import CKCore

/// `ck model check|schema|diff`: SwiftData and Core Data models read from source, checked against CloudKit's
/// rules and mapped to the schema NSPersistentCloudKitContainer mirrors them to.
enum ModelCommand {
    static let pathsArgument = ArgumentSpec("path", help: "Swift files, .xcdatamodeld bundles, .xcdatamodel folders or folders to search.",
                                            repeatable: true, completion: .file)
    static let modelsOption = OptionSpec("models", value: "A,B", help: "Only these models sync (the classes a CloudKit ModelConfiguration lists).")
    static let modeOption = OptionSpec("mode", value: "mode", help: "jit (default): what syncing every attribute once creates; initialize: what initializeCloudKitSchema creates.",
                                       choices: ModelSchemaMode.allCases.map(\.rawValue))

    static let spec = CommandSpec(
        "model", summary: "Check SwiftData and Core Data models against CloudKit's rules; generate their schema.",
        discussion: """
        ck reads @Model classes in Swift sources (nested in VersionedSchema enums too) and Core Data models (.xcdatamodeld, .xcdatamodel/contents), and checks them against the rules of Core Data's CloudKit model validator: the checks a signed build makes at launch, which the simulator skips. It is a source reader, not a compiler: what it can't resolve (a type declared in a file not given, an unknown macro) is a warning naming it, never a guess.

        A model maps to CD_<Entity> record types in the zone com.apple.coredata.cloudkit.zone: CD_<attribute> fields, to-one relationships as STRING record names, many-to-many links as CDMR records. See 'ck help model' and docs/model.md.
        """,
        examples: [("ck model check Sources/Models", "Report every rule CloudKit would refuse, with file:line:column and a fix."),
                   ("ck model schema Sources/Models --import", "Load the model's development schema, then 'ck schema deploy'."),
                   ("ck model diff Sources/Models --against production", "What the model adds, and what production no longer lets it change.")],
        subcommands: [
            CommandSpec("check", summary: "Report what CloudKit's model validator would refuse; exit 8 on any error.",
                        discussion: "Findings print as file:line:column: severity, the rule, the validator's message and a fix; -o json lists them. Errors are what CloudKit refuses (the store would fail to load); warnings are what a source reader can't settle.",
                        arguments: [pathsArgument], options: [modelsOption], run: ModelCheckCommand.run),
            CommandSpec("schema", summary: "Print the .ckdb schema the model produces in development.",
                        discussion: "The layout is cktool's export-schema. Problems found print on stderr; with errors the exit code is 8 and --import changes nothing.",
                        arguments: [pathsArgument],
                        options: [modeOption, modelsOption,
                                  OptionSpec("import", help: "Make it the development schema (as 'ck schema import') and create the zone com.apple.coredata.cloudkit.zone."),
                                  OptionSpec("file", value: "file", help: "Write the schema to <file> instead of stdout.", completion: .file)],
                        run: ModelSchemaCommand.run),
            CommandSpec("diff", summary: "Compare the model's schema with an export or production: what it adds, what it can't change.",
                        discussion: "Production is additive only: a field it has can't be retyped (! lines, exit 8) and a field the model no longer has stays (- lines). + lines are what deploying the model's schema adds.",
                        arguments: [pathsArgument],
                        options: [OptionSpec("against", value: "file|environment", help: "A .ckdb export, or production or development of the container.", completion: .file),
                                  modeOption, modelsOption],
                        run: ModelDiffCommand.run),
        ])

    /// Reads the paths given, and the set of models that sync.
    static func load(_ inv: Invocation) throws -> (DataModel, Set<String>) {
        guard !inv.positionals.isEmpty else { throw UsageError("expected one or more paths to model files", command: inv.command.path) }
        let model = DataModel.load(paths: inv.positionals, workingDirectory: inv.terminal.workingDirectory)
        let names = inv.parsed.value("models").map { $0.split(separator: ",").map { String($0).trimmingBlanks } }
        return (model, try model.syncedEntities(models: names))
    }

    /// Names once each, in order: a Core Data mirror of a SwiftData model is one model, not two.
    static func distinct(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    static func mode(_ inv: Invocation) -> ModelSchemaMode {
        inv.parsed.value("mode").flatMap(ModelSchemaMode.init(rawValue:)) ?? .jit
    }

    /// `file:line:column: severity: summary [rule]`, as compilers print.
    static func headline(_ f: ModelFinding) -> String {
        "\(f.location): \(f.severity.rawValue): \(f.summary) [\(f.rule)]"
    }

    /// Findings of a command that prints something else on stdout go to stderr; returns whether any is an error.
    static func reportOnStderr(_ findings: [ModelFinding], _ inv: Invocation) -> Bool {
        for f in findings where f.severity == .error || !inv.quiet {
            inv.terminal.writeErr("ck: " + headline(f) + "\n")
        }
        return findings.contains { $0.severity == .error }
    }
}
