import Foundation
import CKFiles
#if canImport(Glibc)
import Glibc
#endif

/// Runs one child process with the standard streams passed through, as `ck exec` needs. While it runs, SIGINT,
/// SIGTERM and SIGHUP sent to ck (by `kill`) are passed on to the child, and ck waits for it to end so that it can
/// clean up; the same signals from a terminal already reach the child, which is in ck's process group.
enum ChildProcess {
    /// The child being waited for (0: none), and the last signal ck received; read by the signal handler.
    nonisolated(unsafe) private static var child: pid_t = 0
    nonisolated(unsafe) private(set) static var received: Int32 = 0

    static let forwarded: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Catches the signals `run` forwards, from now until ck exits: a signal before the child starts is only
    /// remembered (`received`), so the caller can clean up and stop.
    static func catchSignals() {
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { sig, info, _ in
            ChildProcess.received = sig
            // Sent by kill(2) (si_code <= 0), not by the terminal, which signals the whole process group itself.
            if ChildProcess.child > 0, let info, info.pointee.si_code <= 0 { kill(ChildProcess.child, sig) }
        }
        action.sa_flags = SA_SIGINFO
        sigemptyset(&action.sa_mask)
        for s in forwarded { sigaction(s, &action, nil) }
        // ck may have started with them blocked (a parent's mask is inherited): they must reach the handler.
        var set = sigset_t()
        sigemptyset(&set)
        for s in forwarded { sigaddset(&set, s) }
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }

    enum Outcome {
        /// The child's exit status, or 128 + the signal that ended it (as shells report it).
        case finished(Int32)
        /// It could not be started: the reason (errno) and the exit code a shell gives (127 not found, 126 not runnable).
        case notStarted(String, Int32)
    }

    /// Starts `argv` (looked up on PATH) with `environment` and waits for it.
    static func run(_ argv: [String], environment: [String: String]) -> Outcome {
        // The child starts with default handling of what ck catches or ignores (the runtime ignores SIGPIPE).
        let spawn = SpawnAttributes(defaultSignals: forwarded + [SIGPIPE])
        let args = argv.map { strdup($0) } + [nil]
        let env = environment.sorted(by: { $0.key < $1.key }).map { strdup($0.key + "=" + $0.value) } + [nil]
        defer {
            args.forEach { free($0) }
            env.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawnp(&pid, argv[0], nil, &spawn.attr, args, env)
        guard rc == 0 else { return .notStarted(String(cString: strerror(rc)), rc == ENOENT ? 127 : 126) }
        child = pid
        defer { child = 0 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            // Interrupted by a signal ck caught (and passed on): keep waiting for the child to end.
            if errno != EINTR { return .notStarted("waiting for it failed: " + String(cString: strerror(errno)), 1) }
        }
        let signal = status & 0x7f
        return .finished(signal == 0 ? (status >> 8) & 0xff : 128 + signal)
    }
}
