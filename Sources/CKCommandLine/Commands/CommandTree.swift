import CKCore

/// The one description of ck's commands: help, `ck help`, man pages and completions all read it.
public enum CommandTree {
    public static let version = "0.1.0"

    public static let root = CommandSpec(
        "ck", summary: "A local, offline emulator of Apple CloudKit.",
        discussion: "ck keeps an emulated CloudKit container on disk as JSON files, one tree per environment, and answers as CloudKit does — refusals included. No Apple account, token or network is needed.",
        examples: [("ck record save Note title=\"Hello CloudKit\"", "Save a record into the default store with no set-up."),
                   ("ck help exit-codes", "What each exit code means.")],
        lazySubcommands: commands)

    /// The top-level commands by name, each built when a command line first reaches it (`CommandTreeTests`
    /// checks that every name is its spec's).
    static let commands: [LazySubcommand] = [
        LazySubcommand("init") { InitCommand.spec }, LazySubcommand("container") { ContainerCommand.spec },
        LazySubcommand("zone") { ZoneCommand.spec }, LazySubcommand("record") { RecordCommand.spec },
        LazySubcommand("asset") { AssetCommand.spec }, LazySubcommand("query") { QueryCommand.spec },
        LazySubcommand("subscription") { SubscriptionCommand.spec }, LazySubcommand("notification") { NotificationCommand.spec },
        LazySubcommand("changes") { ChangesCommand.spec }, LazySubcommand("sync") { SyncCommand.spec },
        LazySubcommand("share") { ShareCommand.spec },
        LazySubcommand("device") { DeviceCommand.spec }, LazySubcommand("user") { UserCommand.spec },
        LazySubcommand("account") { AccountCommand.spec }, LazySubcommand("role") { RoleCommand.spec },
        LazySubcommand("quota") { QuotaCommand.spec }, LazySubcommand("fault") { FaultCommand.spec },
        LazySubcommand("clock") { ClockCommand.spec },
        LazySubcommand("kv") { KVCommand.spec }, LazySubcommand("schema") { SchemaCommand.spec },
        LazySubcommand("cktool") { CktoolCommand.spec }, LazySubcommand("model") { ModelCommand.spec },
        LazySubcommand("export") { FixturesCommands.export }, LazySubcommand("import") { FixturesCommands.importSpec },
        LazySubcommand("exec") { ExecCommand.spec }, LazySubcommand("serve") { ServeCommand.spec }, LazySubcommand("gc") { GCCommand.spec },
        LazySubcommand("doctor") { DoctorCommand.spec }, LazySubcommand("help") { HelpCommand.spec },
        LazySubcommand("man") { ManCommand.spec }, LazySubcommand("completion") { CompletionCommand.spec },
        LazySubcommand("__complete") { CompletionCommand.completeSpec },
    ]

    /// Global options, for renderers outside this module.
    public static var globalOptions: [OptionSpec] { GlobalOptions.all }
}
