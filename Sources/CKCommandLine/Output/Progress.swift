/// A one-line progress report for long work, on stderr — only on a terminal, and never with -q.
struct Progress {
    let inv: Invocation
    let total: Int
    let verb: String
    let enabled: Bool
    let bytes: Bool

    /// Work shorter than this shows nothing: a line that flashes by only adds noise.
    static let threshold = 1_000
    /// The same for work counted in bytes.
    static let byteThreshold = 4 << 20

    /// Progress over `total` items, or over `total` bytes when `bytes` is true.
    init(_ inv: Invocation, total: Int, verb: String, bytes: Bool = false) {
        self.inv = inv
        self.total = total
        self.verb = verb
        self.bytes = bytes
        enabled = inv.terminal.stderrIsTTY && !inv.quiet && total >= (bytes ? Progress.byteThreshold : Progress.threshold)
    }

    func update(_ done: Int) {
        guard enabled else { return }
        let d = min(done, total)
        let amount = bytes ? "\(Progress.megabytes(d)) of \(Progress.megabytes(total)) MB" : "\(d) of \(total)"
        inv.terminal.writeErr("\rck: \(verb) \(amount) (\(d * 100 / max(total, 1))%)")
    }

    /// Megabytes with one decimal.
    static func megabytes(_ n: Int) -> String {
        let tenths = (n * 10 + (1 << 19)) >> 20
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// Ends the line so later messages start on their own.
    func finish() {
        guard enabled else { return }
        inv.terminal.writeErr("\n")
    }
}

/// A progress line whose total comes with each report, as CKCore's progress callbacks give it.
final class ProgressLine {
    private let inv: Invocation
    private let verb: String
    private let bytes: Bool
    private var progress: Progress?

    init(_ inv: Invocation, verb: String, bytes: Bool = false) {
        self.inv = inv
        self.verb = verb
        self.bytes = bytes
    }

    func update(_ done: Int, of total: Int) {
        if progress == nil { progress = Progress(inv, total: total, verb: verb, bytes: bytes) }
        progress?.update(done)
    }

    /// Ends the line once (callers `defer` it, so an error message starts on a line of its own).
    func finish() {
        progress?.finish()
        progress = nil
    }
}
