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
        discussion: "The whole document is checked first: if any part is invalid, nothing is written and every problem is listed with its JSON path. It goes into the environment the document names (its environment key); -e (or CK_ENV) naming another environment is refused, and --into-env loads it there anyway. It goes into the container named by -c, else into the container the document names (created if the store lacks it, also when -c names it). When the store has no current container, or only the untouched default one (iCloud.ck.default, never used), the imported container becomes current. A hand-written document may leave out what ck can supply: owners, change tags, timestamps, zone capabilities, even the schema (see docs/fixtures.md). A failed import leaves nothing behind, not even the container or store it would have created. It loads as the acting user: public records that user created (its grants must allow CREATE) and its own private zones, records and subscriptions; another user's data is refused unless --all-users (an administrator's load of every user's data). What it would replace must be empty unless --replace is given (public records the acting user may not delete don't count), which replaces the public records the acting user may delete and its zones, records, subscriptions and notifications (with --all-users, everyone's, and the schema); public records it may not delete stay, counted as kept. A user's import never changes the schema's grants or roles: in development it only adds record types (with the default grants) and fields, as saves would, and in production its records must fit the schema (otherwise permissionFailure, nothing written). A user's import stays within its quota and the public database's (quotaExceeded, nothing written); --all-users is not counted.",
        arguments: [ArgumentSpec("file", help: "The document ('-' for stdin).", completion: .file)],
        options: [OptionSpec("replace", help: "Replace what the import may replace."),
                  OptionSpec("all-users", help: "Load every user's data, as an administrator."),
                  OptionSpec("into-env", value: "environment", help: "Load into this environment whatever the document's.",
                             choices: Environment.allCases.map(\.rawValue))],
        examples: [("ck import fixtures/dev.json", "Seed a fresh store."),
                   ("ck -e production import --all-users prod.json --replace", "Replace production's data and schema, as an administrator."),
                   ("ck import --all-users dev.json --into-env production", "Load a development export into production.")],
        run: runImport)

    /// Imports `doc` into the container -c (or CK_CONTAINER) names, else into the document's own (created with the
    /// import, as one operation, when the store lacks it), else into the current one. Returns what was loaded,
    /// into which container, and whether that container was created.
    static func importDocument(_ inv: Invocation, _ doc: FixtureDocument, into store: CKStore, environment env: Environment, label: String,
                               allUsers: Bool, replace: Bool, progress: (Int, Int) -> Void) throws -> (FixtureSummary, String, Bool) {
        let caller = try inv.caller()
        let named = inv.setting("container", env: "CK_CONTAINER")
        // -c naming the document's own container is created like it; any other missing -c stays an error (a typo).
        let documented = named == nil || named == doc["container"]?.stringValue ? doc["container"]?.stringValue : nil
        if let documented, try !store.containerIDs().contains(documented) {
            let s = try store.importFixtures(intoNewContainer: documented, doc, into: env, as: caller, allUsers: allUsers,
                                             replace: replace, label: label, progress: progress)
            return (s, documented, true)
        }
        let container = try store.container(named ?? documented)
        let s = try container.importFixtures(doc, into: env, as: caller, allUsers: allUsers, replace: replace, label: label, progress: progress)
        return (s, container.identifier, false)
    }

    static func runExport(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("export takes no arguments; use --file", command: inv.command.path) }
        let progress = ProgressLine(inv, verb: "exporting", bytes: true)
        defer { progress.finish() }
        let container = try inv.container()
        let (env, caller, allUsers) = (try inv.environment(), try inv.caller(), inv.parsed.flag("all-users"))
        // Streamed: the document's text goes out a piece at a time as records are read, never whole in memory.
        try inv.writeDocument(to: inv.parsed.value("file")) { (put) throws(CKError) in
            try container.exportFixtures(env, as: caller, allUsers: allUsers, progress: progress.update, to: put)
            // The line ends before the note that the file was written.
            progress.finish()
        }
        progress.finish()
        return ExitCode.success
    }

    static func runImport(_ inv: Invocation) throws -> Int32 {
        let (doc, label) = try readDocument(inv, try inv.single("fixtures file"))
        let env = try importEnvironment(inv, doc, label: label)
        let location = inv.storeLocation
        let freshStore = !CKStore.exists(at: location.path)
        let freshDirectory = !FileManager.default.fileExists(atPath: location.path)
        do {
            return try load(inv, doc, into: env, label: label)
        } catch {
            // A store this import made goes again: a failed import leaves nothing behind.
            if freshStore { CKStore.discard(createdAt: location.path, directory: freshDirectory) }
            throw error
        }
    }

    /// The environment an import loads into: `--into-env`, else `-e`/`CK_ENV` when it agrees with the document's
    /// `environment`, else the document's (development when it names none).
    static func importEnvironment(_ inv: Invocation, _ doc: FixtureDocument, label: String) throws -> Environment {
        let documented: Environment?
        do { documented = try CKContainer.fixtureEnvironment(.object(doc.members)) } catch {
            throw CKError(.invalidArguments, "\(label): $.environment: \(error.reason)", hint: "nothing was imported")
        }
        if let into = inv.parsed.value("into-env") {
            guard let target = Environment(rawValue: into) else { throw UsageError("--into-env takes development or production", command: inv.command.path) }
            if let asked = inv.parsed.value("env"), asked != into {
                throw UsageError("-e \(asked) and --into-env \(into) disagree; give one of them", command: inv.command.path)
            }
            return target
        }
        guard inv.setting("env", env: "CK_ENV") != nil else { return documented ?? .development }
        let asked = try inv.environment()
        if let documented, documented != asked {
            let source = inv.parsed.value("env") != nil ? "-e \(asked.rawValue)" : "CK_ENV=\(asked.rawValue)"
            throw CKError(.invalidArguments,
                          "\(label): the document holds the \(documented.rawValue) environment ($.environment), and \(source) would load it into \(asked.rawValue); nothing was imported",
                          hint: "pass --into-env \(asked.rawValue) to load it into \(asked.rawValue) anyway, or leave out \(source) to load it into \(documented.rawValue)")
        }
        return asked
    }

    static func load(_ inv: Invocation, _ doc: FixtureDocument, into env: Environment, label: String) throws -> Int32 {
        let progress = ProgressLine(inv, verb: "imported")
        defer { progress.finish() }
        let store = try inv.store()
        let takeOver = try unclaimedCurrent(store)
        let (s, id, created) = try importDocument(inv, doc, into: store, environment: env, label: label,
                                                  allUsers: inv.parsed.flag("all-users"), replace: inv.parsed.flag("replace"),
                                                  progress: progress.update)
        progress.finish()
        // Seeding a fresh store: the next command should reach what was imported, not the empty default.
        let makeCurrent = takeOver && (try? store.currentContainerID()) != id
        if makeCurrent { try store.useContainer(id) }
        if created || makeCurrent {
            inv.note(created ? "created container \(id)\(makeCurrent ? " (now current)" : "")" : "now using container \(id)")
        }
        try inv.emit(Imported(summary: s, container: id, environment: env))
        return ExitCode.success
    }

    /// Whether the store has no current container worth keeping: none at all, or the default container that no
    /// one has used (no users, no record types), as in a store that this import, or a read, just made.
    static func unclaimedCurrent(_ store: CKStore) throws -> Bool {
        guard let current = try? store.currentContainerID() else { return true }
        guard current == CKStore.defaultContainerID, try store.containerIDs().contains(current) else { return false }
        let c = try store.container(current)
        if case .object(let users)? = try c.info()["users"], !users.isEmpty { return false }
        return try Environment.allCases.allSatisfy { try c.schema($0).recordTypes.isEmpty }
    }
}
