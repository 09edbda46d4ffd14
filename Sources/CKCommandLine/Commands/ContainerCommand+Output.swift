import CKCore

/// What `ck container` prints (docs/cli.md §3, the output table).
extension ContainerCommand {
    /// `container create`: `{"identifier", "current", "created"}`; `created` is false when it already existed.
    struct Created: OutcomeOutput {
        var identifier: String
        var current: Bool
        var created: Bool

        var json: JSON { .object(["identifier": .string(identifier), "current": .bool(current), "created": .bool(created)]) }
        var line: String { identifier }
        var sentence: String { (created ? "Created container " : "Container ") + identifier + (current ? " (now current)" : "") }
    }

    /// One container of `container list`: `{"identifier", "current"}`.
    struct Listed {
        var identifier: String
        var current: Bool

        var json: JSON { .object(["identifier": .string(identifier), "current": .bool(current)]) }
    }

    /// `container list`: `{"containers": [Listed]}`; jsonl: one container a line.
    struct List: CommandOutput {
        var containers: [Listed]

        var json: JSON { .object(["containers": .array(containers.map(\.json))]) }
        var jsonLines: [JSON] { containers.map(\.json) }
        var plain: [String] { containers.map(\.identifier) }
        var table: String {
            var t = Table(["", "CONTAINER"])
            for c in containers { t.add([c.current ? "*" : "", c.identifier]) }
            return t.aligned()
        }
    }

    /// `container use`: `{"identifier", "current": true}`.
    struct Used: OutcomeOutput {
        var identifier: String

        var json: JSON { .object(["identifier": .string(identifier), "current": .bool(true)]) }
        var line: String { identifier }
        var sentence: String { "Now using container \(identifier)" }
    }

    /// `container show`: `{"identifier", "current", "created", "users": [{"name", "userRecordName"}],
    /// "environments": {<env>: {"recordTypes"}}, "store"}`.
    struct Shown: RowsOutput {
        var identifier: String
        var current: Bool
        /// Milliseconds since 1970, as container.json holds it (null when it has none).
        var created: JSON
        var users: [ContainerUser]
        var recordTypes: [Environment: [String]]
        var store: String

        var json: JSON {
            var envs: [String: JSON] = [:]
            for (env, types) in recordTypes { envs[env.rawValue] = .object(["recordTypes": .array(types.map { .string($0) })]) }
            return .object([
                "identifier": .string(identifier), "current": .bool(current), "created": created,
                "users": .array(users.map { .object(["name": .string($0.name), "userRecordName": .string($0.userRecordName)]) }),
                "environments": .object(envs), "store": .string(store),
            ])
        }

        var rows: [(String, String)] {
            var rows: [(String, String)] = [("identifier", identifier), ("current", current ? "yes" : "no")]
            if let c = created.int64Value { rows.append(("created", ISO8601.format(milliseconds: c))) }
            rows.append(("store", store))
            for env in Environment.allCases {
                let types = recordTypes[env] ?? []
                rows.append((env.rawValue, types.isEmpty ? "no record types" : "record types: " + types.joined(separator: ", ")))
            }
            rows.append(("users", users.isEmpty ? "none yet" : users.map { "\($0.name) (\($0.userRecordName))" }.joined(separator: ", ")))
            return rows
        }
    }

    /// `container delete`: `{"identifier", "deleted": true}`.
    struct Deleted: OutcomeOutput {
        var identifier: String

        var json: JSON { .object(["identifier": .string(identifier), "deleted": .bool(true)]) }
        var line: String { identifier }
        var sentence: String { "Deleted container \(identifier)" }
    }
}
