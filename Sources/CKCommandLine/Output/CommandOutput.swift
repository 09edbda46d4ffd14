import CKCore

/// A command's result, once, in every output format: `Invocation.emit` picks the format, renders and writes it, so
/// no command decides its format by hand. The `json` value is the `-o json` promise (docs/cli.md); golden files
/// under Tests/EndToEndTests/Golden/output pin it.
protocol CommandOutput {
    /// `-o json`: one document, pretty-printed.
    var json: JSON { get }
    /// `-o jsonl`: one compact object a line (default: the document).
    var jsonLines: [JSON] { get }
    /// `-o plain`: lines for scripts, fields tab-separated.
    var plain: [String] { get }
    /// `-o name`: names, one a line (default: the plain lines). `OutputFormat.names` lists the commands that have them.
    var names: [String] { get }
    /// `-o table`: the text people read, newline-ended lines (default: the plain lines).
    var table: String { get }
    /// Notes for people on stderr after the table, silenced by -q (an empty list says so there, stdout stays empty).
    var notes: [String] { get }
    /// Whether `-o json` prints the document on one line, as `-o jsonl` does (cktool's validate-schema answer).
    var compactJSON: Bool { get }
    /// What refuses `-o name` though its command prints names (`query --explain`), or nil.
    var refusesNames: String? { get }
}

extension CommandOutput {
    var jsonLines: [JSON] { [json] }
    var names: [String] { plain }
    var table: String { Self.text(plain) }
    var notes: [String] { [] }
    var compactJSON: Bool { false }
    var refusesNames: String? { nil }

    /// Lines as text, each ended by a newline. A loop, not `joined()`: the standard library's `joined` runs
    /// unspecialised and looks up associated types at run time, a conformance scan per command (docs/performance.md).
    static func text(_ lines: [String]) -> String {
        var text = ""
        for line in lines {
            text += line
            text += "\n"
        }
        return text
    }

    /// What the output prints in `format`: its stdout text, and for a table its notes.
    func rendered(as format: OutputFormat) -> Rendered {
        switch format {
        case .json: return Rendered((compactJSON ? json.serialized() : json.pretty()) + "\n")
        case .jsonl: return Rendered(Self.text(jsonLines.map { $0.serialized() }))
        case .plain: return Rendered(Self.text(plain))
        case .name: return Rendered(Self.text(names))
        case .table: return Rendered(table, notes: notes)
        }
    }
}

/// What an output prints in one format: text on stdout, then notes for people on stderr (silenced by -q).
struct Rendered {
    var text: String
    var notes: [String]

    init(_ text: String, notes: [String] = []) {
        self.text = text
        self.notes = notes
    }
}

/// A result shown as `name value` rows (a `show` command): aligned for people, `name<TAB>value` for scripts.
protocol RowsOutput: CommandOutput {
    /// The rows, in order.
    var rows: [(String, String)] { get }
}

extension RowsOutput {
    var plain: [String] { rows.map { $0.0 + "\t" + RecordText.escape($0.1) } }
    var table: String {
        let width = rows.map(\.0.count).max() ?? 0
        return Self.text(rows.map { $0.0.padding(toLength: width + 2, withPad: " ", startingAt: 0) + $0.1 })
    }
}

/// A result that is one sentence for people and one line for scripts (a change: created, set, removed).
protocol OutcomeOutput: CommandOutput {
    /// The line for scripts.
    var line: String { get }
    /// The sentence for people.
    var sentence: String { get }
}

extension OutcomeOutput {
    var plain: [String] { [line] }
    var table: String { sentence + "\n" }
}

extension Invocation {
    /// Prints a command's result in the chosen format: the one place a format is chosen for stdout. What is written
    /// goes through `out` (held with `holdOutput` until writes are durable); a failed write to stdout is checked
    /// once for every command when ck exits (`CKCommandLineTool.runAndExit`), which then exits non-zero.
    func emit(_ output: some CommandOutput) throws {
        let format = try outputFormat()
        if format == .name, let what = output.refusesNames {
            throw UsageError("\(what) prints no names; use -o plain or -o json", command: command.path)
        }
        write(output.rendered(as: format))
    }

    /// Writes rendered output: its text on stdout, its notes on stderr.
    func write(_ rendered: Rendered) {
        if !rendered.text.isEmpty { out(rendered.text) }
        for n in rendered.notes { note(n) }
    }
}
