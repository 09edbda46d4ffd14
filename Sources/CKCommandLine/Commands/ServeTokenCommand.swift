import CKCore

/// `ck serve token`.
enum ServeTokenCommand {
    static let spec = CommandSpec("token", summary: "Not built yet.", run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        throw UsageError("ck serve token is not built yet", command: inv.command.path)
    }
}
