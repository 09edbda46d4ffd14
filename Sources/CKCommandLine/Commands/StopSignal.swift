#if canImport(Glibc)
import Glibc
#endif

/// SIGINT and SIGTERM caught for a command that waits until stopped (`ck serve log --follow`, `ck notification
/// watch`): the handler only records which signal came, and the command's loop reads it and ends cleanly.
enum StopSignal {
    /// The signal received, 0 while none has come.
    nonisolated(unsafe) static var received: sig_atomic_t = 0

    /// Installs the handler, without SA_RESTART so a pause between polls ends at once.
    static func catchInterruptAndTerminate() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { sig in StopSignal.received = sig }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
        // A blocked signal mask is inherited: a program that started us from a thread blocking them (Foundation's
        // Process on a Dispatch thread does) could otherwise never stop the wait.
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGINT)
        sigaddset(&set, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}
