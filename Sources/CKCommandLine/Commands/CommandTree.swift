import CKCore

/// The one description of ck's commands: help, `ck help`, man pages and completions all read it.
public enum CommandTree {
    public static let version = "0.1.0"

    public static let root = CommandSpec(
        "ck", summary: "A local, offline emulator of Apple CloudKit.",
        discussion: "ck keeps an emulated CloudKit container on disk as JSON files, one tree per environment, and answers as CloudKit does — refusals included. No Apple account, token or network is needed.",
        examples: [("ck record save Note title=\"Hello CloudKit\"", "Save a record into the default store with no set-up."),
                   ("ck help exit-codes", "What each exit code means.")],
        subcommands: [InitCommand.spec, ContainerCommand.spec, ZoneCommand.spec, RecordCommand.spec, AssetCommand.spec, QueryCommand.spec,
                      SubscriptionCommand.spec, NotificationCommand.spec, ChangesCommand.spec, SyncCommand.spec, DeviceCommand.spec,
                      UserCommand.spec, AccountCommand.spec, RoleCommand.spec, QuotaCommand.spec, FaultCommand.spec, KVCommand.spec,
                      SchemaCommand.spec, CktoolCommand.spec, ModelCommand.spec, FixturesCommands.export, FixturesCommands.importSpec, ExecCommand.spec, GCCommand.spec, DoctorCommand.spec,
                      HelpCommand.spec, ManCommand.spec, CompletionCommand.spec, CompletionCommand.completeSpec])

    /// Global options, for renderers outside this module.
    public static var globalOptions: [OptionSpec] { GlobalOptions.all }
}
