import CKModel

/// What a sync does with a save the server refused because the record changed (`serverRecordChanged`) or was
/// deleted (`unknownItem`) since the device fetched it: `ck sync --on-conflict`.
public enum ConflictHandling: Sendable, Equatable {
    /// Three-way merge against the server record; `ConflictPolicy` breaks ties on a key both sides changed.
    case merge
    /// The server record is kept and the device's edit dropped.
    case server
    /// The device's whole version (ancestor plus its edit) is saved again under the server's change tag.
    case client
    /// As CKSyncEngine hands a failed save back to the app: the edit stays pending beside the server record.
    case manual
    /// The app's merge function: a shell command reading `{"ancestor", "client", "server"}` and printing the record.
    case program(String)

    /// The words `--on-conflict` takes besides a command.
    public static let words = ["merge", "server", "client", "manual"]

    /// Reads `--on-conflict`'s value: one of `words`, else a command; an empty value is refused.
    public init(_ text: String) throws(CKError) {
        switch text {
        case "merge": self = .merge
        case "server": self = .server
        case "client": self = .client
        case "manual": self = .manual
        default:
            guard !text.allSatisfy({ $0 == " " || $0 == "\t" }) else {
                throw CKError.invalid("--on-conflict: expected merge, server, client, manual or a command, got an empty value")
            }
            self = .program(text)
        }
    }

    /// How the report names it.
    public var name: String {
        switch self {
        case .merge: return "merge"
        case .server: return "server"
        case .client: return "client"
        case .manual: return "manual"
        case .program(let command): return command
        }
    }
}
