import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How `ck serve` stops on SIGINT and SIGTERM. Both are blocked before the server starts any thread (threads inherit
/// the mask, and Dispatch's own block them), so one sent at any moment after that stays pending until a thread of
/// its own takes it with `sigwait`. A Dispatch signal source was used before: it registers on Dispatch's manager
/// thread some time after `resume()` returns, and a signal sent in between (a script stopping the server as soon as
/// it printed its line) met the ignored disposition and was lost, leaving the server running.
extension ServeCommand {
    /// SIGINT and SIGTERM.
    static var stopSignals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        return set
    }

    /// Blocks the stop signals in the calling thread; call before the server starts threads.
    static func holdStopSignals() {
        var set = stopSignals
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }

    /// Calls `stop` once either stop signal comes (or came since `holdStopSignals`), from a thread of its own.
    static func stopOnSignal(_ stop: @escaping @Sendable () -> Void) {
        let waiter = Thread {
            var set = ServeCommand.stopSignals
            var received: Int32 = 0
            while sigwait(&set, &received) != 0 {}
            stop()
        }
        waiter.start()
    }
}
