import CKCore
import CKFiles
import Foundation

/// The `ck` command line: parses arguments, runs a command, prints, and returns an exit code.
public enum CKCommandLineTool {
    /// Runs `ck` with these arguments (without the program name) and exits. Run as `cktool` (a link or copy
    /// named so), it is `ck cktool`: cktool's verbs and options.
    public static func runAndExit(_ arguments: [String], program: String = "ck") -> Never {
        let arguments = CktoolCommand.isProgram(program) ? [CktoolCommand.spec.name] + arguments : arguments
        // Swift turns bytes that are not UTF-8 into U+FFFD; they are refused instead, as in JSON input.
        if let bad = invalidArgument() {
            StreamWriter.stderr.write("ck: invalidArguments (12): argument \(bad.index) is not valid UTF-8 (byte \(bad.offset + 1))\n")
            StreamWriter.stderr.flush()
            exit(ExitCode.rejectedInput)
        }
        let code = run(arguments, terminal: .process)
        StreamWriter.stdout.flush()
        // Output that did not reach stdout is a failure, whatever the command did.
        if let why = StreamWriter.stdout.failure {
            StreamWriter.stderr.write("ck: internalError (1): cannot write to standard output: \(why)\n")
            StreamWriter.stderr.flush()
            exit(code == ExitCode.success ? ExitCode.failure : code)
        }
        StreamWriter.stderr.flush()
        exit(code)
    }

    /// Runs `ck` against a terminal and returns its exit code.
    public static func run(_ arguments: [String], terminal: Terminal) -> Int32 {
        var invocation: Invocation? = nil
        let wantsJSON = jsonErrors(arguments, terminal)
        do {
            let parsed = try ArgumentParser.parse(arguments, root: CommandTree.root, globals: GlobalOptions.all)
            let inv = Invocation(parsed: parsed, terminal: terminal)
            invocation = inv
            if parsed.flag("version") {
                inv.line("ck \(CommandTree.version)")
                return ExitCode.success
            }
            if parsed.flag("help") {
                inv.out(HelpRenderer.help(parsed.command, globals: GlobalOptions.all))
                return ExitCode.success
            }
            guard let run = parsed.command.run else {
                if let first = parsed.positionals.first {
                    let kind = parsed.command.parent == nil ? "command '\(first)'" : "subcommand '\(first)' for '\(parsed.command.path)'"
                    let names = parsed.command.visibleSubcommands.map(\.name)
                    let next = CktoolVocabulary.suggestion(command: first, root: parsed.command)
                        ?? Names.closest(to: first, among: names).map { "did you mean '\($0)'?" }
                        ?? CktoolVocabulary.suggestion(command: first, root: parsed.command, near: true)
                        ?? "try one of: \(names.joined(separator: ", "))"
                    throw UsageError("unknown \(kind); " + next, command: parsed.command.path)
                }
                inv.out(HelpRenderer.help(parsed.command, globals: GlobalOptions.all))
                return ExitCode.success
            }
            // A format the command can't print is refused before it changes anything.
            if parsed.value("output") != nil { _ = try inv.outputFormat() }
            if !inv.quiet {
                LockWaitNotice.set { path in
                    terminal.writeErr("ck: waiting for another ck to finish with the store (\(path))…\n")
                }
            }
            let code = try run(inv)
            printWarnings(inv)
            return CktoolCommand.exitCode(code, command: inv.command)
        } catch {
            if let inv = invocation { printWarnings(inv) }
            let shown = (error as? CKError).flatMap { e in invocation.map { $0.namingEnvironment(e) } } ?? error
            let code = ErrorReport.report(shown, invocation: invocation, terminal: terminal, json: wantsJSON)
            return invocation.map { CktoolCommand.exitCode(code, command: $0.command) } ?? code
        }
    }

    /// The first process argument (1-based, after the program name) whose bytes are not valid UTF-8, and where.
    static func invalidArgument() -> (index: Int, offset: Int)? {
        for i in 1..<Int(CommandLine.argc) {
            guard let p = CommandLine.unsafeArgv[i] else { continue }
            let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: strlen(p))
            var it = bytes.makeIterator()
            var decoder = UTF8()
            var offset = 0
            loop: while true {
                switch decoder.decode(&it) {
                case .scalarValue(let v): offset += String(v).utf8.count
                case .emptyInput: break loop
                case .error: return (i, offset)
                }
            }
        }
        return nil
    }

    static func printWarnings(_ inv: Invocation) {
        var seen = Set<String>()
        for w in inv.warnings.map(\.description) where seen.insert(w).inserted { inv.terminal.writeErr("ck: warning: \(w)\n") }
    }

    /// Whether errors should be JSON: decided from the raw arguments so that usage errors honour -o json too.
    static func jsonErrors(_ args: [String], _ terminal: Terminal) -> Bool {
        var value = terminal.environment["CK_OUTPUT"]
        var i = 0
        while i < args.count {
            let a = args[i]
            if a == "--" { break }
            if (a == "-o" || a == "--output"), i + 1 < args.count { value = args[i + 1]; i += 1 }
            else if a.hasPrefix("--output=") { value = String(a.dropFirst(9)) }
            else if a.hasPrefix("-o"), a.count > 2 { value = String(a.dropFirst(2)) }
            i += 1
        }
        return value == "json" || value == "jsonl"
    }
}
