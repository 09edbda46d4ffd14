import CKCore

/// `ck serve log`.
enum ServeLogCommand {
    static let spec = CommandSpec("log", summary: "Not built yet.", run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        throw UsageError("ck serve log is not built yet", command: inv.command.path)
    }
}
