import CKCore

/// A mistake in how `ck` was called: exit 64, as cktool.
public struct UsageError: Error, Sendable {
    public var message: String
    /// The command whose help the user should read.
    public var command: String

    public init(_ message: String, command: String = "ck") {
        self.message = message
        self.command = command
    }
}

/// A parsed command line: the command reached, its options and its positional arguments.
public struct ParsedCommand {
    public var command: CommandSpec
    public var values: [String: [String]] = [:]
    public var flags: Set<String> = []
    public var positionals: [String] = []

    public func value(_ long: String) -> String? { values[long]?.last }
    public func all(_ long: String) -> [String] { values[long] ?? [] }
    public func flag(_ long: String) -> Bool { flags.contains(long) }
}

/// Parses argv against the command tree. Global options are accepted anywhere; `--` ends options.
public enum ArgumentParser {
    public static func parse(_ args: [String], root: CommandSpec, globals: [OptionSpec]) throws(UsageError) -> ParsedCommand {
        var result = ParsedCommand(command: root)
        var i = 0
        var onlyPositionals = false
        func lookup(long: String) -> OptionSpec? {
            result.command.options.first { $0.long == long } ?? globals.first { $0.long == long }
        }
        func lookup(short: Character) -> OptionSpec? {
            result.command.options.first { $0.short == short } ?? globals.first { $0.short == short }
        }
        func record(_ opt: OptionSpec, _ value: String?) throws(UsageError) {
            guard let value else { result.flags.insert(opt.long); return }
            if !opt.choices.isEmpty && !opt.choices.contains(value) {
                let close = Names.closest(to: value, among: opt.choices).map { "; did you mean '\($0)'?" } ?? ""
                throw UsageError("invalid value '\(value)' for --\(opt.long): expected one of \(opt.choices.joined(separator: ", "))" + close,
                                 command: result.command.path)
            }
            if !opt.rule.accepts(value), let expected = opt.rule.expectation {
                throw UsageError("invalid value '\(value)' for --\(opt.long): expected \(expected)", command: result.command.path)
            }
            if !opt.repeatable, let prev = result.values[opt.long]?.last, prev != value, !globals.contains(where: { $0.long == opt.long }) {
                throw UsageError("--\(opt.long) given twice ('\(prev)' and '\(value)')", command: result.command.path)
            }
            result.values[opt.long, default: []].append(value)
        }
        while i < args.count {
            let a = args[i]
            i += 1
            if onlyPositionals { result.positionals.append(a); continue }
            if a == "--" { onlyPositionals = true; continue }
            if a.hasPrefix("--") {
                var name = String(a.dropFirst(2))
                var inline: String? = nil
                if let eq = name.firstIndex(of: "=") {
                    inline = String(name[name.index(after: eq)...])
                    name = String(name[..<eq])
                }
                guard let opt = lookup(long: name) else {
                    throw UsageError("unknown option '--\(name)'" + suggestion(name, result.command, globals, root: root), command: result.command.path)
                }
                if opt.takesValue {
                    if inline == nil {
                        guard i < args.count else { throw UsageError("--\(name) needs a value <\(opt.valueName ?? "")>", command: result.command.path) }
                        inline = args[i]
                        i += 1
                    }
                    try record(opt, inline)
                } else {
                    if inline != nil { throw UsageError("--\(name) takes no value", command: result.command.path) }
                    try record(opt, nil)
                }
                continue
            }
            if a.count >= 2, a.hasPrefix("-"), !isNumber(a) {
                let chars = Array(a.dropFirst())
                for (k, c) in chars.enumerated() {
                    guard let opt = lookup(short: c) else {
                        throw UsageError("unknown option '-\(c)'", command: result.command.path)
                    }
                    if opt.takesValue {
                        // The rest of the word (String(chars[…]) would go through a generic, slow first call).
                        let rest = String(a.dropFirst(k + 2))
                        if !rest.isEmpty { try record(opt, rest.hasPrefix("=") ? String(rest.dropFirst()) : rest); break }
                        guard i < args.count else { throw UsageError("-\(c) needs a value <\(opt.valueName ?? "")>", command: result.command.path) }
                        try record(opt, args[i])
                        i += 1
                        break
                    }
                    try record(opt, nil)
                }
                continue
            }
            if result.positionals.isEmpty, let sub = result.command.subcommand(a) {
                result.command = sub
                continue
            }
            result.positionals.append(a)
        }
        return result
    }

    static func isNumber(_ s: String) -> Bool { Double(s) != nil }

    static func suggestion(_ name: String, _ cmd: CommandSpec, _ globals: [OptionSpec], root: CommandSpec) -> String {
        // cktool's spelling of an option ck has under another name (or as an argument) points at ck's, not a near one.
        if let known = CktoolVocabulary.suggestion(option: name, cmd, globals, root: root) { return known }
        let all = (cmd.options + globals).filter { !$0.hidden }.map(\.long)
        return Names.closest(to: name, among: all).map { "; did you mean '--\($0)'?" } ?? ""
    }
}
