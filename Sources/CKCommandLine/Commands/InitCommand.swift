import CKCore
import CKFiles

enum InitCommand {
    static let spec = CommandSpec(
        "init", summary: "Create a project store (.ck/) in a directory, like git init.",
        discussion: "Creates <dir>/.ck (default: the current directory) with a default container. Commands run in <dir> or below it then use that store. With no <dir> and --data-dir or CK_DATA_DIR set, the store is created at exactly that path.",
        arguments: [ArgumentSpec("dir", help: "Directory to hold the .ck store (default: current directory).", optional: true, completion: .directory)],
        examples: [("ck init", "Make a store for this project in ./.ck.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("init takes at most one directory", command: "ck init") }
        let path: String
        if inv.positionals.isEmpty, let dataDir = inv.setting("data-dir", env: "CK_DATA_DIR") {
            path = StoreLocation.resolve(dataDir: dataDir, environment: [:], workingDirectory: inv.terminal.workingDirectory).path
        } else {
            let dir = inv.positionals.first ?? "."
            let base = dir.hasPrefix("/") ? dir : inv.terminal.workingDirectory + "/" + dir
            path = StoreLocation.resolve(dataDir: base + "/.ck", environment: [:], workingDirectory: "/").path
        }
        let created = try CKStore.initialize(at: path)
        try inv.emit(Initialized(store: path, created: created))
        return ExitCode.success
    }
}
