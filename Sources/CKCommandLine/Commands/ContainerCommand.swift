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
        try inv.emit(Created(identifier: id, current: inv.parsed.flag("use"), created: created))
        return ExitCode.success
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        let store = try inv.store()
        let current = try? store.currentContainerID()
        let ids = try store.containerIDs()
        try inv.emit(List(containers: ids.map { Listed(identifier: $0, current: $0 == current) }))
        return ExitCode.success
    }

    static func use(_ inv: Invocation) throws -> Int32 {
        let id = try inv.single("container identifier")
        try inv.store().useContainer(id)
        try inv.emit(Used(identifier: id))
        return ExitCode.success
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one container identifier", command: inv.command.path) }
        let store = try inv.store()
        let container = try store.container(inv.positionals.first ?? inv.setting("container", env: "CK_CONTAINER"))
        let info = try container.info()
        let users = try container.users()
        var recordTypes: [Environment: [String]] = [:]
        for env in Environment.allCases { recordTypes[env] = try container.schema(env).recordTypes.keys.sorted() }
        let current = try? store.currentContainerID()
        try inv.emit(Shown(identifier: container.identifier, current: current == container.identifier, created: info["created"] ?? .null,
                           users: users, recordTypes: recordTypes, store: store.root))
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
        try inv.emit(Deleted(identifier: id))
        return ExitCode.success
    }
}
