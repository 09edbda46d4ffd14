import Foundation
import CKCore

extension RecordSaveCommand {
    /// Ctrl-C during `--batch`: the handler only sets a flag, and the batch sends no request after the one in
    /// flight, so what it reports as saved is what the store holds (a killed batch leaves the user guessing).
    enum Interrupt {
        /// Set by SIGINT once the batch has started writing.
        nonisolated(unsafe) static var requested: sig_atomic_t = 0

        static var isRequested: Bool { requested != 0 }

        /// Catches the first SIGINT from here on (SA_RESTART, so the writes and syncs in flight are not cut short);
        /// SA_RESETHAND leaves a second Ctrl-C its default effect, for a user who won't wait for the request in flight.
        static func catchSIGINT() {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { _ in RecordSaveCommand.Interrupt.requested = 1 }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART | Int32(bitPattern: UInt32(SA_RESETHAND))
            sigaction(SIGINT, &action, nil)
            // A blocked mask is inherited (Foundation's Process starts children from a thread that blocks it).
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
    }

    /// How far a batch got: the operations sent in requests (the rest were never sent), and those applied.
    final class Tally {
        var sent = 0
        var applied = 0
    }

    /// The exit of an interrupted batch: on stderr, how many operations were saved and where the unsent rest
    /// starts, with how to go on; then any failures of the requests that were sent. Exit 130, as a shell
    /// reports a command ended by SIGINT.
    static func interrupted(_ inv: Invocation, batch: RecordBatch, tally: Tally, failure: CKError?) -> Int32 {
        // Cascade deletions add results of their own; what is reported is at most the operations sent.
        let applied = min(tally.applied, tally.sent)
        let rest = batch.count - tally.sent
        var reason = "saved \(applied) of \(batch.count) operations"
        if tally.sent > applied { reason += " (\(tally.sent - applied) failed)" }
        reason += rest > 0 ? "; the other \(rest), from \(batch.place(tally.sent)) on, were not sent" : "; every operation was sent"
        let hint = rest > 0 ? "to save the rest, run the same command again with --policy changed-keys (the records already saved fail as existing without it)" : nil
        let json = (try? inv.outputFormat()).map { $0 == .json || $0 == .jsonl } ?? false
        if json {
            // As the other errors with -o json: one object on stderr, with the counts a script needs.
            var o: [String: JSON] = ["error": .string("interrupted"), "reason": .string(reason), "saved": .int(Int64(applied)),
                                     "failed": .int(Int64(tally.sent - applied)), "notSent": .int(Int64(rest))]
            if rest > 0 { o["notSentFrom"] = .string(batch.place(tally.sent)) }
            if let hint { o["hint"] = .string(hint) }
            inv.terminal.writeErr(JSON.object(o).serialized() + "\n")
        } else {
            inv.terminal.writeErr("ck: interrupted: " + reason + "\n" + (hint.map { "hint: " + $0 + "\n" } ?? ""))
        }
        if let failure { _ = ErrorReport.report(failure, invocation: inv, terminal: inv.terminal, json: json) }
        return ExitCode.interrupted
    }
}
