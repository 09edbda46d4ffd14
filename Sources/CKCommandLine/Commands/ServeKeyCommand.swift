import CKCore

/// `ck serve key`.
enum ServeKeyCommand {
    static let spec = CommandSpec("key", summary: "Not built yet.", run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        throw UsageError("ck serve key is not built yet", command: inv.command.path)
    }
}
