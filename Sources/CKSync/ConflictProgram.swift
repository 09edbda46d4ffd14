import Foundation
import CKModel
import CKFiles
#if canImport(Glibc)
import Glibc
#endif

/// The app's merge function given as `ck sync --on-conflict CMD`: run with `/bin/sh -c` in a process group of its
/// own, the conflict as JSON on its stdin, the merged record read from its stdout. It may not outlive `timeout`:
/// then its whole group is killed, so a program that left children behind leaves nothing running.
package struct ConflictProgram {
    package var command: String
    package var timeout: Double

    /// The most output read from the program: a record is at most 1 MB, so more is a mistake.
    package static let maxOutput = 8 << 20

    /// An error naming the program and what it did.
    package func failure(_ what: String) -> CKError {
        CKError(.serverRecordChanged, "conflict program '\(command)' \(what)",
                hint: "the program reads {\"ancestor\", \"client\", \"server\"} on stdin and prints one record of the same recordName and type")
    }

    /// The first bytes of some output, for an error message.
    package static func excerpt(_ bytes: [UInt8]) -> String {
        let text = String(decoding: bytes.prefix(80), as: UTF8.self)
        let shown = text.map { $0 == "\n" ? "\\n" : String($0) }.joined()
        return "'" + shown + (bytes.count > 80 ? "…" : "") + "'"
    }

    /// `10`, `1.5`: seconds as a message shows them.
    package static func seconds(_ s: Double) -> String { s == s.rounded() && abs(s) < 1e15 ? String(Int(s)) : String(s) }

    /// Collected output of one stream, filled by a reader thread.
    private final class Sink: @unchecked Sendable {
        var bytes: [UInt8] = []
        var overflow = false
    }

    /// Runs the program with `input` on stdin; answers its stdout, or throws when it could not start, exited
    /// non-zero, was killed by a signal, or ran past the timeout.
    package func run(_ input: [UInt8]) throws(CKError) -> [UInt8] {
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1], errPipe: [Int32] = [-1, -1]
        // Close-on-exec: the program gets only its own ends (dup2 clears the flag), so its stdin sees EOF.
        guard pipe(&inPipe) == 0, pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            for fd in inPipe + outPipe + errPipe where fd >= 0 { close(fd) }
            throw failure("could not be started: " + String(cString: strerror(errno)))
        }
        for fd in inPipe + outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Its own process group (pgid = its pid), so a timeout can kill everything it started.
        let spawn = SpawnAttributes(defaultSignals: [SIGPIPE, SIGINT, SIGTERM, SIGHUP], ownProcessGroup: true)
        let argv: [String] = ["sh", "-c", command]
        let args = argv.map { strdup($0) } + [nil]
        defer { args.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, "/bin/sh", &actions, &spawn.attr, args, environ)
        close(inPipe[0]); close(outPipe[1]); close(errPipe[1])
        guard rc == 0 else {
            close(inPipe[1]); close(outPipe[0]); close(errPipe[0])
            throw failure("could not be started: " + String(cString: strerror(rc)))
        }
        let out = Sink(), err = Sink()
        let group = DispatchGroup()
        let stdinFD = inPipe[1], stdoutFD = outPipe[0], stderrFD = errPipe[0]
        group.enter()
        let writer = Thread {
            // A program that does not read its input ends the write with EPIPE, not ck with SIGPIPE: the signal is
            // blocked on this thread only, and the one the failed write raised is taken off it before it ends.
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
            var offset = 0
            while offset < input.count {
                let n = input[offset...].withUnsafeBytes { write(stdinFD, $0.baseAddress, $0.count) }
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { break }
                offset += n
            }
            close(stdinFD)
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGPIPE) == 1 {
                var none = timespec()
                _ = sigtimedwait(&pipeSignal, nil, &none)
            }
            group.leave()
        }
        writer.start()
        for (fd, sink) in [(stdoutFD, out), (stderrFD, err)] {
            DispatchQueue.global().async(group: group) {
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { break }
                    // Read on past the cap (so the program never blocks on a full pipe), keeping nothing more.
                    if sink.bytes.count + n > ConflictProgram.maxOutput { sink.overflow = true } else { sink.bytes += buffer[0..<n] }
                }
                close(fd)
            }
        }
        let deadline = Date().addingTimeInterval(timeout)
        var timedOut = false
        // Wait for the shell to end without reaping it: while it is a zombie its pid (the group's id) can't be
        // reused, so the group can be killed safely afterwards too.
        while true {
            var info = siginfo_t()
            if waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != EINTR { break }
            if info.si_signo == SIGCHLD { break }
            if Date() >= deadline { timedOut = true; break }
            usleep(2000)
        }
        // Whatever it left running (or all of it, on a timeout) goes with it: nothing outlives the conflict.
        kill(-pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        group.wait()
        if timedOut { throw failure("timed out after \(ConflictProgram.seconds(timeout)) s; its process group was killed") }
        let signal = status & 0x7f
        if signal != 0 { throw failure("was killed by signal \(signal)") }
        let code = (status >> 8) & 0xff
        if code != 0 {
            let said = String(decoding: err.bytes.prefix(200), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            throw failure("exited with status \(code)" + (said.isEmpty ? "" : " (stderr: \(said))"))
        }
        if out.overflow { throw failure("printed more than \(ConflictProgram.maxOutput >> 20) MB") }
        return out.bytes
    }
}

