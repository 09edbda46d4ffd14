import CKCore
import CKServe

/// `ck serve`: CloudKit Web Services over HTTP on the store the command line uses (docs/serve.md).
enum ServeCommand {
    static let spec = CommandSpec(
        "serve", summary: "Serve the store over HTTP as CloudKit Web Services.",
        discussion: "Not built yet.",
        options: [
            OptionSpec("host", value: "address", help: "Address to listen on (default: 127.0.0.1, loopback only)."),
            OptionSpec("port", value: "n", help: "Port to listen on; 0 picks a free one (default: 8090).", rule: .integer(min: 0)),
        ],
        subcommands: [ServeTokenCommand.spec, ServeKeyCommand.spec, ServeLogCommand.spec],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        throw UsageError("ck serve is not built yet", command: inv.command.path)
    }
}
