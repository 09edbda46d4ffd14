import Foundation
import CKCore

enum ContainerCommand {
    static let spec = CommandSpec(
        "container", summary: "Create, list, select, show and delete containers.",
        discussion: "A container (iCloud.<reverse-DNS>) holds a development and a production environment, each with public, private and shared databases. A fresh store has the container \(CKStore.defaultContainerID).",
        examples: [("ck container create iCloud.com.example.Notes --use", "Create a container and make it current.")],
        subcommands: [
            CommandSpec("create", summary: "Create a container (an existing one is left as it is).",
                        arguments: [ArgumentSpec("id", help: "Container identifier; must start with 'iCloud.'.")],
                        options: [OptionSpec("use", help: "Make it the current container.")],
                        examples: [("ck container create iCloud.com.example.Notes --use", "Create and select a container.")],
                        run: create),
            CommandSpec("list", summary: "List containers; the current one is marked.", run: list),
            CommandSpec("use", summary: "Make a container the current one.",
                        arguments: [ArgumentSpec("id", help: "Container identifier.", completion: .container)], run: use),
            CommandSpec("show", summary: "Show a container: its store, record types per environment, and users.",
                        arguments: [ArgumentSpec("id", help: "Container identifier (default: current).", optional: true, completion: .container)],
                        run: show),
            CommandSpec("delete", summary: "Delete a container and all its data.",
                        arguments: [ArgumentSpec("id", help: "Container identifier.", completion: .container)],
                        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")],
                        run: delete),
        ])

    static func create(_ inv: Invocation) throws -> Int32 {
        let id = try inv.single("container identifier")
        let store = try inv.store()
        let created = try store.createContainer(id, use: inv.parsed.flag("use"))
        if !created { inv.note("container '\(id)' already exists; it is left as it is") }
        try inv.report(.object(["identifier": .string(id), "current": .bool(inv.parsed.flag("use")), "created": .bool(created)]), plain: id,
                       table: (created ? "Created container " : "Container ") + id + (inv.parsed.flag("use") ? " (now current)" : ""))
        return ExitCode.success
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        let store = try inv.store()
        let current = try? store.currentContainerID()
        let ids = try store.containerIDs()
        switch try inv.outputFormat() {
        case .json:
            inv.line(JSON.object(["containers": .array(ids.map { .object(["identifier": .string($0), "current": .bool($0 == current)]) })]).pretty())
        case .jsonl:
            for id in ids { inv.line(JSON.object(["identifier": .string(id), "current": .bool(id == current)]).serialized()) }
        case .plain, .name:
            for id in ids { inv.line(id) }
        case .table:
            var t = Table(["", "CONTAINER"])
            for id in ids { t.add([id == current ? "*" : "", id]) }
            inv.out(t.aligned())
        }
        return ExitCode.success
    }

    static func use(_ inv: Invocation) throws -> Int32 {
        let id = try inv.single("container identifier")
        try inv.store().useContainer(id)
        try inv.report(.object(["identifier": .string(id), "current": .bool(true)]), plain: id, table: "Now using container \(id)")
        return ExitCode.success
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one container identifier", command: inv.command.path) }
        let store = try inv.store()
        let container = try store.container(inv.positionals.first ?? inv.setting("container", env: "CK_CONTAINER"))
        let info = try container.info()
        let users = try container.users()
        var envs: [String: JSON] = [:]
        for env in Environment.allCases {
            let schema = try container.schema(env)
            envs[env.rawValue] = .object(["recordTypes": .array(schema.recordTypes.keys.sorted().map { .string($0) })])
        }
        let current = try? store.currentContainerID()
        let json = JSON.object([
            "identifier": .string(container.identifier), "current": .bool(current == container.identifier),
            "created": info["created"] ?? .null,
            "users": .array(users.map { .object(["name": .string($0.name), "userRecordName": .string($0.userRecordName)]) }),
            "environments": .object(envs), "store": .string(store.root),
        ])
        switch try inv.outputFormat() {
        case .json: inv.line(json.pretty())
        case .jsonl: inv.line(json.serialized())
        case .plain, .name, .table:
            var rows: [(String, String)] = [("identifier", container.identifier), ("current", current == container.identifier ? "yes" : "no")]
            if let c = info["created"]?.int64Value { rows.append(("created", ISO8601.format(milliseconds: c))) }
            rows.append(("store", store.root))
            for env in Environment.allCases {
                let types = envs[env.rawValue]?["recordTypes"]?.arrayValue?.compactMap(\.stringValue) ?? []
                rows.append((env.rawValue, types.isEmpty ? "no record types" : "record types: " + types.joined(separator: ", ")))
            }
            rows.append(("users", users.isEmpty ? "none yet" : users.map { "\($0.name) (\($0.userRecordName))" }.joined(separator: ", ")))
            try inv.printRows(rows)
        }
        return ExitCode.success
    }

    static func delete(_ inv: Invocation) throws -> Int32 {
        let id = try inv.single("container identifier")
        let store = try inv.store()
        _ = try store.container(id)
        if !inv.parsed.flag("yes") && !inv.confirm("Delete container \(id) and all its data in both environments?") {
            inv.note("nothing deleted")
            return ExitCode.failure
        }
        try store.deleteContainer(id)
        try inv.report(.object(["identifier": .string(id), "deleted": .bool(true)]), plain: id, table: "Deleted container \(id)")
        return ExitCode.success
    }
}
