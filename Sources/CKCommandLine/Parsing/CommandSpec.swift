#if canImport(Glibc)
import Glibc
#endif

/// What a shell can complete for a value.
public enum CompletionKind: String, Sendable {
    case none, file, directory, command, container, zone, recordType, field, recordName, user, role, subscription, device, kvKey, fault
    /// A custom zone: the zones that have a change feed (not `_defaultZone`).
    case customZone
    /// A field name followed by `=` (no space after it), for `field=value` arguments.
    case fieldAssignment
    /// A field name or one of the system fields (`___recordID`, …) an index can be put on.
    case indexField
    /// A `--sort` value: the type's sortable fields and the system fields a query sorts by, each also as `-field`.
    case sortField
    /// A notification ID of the acting user.
    case notification
    /// A share record name of the acting user's zone (-z).
    case share

    /// Kinds whose candidates depend on the record type named earlier on the line.
    public var takesRecordType: Bool { self == .field || self == .fieldAssignment || self == .indexField || self == .sortField }
}

/// What an option's value must be. The parser checks it, so a command reads a value already known to be valid.
public enum ValueRule: Sendable, Equatable {
    case text
    /// A whole number in a range (no upper bound when `max` is nil).
    case integer(min: Int, max: Int? = nil)
    /// A finite decimal number in a range.
    case number(min: Double, max: Double? = nil)
    /// Comma-separated words, each one of these (empty items are ignored).
    case list([String])

    /// What a value must be, for an error message; nil when any text goes.
    public var expectation: String? {
        switch self {
        case .text: return nil
        case .integer(let min, let max): return "a whole number " + (max.map { "from \(min) to \($0)" } ?? "of at least \(min)")
        case .number(let min, let max): return "a number " + (max.map { "from \(Self.show(min)) to \(Self.show($0))" } ?? "of at least \(Self.show(min))")
        case .list(let words): return "a comma-separated list of " + words.joined(separator: ", ")
        }
    }

    /// Whether a value keeps the rule.
    public func accepts(_ value: String) -> Bool {
        switch self {
        case .text: return true
        case .integer(let min, let max):
            guard let n = Int(value) else { return false }
            return n >= min && max.map { n <= $0 } ?? true
        case .number(let min, let max):
            guard let n = Double(value), n.isFinite else { return false }
            return n >= min && max.map { n <= $0 } ?? true
        case .list(let words):
            return ValueRule.items(value).allSatisfy(words.contains)
        }
    }

    /// The items of a list value, trimmed, empty ones left out.
    public static func items(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingBlanks }.filter { !$0.isEmpty }
    }

    static func show(_ d: Double) -> String { d == d.rounded() ? String(Int(d)) : String(d) }
}

/// One option of a command (or a global option).
public struct OptionSpec: Sendable {
    public var long: String
    public var short: Character?
    /// Placeholder for the option's value; nil for a flag.
    public var valueName: String?
    public var help: String
    public var repeatable = false
    /// Allowed values (also offered by completion).
    public var choices: [String] = []
    public var completion: CompletionKind = .none
    public var hidden = false
    /// What the value must be besides one of `choices`.
    public var rule: ValueRule = .text
    /// For a flag that changes what the positional arguments are (`record delete --query <type>`): those
    /// arguments, which completion offers instead of the command's own when the flag is on the line.
    public var positionals: [ArgumentSpec]? = nil

    public init(_ long: String, short: Character? = nil, value: String? = nil, help: String, repeatable: Bool = false,
                choices: [String] = [], completion: CompletionKind = .none, hidden: Bool = false, rule: ValueRule = .text,
                positionals: [ArgumentSpec]? = nil) {
        self.positionals = positionals
        self.long = long
        self.short = short
        self.valueName = value
        self.help = help
        self.repeatable = repeatable
        self.choices = choices
        self.completion = completion
        self.hidden = hidden
        self.rule = rule
    }

    public var takesValue: Bool { valueName != nil }

    /// `-c, --container <id>`.
    public var synopsis: String {
        var s = short.map { "-\($0), " } ?? ""
        s += "--" + long
        if let v = valueName { s += " <\(v)>" }
        return s
    }
}

/// One positional argument.
public struct ArgumentSpec: Sendable {
    public var name: String
    public var help: String
    public var optional = false
    public var repeatable = false
    public var completion: CompletionKind = .none
    /// Values completion offers (the argument may still take others, e.g. a command path).
    public var choices: [String] = []

    public init(_ name: String, help: String, optional: Bool = false, repeatable: Bool = false, completion: CompletionKind = .none,
                choices: [String] = []) {
        self.name = name
        self.help = help
        self.optional = optional
        self.repeatable = repeatable
        self.completion = completion
        self.choices = choices
    }

    /// `<name>`, `[<name>]`, `<name> ...`.
    public var synopsis: String {
        var s = "<\(name)>"
        if repeatable { s += " ..." }
        return optional ? "[\(s)]" : s
    }
}

/// A subcommand declared by name, built on first use: `ck record fetch` then builds only the specs it walks
/// through, not the whole tree (each spec's options, help and choices cost start-up time).
public struct LazySubcommand: Sendable {
    public let name: String
    let make: @Sendable () -> CommandSpec

    init(_ name: String, _ make: @escaping @Sendable () -> CommandSpec) {
        self.name = name
        self.make = make
    }
}

/// A node of the command tree: a noun with verbs, or a verb that runs.
public final class CommandSpec: @unchecked Sendable {
    public let name: String
    public let summary: String
    public let discussion: String
    public let arguments: [ArgumentSpec]
    public let options: [OptionSpec]
    public let examples: [(command: String, explanation: String)]
    public let hidden: Bool
    let run: ((Invocation) throws -> Int32)?
    private weak var parentSpec: CommandSpec?
    /// Subcommands as given, or declared lazily (`built` keeps those made so far, under `lock`).
    private let eager: [CommandSpec]
    private let lazy: [LazySubcommand]
    private var built: [CommandSpec?]
    private let lock = SpecLock()

    init(_ name: String, summary: String, discussion: String = "", arguments: [ArgumentSpec] = [],
         options: [OptionSpec] = [], examples: [(String, String)] = [], hidden: Bool = false,
         subcommands: [CommandSpec] = [], lazySubcommands: [LazySubcommand] = [], run: ((Invocation) throws -> Int32)? = nil) {
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.arguments = arguments
        self.options = options
        self.examples = examples.map { (command: $0.0, explanation: $0.1) }
        self.hidden = hidden
        self.lazy = lazySubcommands
        self.eager = subcommands
        // Kept apart from `eager`: turning [CommandSpec] into [CommandSpec?] is a run-time cast, a start-up cost.
        self.built = Array(repeating: nil, count: lazySubcommands.count)
        self.run = run
        for s in subcommands { s.parentSpec = self }
    }

    public var parent: CommandSpec? { lock.locked { parentSpec } }

    /// The subcommands, in order (lazily declared ones are built now).
    public var subcommands: [CommandSpec] { lazy.isEmpty ? eager : lazy.indices.map(child) }

    /// Subcommand `i`, built if it was declared lazily. It is built outside the lock: a spec's own set-up may walk
    /// the tree, and `make` returns the same instance every time (a static property), so a race only builds it once.
    private func child(_ i: Int) -> CommandSpec {
        if let c = lock.locked({ built[i] }) { return c }
        let c = lazy[i].make()
        c.lock.locked { c.parentSpec = self }
        lock.locked { built[i] = c }
        return c
    }

    /// `ck record save`.
    public var path: String {
        // Concatenated, not joined: every command line asks for its path, and the generic joined's first call
        // costs more than the rest of parsing.
        guard let up = parent else { return name }
        return up.path + " " + name
    }

    public func subcommand(_ name: String) -> CommandSpec? {
        if !lazy.isEmpty { return lazy.firstIndex { $0.name == name }.map(child) }
        return subcommands.first { $0.name == name }
    }

    public var visibleSubcommands: [CommandSpec] { subcommands.filter { !$0.hidden } }

    /// Every command below this one, depth first.
    public var allDescendants: [CommandSpec] { subcommands.flatMap { [$0] + $0.allDescendants } }

    public func option(long: String) -> OptionSpec? { options.first { $0.long == long } }
}

/// A mutex for the tree's lazily built nodes (tests run commands in parallel threads of one process).
final class SpecLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()

    init() { pthread_mutex_init(&mutex, nil) }
    deinit { pthread_mutex_destroy(&mutex) }

    func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body()
    }
}
