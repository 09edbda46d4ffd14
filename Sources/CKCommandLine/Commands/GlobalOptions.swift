import CKCore

/// Options every command takes; a flag beats its environment variable, which beats the store's default.
enum GlobalOptions {
    static let all: [OptionSpec] = [
        OptionSpec("data-dir", value: "dir", help: "Use the store at <dir> (env CK_DATA_DIR; default: nearest .ck/, else ~/.local/share/ck).", completion: .directory),
        OptionSpec("container", short: "c", value: "id", help: "Container to use (env CK_CONTAINER; default: the store's current container).", completion: .container),
        OptionSpec("env", short: "e", value: "environment", help: "Environment (env CK_ENV; default: development).", choices: Environment.allCases.map(\.rawValue)),
        OptionSpec("db", value: "database", help: "Database (env CK_DB; default: private).", choices: DatabaseScope.allCases.map(\.rawValue)),
        OptionSpec("zone", short: "z", value: "zone", help: "Record zone (env CK_ZONE; default: _defaultZone).", completion: .zone),
        OptionSpec("as", value: "user", help: "Act as this iCloud user, by name (env CK_USER; default: default).", completion: .user),
        OptionSpec("anonymous", help: "Act with no iCloud account: the public database can be read, nothing else."),
        OptionSpec("output", short: "o", value: "format", help: "Output format: table on a terminal, plain when piped (env CK_OUTPUT).", choices: OutputFormat.allCases.map(\.rawValue)),
        OptionSpec("quiet", short: "q", help: "Print no progress or notes on stderr (errors still print)."),
        OptionSpec("no-color", help: "Never colour output (also NO_COLOR)."),
        OptionSpec("help", short: "h", help: "Show help for the command."),
        OptionSpec("version", help: "Show the version of ck."),
    ]

    /// The global options a command's help and manual page name in one line (all but hidden ones, --help and
    /// --version): read from `all`, so an option added there is listed everywhere.
    static func perCommand(_ options: [OptionSpec] = all) -> [OptionSpec] {
        options.filter { !$0.hidden && $0.long != "help" && $0.long != "version" }
    }

    /// `-c/--container`, `--db`: how the one-line list spells an option.
    static func spelling(_ o: OptionSpec) -> String { (o.short.map { "-\($0)/" } ?? "") + "--" + o.long }

    /// Environment variables ck reads, with what they set.
    static let environmentVariables: [(name: String, meaning: String)] = [
        ("CK_DATA_DIR", "store root, as --data-dir"),
        ("CK_CONTAINER", "container identifier, as --container"),
        ("CK_ENV", "environment, as --env"),
        ("CK_DB", "database, as --db"),
        ("CK_ZONE", "zone, as --zone"),
        ("CK_USER", "acting user, as --as"),
        ("CK_OUTPUT", "output format, as --output"),
        ("NO_COLOR", "when set, no colour (as --no-color)"),
        ("CK_INDEX", "off: no .index.sqlite; reads fold whole logs (same answers)"),
        ("CK_NOW", "fixes now for one command (ms since 1970 or ISO 8601)"),
        ("CK_LOCK_TIMEOUT", "seconds to wait for a store lock (default 300)"),
        ("XDG_DATA_HOME", "the user store is $XDG_DATA_HOME/ck (default ~/.local/share/ck)"),
    ]
}
