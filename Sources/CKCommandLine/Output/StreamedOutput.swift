/// A result printed a page at a time as the server answers it, so memory holds one page however long the result
/// (docs/performance.md): the streaming form of `CommandOutput`. `Invocation.stream` picks the format once; a
/// format that needs the whole result (a json document, an aligned table) keeps what it needs until the end.
protocol StreamedOutput {
    /// One page of the result, as the server answers it.
    associatedtype Page
    /// Takes a page and returns its text in `format`, to print now ("" when the format waits for the end).
    mutating func add(_ page: Page, as format: OutputFormat) -> String
    /// The same text appended to `out` as UTF-8: an output that makes bytes prints them with no `String` between.
    mutating func add(_ page: Page, as format: OutputFormat, into out: inout [UInt8])
    /// What prints after the last page: the rest of the text, and notes for people on stderr.
    func end(as format: OutputFormat) -> Rendered
}

extension StreamedOutput {
    mutating func add(_ page: Page, as format: OutputFormat, into out: inout [UInt8]) { out += add(page, as: format).utf8 }
}

/// A streamed output being printed, in the format chosen when it started.
struct PageStream<Output: StreamedOutput> {
    private let inv: Invocation
    private let format: OutputFormat
    /// The output being printed.
    private(set) var output: Output

    fileprivate init(_ output: Output, format: OutputFormat, inv: Invocation) {
        self.output = output
        self.format = format
        self.inv = inv
    }

    /// Prints a page (what its format prints as it comes).
    mutating func add(_ page: Output.Page) {
        // Stdout is /dev/null: a page printed as it comes would reach nobody (a bulk load's output, sent away).
        // The formats that wait for the end still gather it, for the notes they may print on stderr.
        if inv.terminal.stdoutDiscarded, format == .plain || format == .jsonl || format == .name { return }
        var text: [UInt8] = []
        output.add(page, as: format, into: &text)
        if !text.isEmpty { inv.out(bytes: text) }
    }

    /// Prints the end of the output.
    func finish() { inv.write(output.end(as: format)) }
}

extension Invocation {
    /// Starts printing a streamed result in the chosen format: the streaming counterpart of `emit`. The format is
    /// resolved before the output is made, so a bad CK_OUTPUT is refused before the store opens.
    func stream<Output: StreamedOutput>(_ output: @autoclosure () throws -> Output) throws -> PageStream<Output> {
        let format = try outputFormat()
        return PageStream(try output(), format: format, inv: self)
    }
}
