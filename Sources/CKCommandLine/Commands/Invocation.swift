import Foundation
import CKCore
import CKFiles

/// A command being run: its parsed arguments, the resolved global options, and the terminal.
final class Invocation {
    let parsed: ParsedCommand
    let terminal: Terminal
    /// Values a command sets for global options, beating flags and environment (cktool's --container-id sets --container).
    var overrides: [String: String] = [:]
    private var openedStore: CKStore?
    private var databases: [CKDatabase] = []

    init(parsed: ParsedCommand, terminal: Terminal) {
        self.parsed = parsed
        self.terminal = terminal
    }

    var command: CommandSpec { parsed.command }

    /// The one positional argument a command takes, or a usage error naming what was expected.
    func single(_ what: String) throws -> String {
        guard positionals.count == 1, let value = positionals.first else {
            throw UsageError("expected one \(what)", command: command.path)
        }
        return value
    }
    var positionals: [String] { parsed.positionals }

    /// A global or command option: flag, then environment variable.
    func setting(_ long: String, env: String) -> String? {
        if let v = overrides[long] { return v }
        if let v = parsed.value(long) { return v }
        if let v = terminal.environment[env], !v.isEmpty {
            if !fromEnvironment.contains(where: { $0.variable == env }) { fromEnvironment.append((env, v)) }
            return v
        }
        return nil
    }

    /// Settings this command took from environment variables (not from its command line), in the order read.
    private(set) var fromEnvironment: [(variable: String, value: String)] = []

    /// An error about a value that came from an environment variable says so, since the command line doesn't show it:
    /// "Zone 'Notez' does not exist (from CK_ZONE)".
    func namingEnvironment(_ error: CKError) -> CKError {
        var e = error
        // One variable at most: the one whose value the error is about. The store's path ends many reasons
        // ("… does not exist in <store>"), so it is named only when nothing narrower is.
        let about = fromEnvironment.filter { Self.isAbout(e, variable: $0.variable, value: $0.value) }
        if let variable = (about.first { $0.variable != "CK_DATA_DIR" } ?? about.first)?.variable, !e.reason.contains(variable) {
            e.reason += " (from \(variable))"
        }
        return e
    }

    /// Whether an error is about a variable's value, not merely naming it: a record missing from the zone, a type
    /// missing from the schema or a compacted token names the zone, but the zone is not what is wrong.
    static func isAbout(_ e: CKError, variable: String, value: String) -> Bool {
        guard e.reason.contains("'\(value)'") || e.reason.hasSuffix(" \(value)") else { return false }
        switch variable {
        case "CK_ZONE": return [.zoneNotFound, .userDeletedZone, .invalidArguments].contains(e.code)
        case "CK_CONTAINER": return [.badContainer, .invalidArguments].contains(e.code)
        case "CK_USER": return e.reason.lowercased().contains("user '\(value.lowercased())'")
        default: return true
        }
    }

    var quiet: Bool { parsed.flag("quiet") }
    var color: Bool { terminal.stderrIsTTY && !parsed.flag("no-color") && terminal.environment["NO_COLOR"] == nil }

    /// The output format: -o, else CK_OUTPUT, else table on a terminal and plain when piped. A command that
    /// prints no names (see `OutputFormat.names`) refuses `-o name`, and takes CK_OUTPUT=name as plain.
    func outputFormat() throws(UsageError) -> OutputFormat {
        guard let v = setting("output", env: "CK_OUTPUT") else { return terminal.stdoutIsTTY ? .table : .plain }
        guard let f = OutputFormat(rawValue: v) else {
            throw UsageError("CK_OUTPUT='\(v)' is not one of \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        if f == .name && !OutputFormat.names.contains(where: { $0.command == command.path }) {
            guard parsed.value("output") == nil else {
                throw UsageError("-o name: '\(command.path)' prints no names; use -o plain or -o json (see 'ck help output')", command: command.path)
            }
            return .plain
        }
        return f
    }

    /// True when people read the output: no format was asked for and stdout is a terminal.
    var onTerminal: Bool { setting("output", env: "CK_OUTPUT") == nil && terminal.stdoutIsTTY }

    func environment() throws(UsageError) -> Environment {
        guard let v = setting("env", env: "CK_ENV") else { return .development }
        guard let e = Environment(rawValue: v) else { throw UsageError("CK_ENV='\(v)' is not development or production") }
        return e
    }

    func scope() throws(UsageError) -> DatabaseScope {
        guard let v = setting("db", env: "CK_DB") else { return .private }
        guard let d = DatabaseScope(rawValue: v) else { throw UsageError("CK_DB='\(v)' is not public, private or shared") }
        return d
    }

    var zone: String { setting("zone", env: "CK_ZONE") ?? Names.defaultZoneName }
    var user: String { setting("as", env: "CK_USER") ?? CKContainer.defaultUserName }

    /// Who the command acts as: `--anonymous` (nobody signed in), else the user named by --as / CK_USER.
    func caller() throws -> Caller {
        if parsed.flag("anonymous") {
            if parsed.value("as") != nil { throw UsageError("--anonymous acts as nobody; it can't be combined with --as", command: command.path) }
            return .anonymous()
        }
        do { return try Caller.user(user) } catch {
            guard parsed.value("as") == nil, terminal.environment["CK_USER"] != nil else { throw error }
            var e = error
            e.reason = "CK_USER: " + e.reason
            throw e
        }
    }

    var storeLocation: StoreLocation {
        if parsed.value("data-dir") == nil { _ = setting("data-dir", env: "CK_DATA_DIR") }
        return StoreLocation.resolve(dataDir: parsed.value("data-dir"), environment: terminal.environment,
                                     workingDirectory: terminal.workingDirectory)
    }

    func store() throws -> CKStore {
        if let s = openedStore { return s }
        let location = storeLocation
        if (command.readsOnly || command.removesOnly) && !CKStore.exists(at: location.path) {
            let from = location.source == .user ? "the user store" : "from \(location.source.rawValue)"
            let why = command.readsOnly ? "only reads" : "only removes and there is nothing to remove"
            throw CKError(.badContainer, "no ck store at \(location.path) (\(from)); '\(command.path)' \(why), so it does not create one",
                          serverErrorCode: "NOT_FOUND", hint: "check the path, or create a store there with 'ck init' or any command that writes (e.g. 'ck record save')")
        }
        // Doctor examines an interrupted root operation itself: one it can't trust must not stop it.
        let s = try CKStore.open(location, recover: command.path != "ck doctor", pinnedNow: try pinnedNow())
        if terminal.environment["CK_INDEX"] == "off" { s.indexEnabled = false }
        openedStore = s
        return s
    }

    /// `CK_NOW`: the instant that is "now" for this one command (ms since 1970 or ISO 8601); nil when unset.
    func pinnedNow() throws(CKError) -> Int64? {
        guard let text = terminal.environment["CK_NOW"], !text.isEmpty else { return nil }
        guard let ms = StoreClock.instant(text) else {
            throw CKError.invalid("CK_NOW: '\(text)' is not an instant",
                                  hint: "give milliseconds since 1970 (1767225600000) or an ISO 8601 instant (2026-01-01T00:00:00Z), or unset it")
        }
        return ms
    }

    func container() throws -> CKContainer {
        try store().container(setting("container", env: "CK_CONTAINER"))
    }

    func database() throws -> CKDatabase {
        let db = try container().database(try scope(), environment: try environment(), caller: try caller())
        db.files = .directory(terminal.workingDirectory)
        databases.append(db)
        return db
    }

    /// Warnings the store met and the command's own, to be printed on stderr.
    var warnings: [Diagnostic] { (openedStore?.warnings ?? []) + databases.flatMap(\.warnings) + ownWarnings }

    private var ownWarnings: [Diagnostic] = []

    /// A warning of the command itself (a side step that failed while the main one succeeded or failed on its own).
    func warn(_ s: String) { ownWarnings.append(Diagnostic(s)) }

    // MARK: Printing

    private var held: [String]? = nil

    func out(_ s: String) {
        if held != nil { held?.append(s) } else { terminal.writeOut(s) }
    }

    /// Bytes to stdout, in order with `out` (the same buffered writer, its failures checked the same way).
    func out(bytes: [UInt8]) {
        if held != nil { held?.append(String(decoding: bytes, as: UTF8.self)) } else { terminal.writeOutBytes(bytes) }
    }

    /// Starts holding stdout until `release`, e.g. until writes are durable.
    func holdOutput() -> Bool {
        if held != nil { return false }
        held = []
        return true
    }

    /// Prints what was spooled and then what was held (when this caller started holding). Call it with no store
    /// lock held: a reader of stdout that is slow or stopped must not hold up other writers.
    func release(_ started: Bool) {
        guard started, let text = held else { return }
        held = nil
        releaseSpool()
        for s in text { terminal.writeOut(s) }
    }

    /// Prints what was spooled (durable output of a command that then failed, say).
    func releaseSpool() { spool.drain { terminal.writeOutBytes($0) } }

    /// Moves what is held to the spool, still unprinted (when this caller started holding): for output that is
    /// ready while a store lock is held, printed by `release` once the lock is gone.
    func spoolHeld(_ started: Bool) {
        guard started, let text = held else { return }
        held = nil
        for s in text { spool.add(s) }
    }
    private let spool = OutputSpool()
    func line(_ s: String) { out(s + "\n") }

    /// A note on stderr, silenced by -q.
    func note(_ s: String) { if !quiet { terminal.writeErr("ck: " + s + "\n") } }

    /// Standard input, up to `limit` bytes (more is refused with limitExceeded naming `limitName`; so is a line
    /// over `lineLimit`). On a terminal it first says what it waits for and how to end it: a silent wait looks like a hang.
    func readStdin(_ what: String, limit: Int, limitName: String, lineLimit: Int? = nil) throws(CKError) -> [UInt8] {
        if terminal.stdinIsTTY { note("reading \(what) from the terminal; end it with Ctrl-D at the start of a line (Ctrl-C cancels)") }
        if let fd = terminal.stdinDescriptor {
            return try BoundedRead.read(fd: fd, input: "<stdin>", limit: limit, limitName: limitName, lineLimit: lineLimit)
        }
        let bytes = terminal.readStdin()
        try BoundedRead.check(bytes, input: "<stdin>", limit: limit, limitName: limitName, lineLimit: lineLimit)
        return bytes
    }

    /// Asks on a terminal; elsewhere the answer is yes (scripts pass -y anyway).
    func confirm(_ question: String) -> Bool {
        guard terminal.stdinIsTTY else { return true }
        terminal.writeErr(question + " [y/N] ")
        let answer = terminal.readLine()?.lowercased() ?? ""
        return answer == "y" || answer == "yes"
    }

    /// Asks before a delete a query or a cktool verb chose: on a terminal the user answers; elsewhere -y must
    /// say so, since an unattended delete that nobody confirmed would lose data.
    func confirmDestructive(_ question: String) throws -> Bool {
        if parsed.flag("yes") { return true }
        guard terminal.stdinIsTTY else {
            throw UsageError("\(question) Standard input is not a terminal, so ck can't ask: pass -y to go ahead", command: command.path)
        }
        return confirm(question)
    }

    /// Writes a whole document to `file` (see `OutputFile`: a regular file atomically, a FIFO or device in place,
    /// a symlink refused), or to stdout when no file is given.
    func writeDocument(_ text: String, to file: String?) throws {
        guard let file else { out(text); return }
        try writeFile(Array(text.utf8), to: file)
        note("wrote \(file)")
    }

    /// Writes a document made a piece at a time (`produce` hands each piece to the writer it is given) to `file`
    /// through the one `--file` writer, else to stdout as it comes.
    func writeDocument(to file: String?, produce: (_ put: ([UInt8]) throws(CKError) -> Void) throws(CKError) -> Void) throws {
        guard let file else {
            // Each piece holds whole characters (the producer cuts between JSON tokens).
            try produce { (bytes) throws(CKError) in self.out(String(decoding: bytes, as: UTF8.self)) }
            return
        }
        let path = file.hasPrefix("/") ? file : terminal.workingDirectory + "/" + file
        try OutputFile.write(path) { (put) throws(CKError) in try produce(put) }
        note("wrote \(file)")
    }

    /// The one writer of a file a user names for output (`--file`, `--output-file`, `--export-on-exit`,
    /// `schema fmt`, `man --dir`): relative to the working directory, through `OutputFile`, so every command
    /// refuses a symlink at the target and replaces a regular file atomically.
    func writeFile(_ bytes: [UInt8], to file: String) throws {
        let path = file.hasPrefix("/") ? file : terminal.workingDirectory + "/" + file
        try OutputFile.write(path, bytes)
    }

    /// Reads a file argument (`-` is stdin) under `limit` bytes and, when given, lines of `lineLimit`: more is
    /// refused with limitExceeded naming `limitName`, having read no more than the limit and one chunk.
    func readInput(_ path: String, what: String = "the input", limit: Int, limitName: String, lineLimit: Int? = nil) throws -> [UInt8] {
        if path == "-" { return try readStdin(what, limit: limit, limitName: limitName, lineLimit: lineLimit) }
        let full = path.hasPrefix("/") ? path : terminal.workingDirectory + "/" + path
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: full, isDirectory: &isDir), isDir.boolValue {
            throw CKError(.invalidArguments, "'\(path)' is a directory, not a file")
        }
        let fd = open(full, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CKError(.invalidArguments, "cannot read file '\(path)': \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        return try BoundedRead.read(fd: fd, input: path, limit: limit, limitName: limitName, lineLimit: lineLimit)
    }
}
