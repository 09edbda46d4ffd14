import CKCore
import Foundation

enum SchemaCommand {
    static let spec = CommandSpec(
        "schema", summary: "Show, export, import, validate, diff, deploy and reset the schema.",
        discussion: """
        Each environment has its own schema. Development grows just in time: the first save of a type or field creates it. Production never changes from a save; 'ck schema deploy' copies development's record types, fields, indexes, grants and roles to it, never records, and refuses to remove or retype anything production has.

        Schema files use CloudKit's schema language (.ckdb), as cktool's export-schema and import-schema do; 'ck schema export' writes exactly cktool's layout. Indexes: QUERYABLE (equality), SORTABLE (range and sort), SEARCHABLE (tokens). Development indexes user fields automatically, but never the system fields ___recordID, ___createTime, ___modTime, ___createdBy and ___modifiedBy: add those with 'ck schema index'.
        """,
        examples: [("ck schema export --file schema.ckdb", "Write the development schema as cktool would."),
                   ("ck schema import schema.ckdb", "Make the file the development schema."),
                   ("ck schema deploy -y", "Copy development's schema to production."),
                   ("ck schema index Note ___recordID --queryable", "Let queries list Note records without a filter.")],
        subcommands: [
            CommandSpec("show", summary: "Show record types, or one type's fields and indexes.",
                        arguments: [ArgumentSpec("record-type", help: "Show only this type.", optional: true, completion: .recordType)],
                        run: show),
            CommandSpec("export", summary: "Print the schema in the .ckdb language (cktool's export layout).",
                        options: [OptionSpec("file", value: "file", help: "Write to <file> instead of stdout.", completion: .file)],
                        run: export),
            CommandSpec("import", summary: "Make a .ckdb file the development schema.",
                        discussion: "Development only, as cktool (production answers 'endpoint not applicable in the environment'). Types and fields missing from the file are removed from development, unless production has them: then nothing changes and each conflict is listed.",
                        arguments: [ArgumentSpec("file", help: "Schema file ('-' for stdin).", completion: .file)],
                        options: [OptionSpec("validate", help: "Validate first, as cktool's --validate; a failed validation changes nothing.")],
                        run: importSchema),
            CommandSpec("validate", summary: "Check a .ckdb file offline: syntax and the rules import applies.",
                        arguments: [ArgumentSpec("file", help: "Schema file ('-' for stdin).", completion: .file)],
                        run: validate),
            CommandSpec("diff", summary: "What deploy would change: the differences between two environments.",
                        options: [OptionSpec("from", value: "environment", help: "Source (default: development).", choices: Environment.allCases.map(\.rawValue)),
                                  OptionSpec("to", value: "environment", help: "Target (default: production).", choices: Environment.allCases.map(\.rawValue))],
                        run: diff),
            CommandSpec("deploy", summary: "Copy development's schema to production (never records).",
                        options: [OptionSpec("dry-run", help: "Show what would change; change nothing."),
                                  OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")],
                        run: deploy),
            CommandSpec("reset", summary: "Reset development to production's schema and delete all development data.",
                        discussion: "As cktool reset-schema: the development schema becomes a copy of production's (with no production schema, all types go) and every development record, zone and asset is deleted.",
                        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")],
                        run: reset),
            CommandSpec("index", summary: "Add or remove indexes of a field in development.",
                        discussion: "System fields are indexed by name: ___recordID (recordName), ___createTime (creationDate), ___modTime (modificationDate), ___createdBy, ___modifiedBy. With --remove and no index named, all of the field's indexes go.",
                        arguments: [ArgumentSpec("record-type", help: "Record type.", completion: .recordType),
                                    ArgumentSpec("field", help: "Field name, or a system field such as ___recordID.", completion: .indexField)],
                        options: [OptionSpec("queryable", help: "Equality index."),
                                  OptionSpec("sortable", help: "Range and sort index."),
                                  OptionSpec("searchable", help: "Token (full-text) index; STRING fields only."),
                                  OptionSpec("remove", help: "Remove the named indexes instead of adding them.")],
                        run: index),
            CommandSpec("fmt", summary: "Rewrite a .ckdb file in the canonical export layout.",
                        arguments: [ArgumentSpec("file", help: "Schema file ('-': read stdin, print to stdout).", completion: .file)],
                        options: [OptionSpec("check", help: "Change nothing; exit 1 if the file is not in canonical layout.")],
                        run: fmt),
        ])

    /// Reads and parses a schema file argument.
    static func readSchemaFile(_ inv: Invocation) throws -> (Schema, String, String) {
        try readSchema(path: try inv.single("schema file"), inv)
    }

    /// Reads and parses a schema file ('-' for stdin); returns the schema, its label and its text.
    static func readSchema(path: String, _ inv: Invocation) throws -> (Schema, String, String) {
        let bytes = try inv.readInput(path, what: "the schema (.ckdb)", limit: InputLimit.text, limitName: "the most ck reads for a schema file")
        let label = path == "-" ? "<stdin>" : path
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw CKError(.invalidArguments, "\(label): not UTF-8 text")
        }
        return (try CKDB.parse(text, file: label), label, text)
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one record type", command: inv.command.path) }
        let env = try inv.environment()
        let schema = try inv.container().schema(env)
        if let name = inv.positionals.first {
            guard let t = schema.recordTypes[name] ?? (name == "Users" ? Schema.defaultUsersType : nil) else {
                throw CKError(.unknownItem, "Did not find record type: \(name) in the \(env.rawValue) schema")
            }
            var fields = t.fields
            for (sys, type) in RecordTypeSchema.systemFields where fields[sys] == nil { fields[sys] = FieldSchema(type: type) }
            let names = fields.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            try inv.emit(TypeShown(name: name, fields: names.compactMap { n in fields[n].map { (n, $0) } }, grants: t.normalizedGrants))
            return ExitCode.success
        }
        let names = schema.recordTypes.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        try inv.emit(Types(environment: env, roles: schema.roles, types: names.compactMap { n in schema.recordTypes[n].map { (n, $0) } }))
        return ExitCode.success
    }

    static func indexList(_ f: FieldSchema) -> String {
        let i = [f.queryable ? "QUERYABLE" : nil, f.searchable ? "SEARCHABLE" : nil, f.sortable ? "SORTABLE" : nil].compactMap { $0 }
        return i.isEmpty ? "-" : i.joined(separator: " ")
    }

    static func export(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("export takes no arguments; use --file", command: inv.command.path) }
        let text = CKDB.print(try inv.container().schema(try inv.environment()))
        try inv.writeDocument(text, to: inv.parsed.value("file"))
        return ExitCode.success
    }

    static func importSchema(_ inv: Invocation) throws -> Int32 {
        let (schema, label, _) = try readSchemaFile(inv)
        let container = try inv.container()
        let env = try inv.environment()
        if inv.parsed.flag("validate") { _ = try container.validateImport(schema, file: label, environment: env) }
        let changes = try container.importSchema(schema, file: label, environment: env)
        try inv.emit(Changes(changes: changes, none: "Schema unchanged."))
        return ExitCode.success
    }

    static func validate(_ inv: Invocation) throws -> Int32 {
        let (schema, label, _) = try readSchemaFile(inv)
        let changes = try inv.container().validateImport(schema, file: label, environment: .development)
        try inv.emit(Valid(changes: changes.count))
        return ExitCode.success
    }

    static func environmentOption(_ inv: Invocation, _ name: String, default d: Environment) -> Environment {
        inv.parsed.value(name).flatMap(Environment.init(rawValue:)) ?? d
    }

    static func diff(_ inv: Invocation) throws -> Int32 {
        let from = environmentOption(inv, "from", default: .development), to = environmentOption(inv, "to", default: .production)
        let d = try inv.container().schemaDiff(from: from, to: to)
        try inv.emit(Changes(changes: d.changes, none: "No differences: \(to.rawValue) matches \(from.rawValue).",
                             compared: (from, to, d.conflicts)))
        return ExitCode.success
    }

    static func deploy(_ inv: Invocation) throws -> Int32 {
        let container = try inv.container()
        let dryRun = inv.parsed.flag("dry-run")
        let planned = try container.deploySchema(dryRun: true)
        if planned.isEmpty {
            try inv.emit(Changes(changes: [], none: "Nothing to deploy: production matches development."))
            return ExitCode.success
        }
        // On a terminal the list goes with the question (confirm asks only there).
        let asked = !dryRun && !inv.parsed.flag("yes") && inv.terminal.stdinIsTTY
        if asked {
            inv.terminal.writeErr(planned.map { $0.summary + "\n" }.joined())
            if !inv.confirm("Deploy \(planned.count) change\(planned.count == 1 ? "" : "s") to production?") {
                inv.note("nothing deployed")
                return ExitCode.failure
            }
        }
        let changes = dryRun ? planned : try container.deploySchema()
        try inv.emit(Changes(changes: changes, none: "", deployed: dryRun, listed: asked && changes == planned))
        return ExitCode.success
    }

    static func reset(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("reset takes no arguments", command: inv.command.path) }
        let container = try inv.container()
        if !inv.parsed.flag("yes") && !inv.confirm("Reset the development schema of \(container.identifier) to production's and delete all development data?") {
            inv.note("nothing reset")
            return ExitCode.failure
        }
        let deleted = try container.resetDevelopment()
        try inv.emit(Reset(deletedRecords: deleted))
        return ExitCode.success
    }

    static func index(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count == 2 else { throw UsageError("expected <record-type> <field>", command: inv.command.path) }
        let change = try inv.container().setIndexes(
            recordType: inv.positionals[0], field: inv.positionals[1], queryable: inv.parsed.flag("queryable"),
            sortable: inv.parsed.flag("sortable"), searchable: inv.parsed.flag("searchable"),
            remove: inv.parsed.flag("remove"), environment: try inv.environment())
        try inv.emit(Changes(changes: change.map { [$0] } ?? [], none: "Indexes unchanged."))
        return ExitCode.success
    }

    static func fmt(_ inv: Invocation) throws -> Int32 {
        let (schema, label, original) = try readSchemaFile(inv)
        let canonical = CKDB.print(schema)
        if inv.parsed.flag("check") {
            if canonical == original { return ExitCode.success }
            inv.terminal.writeErr("ck: \(label) is not in canonical layout (run 'ck schema fmt \(label)')\n")
            return ExitCode.failure
        }
        let path = inv.positionals[0]
        if path == "-" { inv.out(canonical); return ExitCode.success }
        if canonical != original {
            try inv.writeFile(Array(canonical.utf8), to: path)
            inv.note("reformatted \(path)")
        }
        return ExitCode.success
    }
}
