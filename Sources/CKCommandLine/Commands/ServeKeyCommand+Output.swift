import CKCore

extension ServeKeyCommand {
    /// A key: `{"name", "user", "environment"?, "added", "publicKey"}`.
    static func json(_ k: ServerKey) -> JSON {
        var o: [String: JSON] = ["name": .string(k.name), "user": .string(k.user), "added": .int(k.added), "publicKey": .string(k.publicKey)]
        if let e = k.environment { o["environment"] = .string(e.rawValue) }
        return .object(o)
    }

    /// Where a key works, in words.
    static func environments(_ k: ServerKey) -> String { k.environment?.rawValue ?? "both" }

    /// `key add`: the key added.
    struct Added: OutcomeOutput {
        var key: ServerKey

        var json: JSON { ServeKeyCommand.json(key) }
        var line: String { key.name }
        var sentence: String {
            "Added server-to-server key \(key.name): signed requests act as \(key.user) in the public database (\(environments(key) == "both" ? "both environments" : environments(key)))"
        }
    }

    /// `key list`: `{"keys": [key]}`; jsonl: one a line.
    struct List: CommandOutput {
        var keys: [ServerKey]

        var json: JSON { .object(["keys": .array(keys.map(ServeKeyCommand.json))]) }
        var jsonLines: [JSON] { keys.map(ServeKeyCommand.json) }
        var cells: [[String]] { keys.map { [$0.name, $0.user, environments($0), ISO8601.format(milliseconds: $0.added)] } }
        var plain: [String] { cells.map { $0.joined(separator: "\t") } }
        var table: String {
            if keys.isEmpty { return "No server-to-server keys; add one with 'ck serve key add NAME --public-key FILE'.\n" }
            var t = Table(["NAME", "ACTS AS", "ENVIRONMENT", "ADDED"])
            for c in cells { t.add(c) }
            return t.aligned()
        }
    }

    /// `key remove`: the key removed.
    struct Removed: OutcomeOutput {
        var key: ServerKey

        var json: JSON { .object(["removed": .string(key.name)]) }
        var line: String { key.name }
        var sentence: String { "Removed server-to-server key \(key.name)" }
    }
}
