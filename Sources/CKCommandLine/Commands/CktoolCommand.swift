import CKCore

/// cktool's own commands, as Xcode's cktool(1) documents them, over ck's store: `ck cktool <verb>`, or `cktool <verb>`
/// when ck runs under that name (a link or copy). The verbs reuse ck's operations; only their options, output and
/// exit codes are cktool's.
enum CktoolCommand {
    static let spec = CommandSpec(
        "cktool", summary: "cktool's commands (export-schema, create-record, query-records, …) against ck's store.",
        discussion: """
        Runs cktool's verbs with cktool's options, output and exit codes (0 success, 1 failed, 64 incorrect invocation), against ck's store instead of iCloud. A link or copy of ck named 'cktool' is the same as 'ck cktool', so a script written for 'xcrun cktool' runs unchanged with cktool on PATH and a one-line xcrun wrapper (see docs/cktool.md).

        --container-id names ck's container, created on first use. --environment and --database-type pick the environment and database. Tokens and team IDs are accepted and ignored, with a note on stderr: no account exists offline. Records are read and written as ck's default user (or --as / CK_USER), with ck's permissions, indexes and query rules.
        """,
        examples: [("ck cktool get-teams", "The one offline team."),
                   ("ck cktool export-schema --team-id ABC1234567 --container-id iCloud.com.example.App --environment development", "Print the development schema (a link named cktool runs the same without 'ck').")],
        subcommands: [saveToken, removeToken, getTeams, exportSchema, importSchema, validateSchema, resetSchema,
                      createRecord, queryRecords, deleteRecord, deleteRecords])

    /// Whether ck was started under cktool's name.
    static func isProgram(_ path: String) -> Bool { path.split(separator: "/").last == "cktool" }

    /// cktool's exit codes for a command under `ck cktool`: 0, 64 for an incorrect invocation, 1 for any other failure.
    static func exitCode(_ code: Int32, command: CommandSpec) -> Int32 {
        guard code != ExitCode.success, code != ExitCode.usage, command === spec || command.parent === spec else { return code }
        return ExitCode.failure
    }

    // MARK: Options (cktool's names)

    static let token = OptionSpec("token", short: "t", value: "token", help: "A CloudKit token: accepted and ignored (no account exists offline).")
    static let teamID = OptionSpec("team-id", value: "team-id", help: "Apple Developer team: accepted and ignored.")
    static let containerID = OptionSpec("container-id", value: "container-id", help: "Container, e.g. iCloud.com.example.App; created on first use.", completion: .container)
    static let environment = OptionSpec("environment", value: "environment", help: "development or production.",
                                        choices: Environment.allCases.map(\.rawValue))
    static let databaseType = OptionSpec("database-type", value: "database-type", help: "public, shared or private.",
                                         choices: ["public", "shared", "private"])
    static let zoneName = OptionSpec("zone-name", value: "zone-name", help: "Zone (default: _defaultZone).", completion: .zone)
    static let recordType = OptionSpec("record-type", value: "record-type", help: "Record type.", completion: .recordType)
    /// query-records' and delete-records' --record-type: optional in cktool's synopsis, but a query needs one.
    static let queriedType = OptionSpec("record-type", value: "record-type", help: "Record type to query (needed: CloudKit queries one type at a time).",
                                        completion: .recordType)
    static let filters = OptionSpec("filters", value: "filters", help: "Filter \"FIELD OP VALUE\", e.g. \"latteCost > 4.60\" (repeatable).", repeatable: true)
    static let yes = OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")

    /// A verb: required options are marked in help and checked before it runs, then ignored account options noted.
    static func verb(_ name: String, summary: String, discussion: String = "", arguments: [ArgumentSpec] = [],
                     required: [OptionSpec], optional: [OptionSpec] = [], examples: [(String, String)] = [],
                     run: @escaping (Invocation) throws -> Int32) -> CommandSpec {
        let marked = required.map { o -> OptionSpec in
            var m = o
            m.help = "Required. " + o.help
            return m
        }
        return CommandSpec(name, summary: summary, discussion: discussion, arguments: arguments, options: marked + optional,
                           examples: examples) { inv in
            if let missing = required.first(where: { inv.parsed.value($0.long) == nil }) {
                throw UsageError("missing expected argument '--\(missing.long) <\(missing.valueName ?? missing.long)>'", command: inv.command.path)
            }
            if inv.positionals.count > arguments.count, let extra = inv.positionals.dropFirst(arguments.count).first {
                throw UsageError("unexpected argument '\(extra)'", command: inv.command.path)
            }
            let ignored = ["team-id", "token"].filter { inv.parsed.value($0) != nil }
            if !ignored.isEmpty {
                inv.note("cktool mode: " + ignored.map { "--" + $0 }.joined(separator: " and ") + " accepted and ignored (no account exists offline)")
            }
            return try run(inv)
        }
    }

    /// Points ck's global settings at cktool's target (creating the container on first use) and returns it.
    /// cktool's zone defaults to _defaultZone whatever CK_ZONE says, as cktool knows no CK_ZONE.
    @discardableResult
    static func target(_ inv: Invocation) throws -> CKContainer {
        guard let id = inv.parsed.value(containerID.long) else {
            throw UsageError("missing expected argument '--container-id <container-id>'", command: inv.command.path)
        }
        inv.overrides["container"] = id
        inv.overrides["env"] = inv.parsed.value(environment.long) ?? Environment.development.rawValue
        if let db = inv.parsed.value(databaseType.long) { inv.overrides["db"] = db }
        inv.overrides["zone"] = inv.parsed.value(zoneName.long) ?? Names.defaultZoneName
        if try inv.store().ensureContainer(id) { inv.note("created container \(id) (cktool's containers exist before they are used)") }
        return try inv.container()
    }
}
