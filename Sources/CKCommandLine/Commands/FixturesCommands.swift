import CKCore
import Foundation

/// `ck export` and `ck import`: one JSON fixtures document per environment.
enum FixturesCommands {
    static let export = CommandSpec(
        "export", summary: "Write an environment as one JSON fixtures document.",
        discussion: "The document holds the schema, users, zones, subscriptions, records (Web Services record dictionaries, change tags and timestamps kept) and the bytes of their assets, for the environment chosen with -e (default development). It holds what the acting user may see: the public records its roles may read, and its own private zones, records and subscriptions. --all-users is an administrator's view of the whole environment (every user's data, no grants consulted), for seeding CI. 'ck import' loads it; export → import → export gives the same document.",
        options: [OptionSpec("file", value: "file", help: "Write to <file> instead of stdout.", completion: .file),
                  OptionSpec("all-users", help: "Every user's data, as an administrator sees it.")],
        examples: [("ck export --file fixtures/dev.json", "Save the development environment."),
                   ("ck -e production export > prod.json", "The production environment, on stdout.")],
        run: runExport)

    static let importSpec = CommandSpec(
        "import", summary: "Load a JSON fixtures document into an environment.",
        discussion: "The whole document is checked first: if any part is invalid, nothing is written and every problem is listed with its JSON path. It goes into the container named by -c, else into the container the document names (created if the store lacks it). It loads as the acting user: public records that user created (its grants must allow CREATE) and its own private zones, records and subscriptions; another user's data is refused unless --all-users (an administrator's load of every user's data). What it would replace must be empty unless --replace is given, which replaces the public database and the acting user's zones, records, subscriptions and notifications (with --all-users, everyone's), and the schema.",
        arguments: [ArgumentSpec("file", help: "The document ('-' for stdin).", completion: .file)],
        options: [OptionSpec("replace", help: "Replace what the import may replace."),
                  OptionSpec("all-users", help: "Load every user's data, as an administrator.")],
        examples: [("ck import fixtures/dev.json", "Seed a fresh store."),
                   ("ck -e production import prod.json --replace", "Replace production's data and schema.")],
        run: runImport)

    static func runExport(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("export takes no arguments; use --file", command: inv.command.path) }
        let progress = ProgressLine(inv, verb: "exporting", bytes: true)
        defer { progress.finish() }
        let doc = try inv.container().exportFixtures(try inv.environment(), as: try inv.caller(), allUsers: inv.parsed.flag("all-users"),
                                                     progress: progress.update)
        progress.finish()
        let text = doc.pretty() + "\n"
        try inv.writeDocument(text, to: inv.parsed.value("file"))
        return ExitCode.success
    }

    static func runImport(_ inv: Invocation) throws -> Int32 {
        let file = try inv.single("fixtures file")
        let label = file == "-" ? "<stdin>" : file
        let doc: JSON
        do { doc = try JSON.parse(utf8: try inv.readInput(file)) } catch let e as JSONParseError {
            throw CKError(.invalidArguments, "\(label):\(e.line):\(e.column): invalid JSON: \(e.message)", hint: "nothing was imported")
        }
        let env = try inv.environment()
        // Without -c, the document's own container is seeded (made if missing): one command fills a fresh store.
        var container = try inv.container()
        if inv.setting("container", env: "CK_CONTAINER") == nil, let id = doc["container"]?.stringValue, id != container.identifier {
            let store = try inv.store()
            if try !store.containerIDs().contains(id) {
                try store.createContainer(id)
                inv.note("created container \(id)")
            }
            container = try store.container(id)
        }
        let progress = ProgressLine(inv, verb: "imported")
        defer { progress.finish() }
        let s = try container.importFixtures(doc, into: env, as: try inv.caller(), allUsers: inv.parsed.flag("all-users"),
                                             replace: inv.parsed.flag("replace"), label: label, progress: progress.update)
        progress.finish()
        func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
        var parts = [count(s.records, "record"), count(s.zones, "zone")]
        if s.subscriptions > 0 { parts.append(count(s.subscriptions, "subscription")) }
        if s.keyValueStores > 0 { parts.append(count(s.keyValueStores, "key-value store")) }
        let what = parts.joined(separator: ", ") + " and " + count(s.assets, "asset")
        try inv.report(.object(["zones": .int(Int64(s.zones)), "records": .int(Int64(s.records)), "assets": .int(Int64(s.assets)),
                                "users": .int(Int64(s.users)), "subscriptions": .int(Int64(s.subscriptions)),
                                "keyValueStores": .int(Int64(s.keyValueStores))]),
                       plain: "\(s.records)\t\(s.zones)\t\(s.assets)",
                       table: "Imported \(what) into \(container.identifier) (\(env.rawValue))")
        return ExitCode.success
    }
}
