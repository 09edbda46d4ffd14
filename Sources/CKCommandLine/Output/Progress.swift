/// A one-line progress report for long work, on stderr — only on a terminal, and never with -q.
struct Progress {
    let inv: Invocation
    let total: Int
    let verb: String
    let enabled: Bool

    /// Work shorter than this shows nothing: a line that flashes by only adds noise.
    static let threshold = 1_000

    init(_ inv: Invocation, total: Int, verb: String) {
        self.inv = inv
        self.total = total
        self.verb = verb
        enabled = inv.terminal.stderrIsTTY && !inv.quiet && total >= Progress.threshold
    }

    func update(_ done: Int) {
        guard enabled else { return }
        inv.terminal.writeErr("\rck: \(verb) \(min(done, total)) of \(total) (\(min(done, total) * 100 / max(total, 1))%)")
    }

    /// Ends the line so later messages start on their own.
    func finish() {
        guard enabled else { return }
        inv.terminal.writeErr("\n")
    }
}
