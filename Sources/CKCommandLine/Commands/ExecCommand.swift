import CKCore
import CKFiles
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `ck exec`: runs a command against a fresh temporary store seeded from fixtures, then removes the store (the
/// `emulators:exec` pattern of CI jobs).
enum ExecCommand {
    static let spec = CommandSpec(
        "exec", summary: "Run a command against a fresh temporary store seeded from fixtures, then remove the store.",
        discussion: "Creates a store in a new temporary directory, loads each --import document into it in order (as an administrator, as 'ck import --all-users' does: into the document's container and environment), and runs <command> with CK_DATA_DIR, CK_CONTAINER and CK_ENV pointing at it, so every ck the command runs uses that store. Standard input, output and error are the command's own. ck exits with the command's exit status (128 + the signal number if a signal ended it; 127 if it could not be found). --export-on-exit writes the container's environment (every user's data) to a file when the command ends, also when it failed. The temporary store is then removed; SIGINT, SIGTERM and SIGHUP sent to ck are passed on to the command, and the store is removed once it has ended. Put -- before the command so that its options are not read as ck's.",
        arguments: [ArgumentSpec("command", help: "The command to run, and its arguments (after --).", repeatable: true, completion: .command)],
        options: [OptionSpec("import", value: "file", help: "Seed the store with this fixtures document (repeatable).", repeatable: true, completion: .file),
                  OptionSpec("export-on-exit", value: "file", help: "Write the store's data to <file> when the command ends.", completion: .file)],
        examples: [("ck exec --import fixtures/dev.json -- ./smoke.sh", "Run a test script against a store seeded from a fixture."),
                   ("ck exec --import fixtures/dev.json --export-on-exit after.json -- ./smoke.sh", "Keep what the script left, for a look after a failure.")],
        run: run)

    static func run(_ inv: Invocation) throws -> Int32 {
        let argv = inv.positionals
        guard !argv.isEmpty else { throw UsageError("expected a command to run, after --", command: inv.command.path) }
        ChildProcess.catchSignals()
        let temp = try makeTemporaryDirectory(inv)
        defer {
            // A store left behind in $TMPDIR is said, not dropped.
            do { try FileManager.default.removeItem(atPath: temp) } catch { inv.warn("could not remove \(temp): \(error.localizedDescription)") }
        }
        let root = temp + "/store"
        try CKStore.initialize(at: root)
        let store = try CKStore.open(StoreLocation(path: root, source: .environment))
        var container = inv.setting("container", env: "CK_CONTAINER")
        var environment: Environment? = nil
        let files = inv.parsed.all("import")
        for (i, file) in files.enumerated() {
            let (doc, label) = try FixturesCommands.readDocument(inv, file)
            let env = try FixturesCommands.importEnvironment(inv, doc, label: label)
            let imported: (FixtureSummary, String, Bool)
            do {
                imported = try FixturesCommands.importDocument(inv, doc, into: store, environment: env, label: label,
                                                               allUsers: true, replace: false, progress: { _, _ in })
            } catch var e as CKError where e.serverErrorCode == "EXISTS" {
                // 'ck import' would take --replace; ck exec loads into an empty store and has no such option.
                e.hint = (files[..<i].contains(file) ? "--import \(file) is given twice; " : "")
                    + "an earlier --import filled this environment already: merge the documents into one, or give each a different container or environment"
                throw e
            }
            let id = imported.1
            // The first document chooses the container and environment the command is pointed at.
            container = container ?? id
            environment = environment ?? env
            if ChildProcess.received != 0 { return 128 + ChildProcess.received }
        }
        let id = try container ?? store.currentContainerID()
        let env = try environment ?? inv.environment()
        var variables = inv.terminal.environment
        variables["CK_DATA_DIR"] = root
        variables["CK_CONTAINER"] = id
        variables["CK_ENV"] = env.rawValue
        StreamWriter.stdout.flush()
        var code: Int32
        switch ChildProcess.run(argv, environment: variables) {
        case .finished(let status): code = status
        case .notStarted(let why, let status):
            inv.terminal.writeErr("ck: cannot run '\(ErrorReport.printable(argv[0]))': \(why)\n")
            code = status
        }
        if let file = inv.parsed.value("export-on-exit") {
            do {
                let container = try store.container(id)
                let caller = try inv.caller()
                // Streamed as `ck export` is: the document is never whole in memory.
                try inv.writeDocument(to: file) { (put) throws(CKError) in
                    try container.exportFixtures(env, as: caller, allUsers: true, to: put)
                }
            } catch {
                // The command's own failure is what the job reports; a failed export turns only success into failure.
                let failed = ErrorReport.report(error, invocation: inv, terminal: inv.terminal, json: false)
                if code == ExitCode.success { code = failed }
            }
        }
        return code
    }

    /// A new private directory under $TMPDIR (or /tmp), made by mkdtemp.
    static func makeTemporaryDirectory(_ inv: Invocation) throws -> String {
        let base = inv.terminal.environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
        var template = Array((base + "/ck-exec-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CKError(.internalError, "cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }
}
