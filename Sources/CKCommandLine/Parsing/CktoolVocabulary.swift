import CKCore

/// cktool's words met on ck's own commands (`ck query-records`, `ck query --sort-by`): what ck calls the same
/// thing, so a user coming from cktool gets pointed at ck's word, or at `ck cktool`, rather than at a near spelling.
enum CktoolVocabulary {
    /// cktool options and the ck options (global or the command's) that mean the same, tried in order.
    static let options: [String: [String]] = [
        "environment": ["env"],
        "database-type": ["db"],
        "container-id": ["container"],
        "zone-name": ["zone"],
        "sort-by": ["sort"],
        "output-file": ["file"],
        "record-name": ["name"],
        "requested-fields": ["keys"],
        "continuation-token": ["cursor"],
        "asset-files": ["asset-file"],
    ]

    /// cktool options whose value ck takes as a positional argument, by the argument's name.
    static let arguments: [String: [String]] = [
        "record-type": ["record-type"],
        "record-name": ["name", "record-name"],
        "file": ["file"],
    ]

    /// ck's commands and the cktool verb that does the same under `ck cktool`.
    static let verbs: [String: String] = [
        "ck query": "query-records",
        "ck record save": "create-record",
        "ck record delete": "delete-record",
        "ck schema export": "export-schema",
        "ck schema import": "import-schema",
        "ck schema validate": "validate-schema",
        "ck schema reset": "reset-schema",
    ]

    /// The suggestion for cktool's option `--name` given to `cmd`, or nil when ck has nothing better than a near
    /// spelling.
    static func suggestion(option name: String, _ cmd: CommandSpec, _ globals: [OptionSpec], root: CommandSpec) -> String? {
        let cktool = root.subcommand("cktool")
        guard options[name] != nil || arguments[name] != nil || name == "team-id" || name == "token",
              cmd.path != "ck cktool", !cmd.path.hasPrefix("ck cktool ") else { return nil }
        // Where cktool's own verb for this command takes the option, say so: the user's line may be a cktool one.
        let verb = verbs[cmd.path].flatMap { v in cktool?.subcommand(v)?.option(long: name) != nil ? v : nil }
        let tail = " ('--\(name)' is cktool's" + (verb.map { "; 'ck cktool \($0)' takes it)" } ?? ")")
        let all = (cmd.options + globals).filter { !$0.hidden }
        if let spec = options[name]?.lazy.compactMap({ o in all.first { $0.long == o } }).first {
            return "; did you mean '" + (spec.short.map { "-\($0)/" } ?? "") + "--\(spec.long)'?" + tail
        }
        if let arg = arguments[name]?.first(where: { a in cmd.arguments.contains { $0.name == a } }) {
            return "; '\(cmd.path)' takes it as its argument <\(arg)>" + tail
        }
        if name == "output-file", cmd.run != nil { return "; '\(cmd.path)' prints on stdout: redirect it ('> <file>')" + tail }
        if name == "team-id" || name == "token" { return "; ck needs no team or token ('ck cktool' accepts and ignores them)" }
        return verb.map { "; use 'ck cktool \($0)' for cktool's options" }
    }

    /// The suggestion for a cktool verb typed as a ck command (`ck query-records`), or nil.
    /// With `near`, a verb one slip away (`query-recrds`) counts too.
    static func suggestion(command name: String, root: CommandSpec, near: Bool = false) -> String? {
        guard root.parent == nil, let cktool = root.subcommand("cktool") else { return nil }
        let verb = cktool.subcommand(name)?.name ?? (near ? Names.closest(to: name, among: cktool.subcommands.map(\.name)) : nil)
        return verb.map { "did you mean 'ck cktool \($0)'? ('\($0)' is cktool's)" }
    }
}
