import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CKCore

/// `ck notification watch`: polls the user's notification log (its size and time, without the lock; read under
/// the lock only when they change) and prints each new notification as it is made.
extension NotificationCommand {
    /// How often the log is looked at, in milliseconds.
    static let watchInterval = 50
    /// The exit status when --timeout passes before --count notifications came (as timeout(1) reports it).
    static let timedOut: Int32 = 124

    static func watch(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("watch takes no arguments", command: inv.command.path) }
        let format = try inv.outputFormat()
        let count = inv.parsed.value("count").flatMap(Int.init)
        let timeout = inv.parsed.value("timeout").flatMap(Double.init)
        let only = inv.parsed.value("subscription")
        let root = inv.storeLocation.path
        let db = try inv.database()
        // A misspelt subscription would wait forever for a notification that can't come.
        if let only { _ = try db.subscription(only) }
        let response = NotificationsResponse(notifications: [], database: db)
        StopSignal.catchInterruptAndTerminate()
        // What exists now was made before the watch: only what comes after is printed.
        var seen = Set(try db.notifications().map(\.notificationID))
        var stamp = db.notificationLogStamp()
        let deadline = timeout.map { DispatchTime.now().uptimeNanoseconds + UInt64($0 * 1e9) }
        var printed = 0
        // Said once the baseline is taken: a script (or a test) can make its change after this line.
        inv.note("watching notifications of \(db.user)" + (only.map { " from subscription \($0)" } ?? "") + " (Ctrl-C to stop)")
        StreamWriter.stdout.flush()
        while true {
            if StopSignal.received != 0 { return 128 + Int32(StopSignal.received) }
            // The store deleted under the watch: nothing more can come, and reading on would recreate nothing useful.
            guard CKStore.exists(at: root) else {
                throw CKError(.badContainer, "the store at \(root) was removed while 'ck notification watch' waited (\(printed) printed)",
                              serverErrorCode: "NOT_FOUND", hint: "start the watch again once the store exists")
            }
            let now = db.notificationLogStamp()
            if now != stamp {
                stamp = now
                for n in try db.notifications() where seen.insert(n.notificationID).inserted {
                    guard only.map({ $0 == n.subscriptionID }) ?? true else { continue }
                    switch format {
                    case .json, .jsonl: inv.line(response.item(n).serialized())
                    case .name: inv.line(n.notificationID)
                    case .plain, .table:
                        inv.line([n.notificationID, n.kind.rawValue, what(n), n.deviceID, n.subscriptionID].joined(separator: "\t"))
                    }
                    StreamWriter.stdout.flush()
                    printed += 1
                    if let count, printed >= count { return ExitCode.success }
                }
            }
            if let deadline, DispatchTime.now().uptimeNanoseconds >= deadline {
                return count == nil ? ExitCode.success : timedOut
            }
            var pause = timespec(tv_sec: 0, tv_nsec: watchInterval * 1_000_000)
            // A signal cuts the pause short (EINTR), so Ctrl-C ends the watch at once.
            _ = nanosleep(&pause, nil)
        }
    }
}
