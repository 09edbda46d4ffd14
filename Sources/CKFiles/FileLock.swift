import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import CKModel
#endif

/// Who is told when a process has waited a second for a store lock (the command line says so on stderr).
public enum LockWaitNotice {
    package static let hook = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sets what is told the lock file's path after a second's wait; nil tells nobody.
    public static func set(_ notice: (@Sendable (String) -> Void)?) { hook.withLock { $0 = notice } }

    /// How long a wait goes unmentioned, in seconds.
    package static let seconds: Double = 1
}

/// A blocking wait for a lock on another thread, and whether its owner still wants the result.
private final class LockWait: Sendable {
    let done = DispatchSemaphore(value: 0)
    private let state = Mutex<(failure: Int32?, abandoned: Bool)>((nil, false))

    /// The waiting thread got the lock (0) or failed (errno); true when its owner has given up meanwhile.
    func finish(_ failure: Int32) -> Bool {
        let abandoned = state.withLock { s -> Bool in
            s.failure = failure
            return s.abandoned
        }
        done.signal()
        return abandoned
    }

    /// The owner gives up; false when the waiting thread finished first (its result stands).
    func abandon() -> Bool {
        state.withLock { s -> Bool in
            guard s.failure == nil else { return false }
            s.abandoned = true
            return true
        }
    }

    /// What the waiting thread reported: nil while it waits, 0 for the lock, else errno.
    var failure: Int32? { state.withLock { $0.failure } }
}

/// An advisory `flock` on a lock file: exclusive for writers, shared for readers.
package final class FileLock {
    private var fd: Int32

    /// How long a process waits for a lock before it gives up naming the holder (docs/store.md §7).
    package static let defaultTimeout: Double = 300

    /// Blocks until the lock is held, or fails after `CK_LOCK_TIMEOUT` seconds (default 300) naming the process
    /// that holds it: a stuck holder must not block everyone else forever. The file is created if missing.
    package init(path: String, exclusive: Bool) throws(CKError) {
        guard let parent = try ParentDirectory.open(path) else {
            throw CKError.internalError("cannot open lock file \(path): \(String(cString: strerror(ENOENT)))")
        }
        // The descriptor is the object's only once the lock is held: a throw before that runs no deinit (an
        // initializer that throws after setting every property does, and its close would be a second one, of a
        // number another thread of `ck serve` may have been handed meanwhile).
        let fd = parent.openLast(O_RDWR | O_CREAT | O_NONBLOCK)
        if fd < 0 {
            if errno == ELOOP { throw FileIO.refusedSymlink(path) }
            throw CKError.internalError("cannot open lock file \(path): \(String(cString: strerror(errno)))")
        }
        let mode = exclusive ? LOCK_EX : LOCK_SH
        // Uncontended, the lock is taken at once; a wait past a second is told (another ck is at work).
        // Once locked, directories another process moved meanwhile are walked afresh.
        if flock(fd, mode | LOCK_NB) == 0 {
            self.fd = fd
            DirectoryCache.forgetAll(keepingWayTo: path)
            return
        }
        // An event loop answering in place never waits: its request goes to a thread that does (LockNoWait).
        if LockNoWait.refuses() {
            close(fd)
            throw LockNoWait.refusal(path)
        }
        let timeout: Double
        do throws(CKError) { timeout = try FileLock.timeout() } catch {
            close(fd)
            throw error
        }
        // A blocking flock can't be given a deadline: a thread of its own blocks in it, on a duplicate of the
        // descriptor (one open file, so the lock it takes is this one's), and this thread waits for it with one.
        // The kernel hands the lock over the moment it is free, where polling would leave it idle in between.
        let duplicate = dup(fd)
        guard duplicate >= 0 else {
            let e = errno
            close(fd)
            throw CKError.internalError("cannot lock \(path): \(String(cString: strerror(e)))")
        }
        let wait = LockWait()
        let waiter = Thread {
            var failure: Int32 = 0
            while flock(duplicate, mode) != 0 {
                if errno != EINTR { failure = errno; break }
            }
            // A waiter that gave up meanwhile leaves the lock it got at once.
            if wait.finish(failure) && failure == 0 { flock(duplicate, LOCK_UN) }
            close(duplicate)
        }
        waiter.name = "ck.lock-wait"
        waiter.start()
        // Told after a second, given up after the timeout (which may be the shorter).
        let start = DispatchTime.now()
        var outcome = wait.done.wait(timeout: start + min(LockWaitNotice.seconds, timeout))
        if outcome == .timedOut && timeout > LockWaitNotice.seconds {
            LockWaitNotice.hook.withLock { $0 }?(path)
            outcome = wait.done.wait(timeout: start + timeout)
        }
        if outcome == .timedOut && wait.abandon() {
            let holders = FileLock.holders(fd)
            close(fd)
            throw FileLock.timedOut(path, after: timeout, holders: holders)
        }
        if let failure = wait.failure, failure != 0 {
            close(fd)
            throw CKError.internalError("cannot lock \(path): \(String(cString: strerror(failure)))")
        }
        self.fd = fd
        DirectoryCache.forgetAll(keepingWayTo: path)
    }

    /// `CK_LOCK_TIMEOUT` in seconds (a positive number), else the default.
    package static func timeout() throws(CKError) -> Double {
        guard let text = ProcessInfo.processInfo.environment["CK_LOCK_TIMEOUT"], !text.isEmpty else { return defaultTimeout }
        guard let seconds = Double(text), seconds > 0, seconds.isFinite else {
            throw CKError(.invalidArguments, "CK_LOCK_TIMEOUT: '\(Names.describe(text))' is not a number of seconds greater than 0",
                          hint: "set it to how long to wait for a store lock, such as 60, or unset it for \(Int(defaultTimeout))")
        }
        return seconds
    }

    /// The processes holding a flock on the file open as `fd`, from /proc/locks (Linux): pid and command line.
    package static func holders(_ fd: Int32) -> [(pid: Int32, command: String)] {
        var st = stat()
        guard fstat(fd, &st) == 0, let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return [] }
        var found: [(pid: Int32, command: String)] = []
        for line in table.split(separator: "\n") {
            // "1: FLOCK  ADVISORY  WRITE 1234 08:01:56789 0 EOF"; a waiter's line has "->" and holds nothing.
            let f = line.split(separator: " ", omittingEmptySubsequences: true)
            guard f.count >= 6, f[1] == "FLOCK", let pid = Int32(f[4]), f[5].split(separator: ":").last == Substring(String(st.st_ino)),
                  !found.contains(where: { $0.pid == pid }) else { continue }
            let raw = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))) ?? Data()
            let command = raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }.joined(separator: " ")
            found.append((pid, Names.describe(command)))
        }
        return found
    }

    /// The error of a waiter that gave up: which lock, who holds it, and what to do.
    static func timedOut(_ path: String, after seconds: Double, holders: [(pid: Int32, command: String)]) -> CKError {
        let who = holders.isEmpty ? "another process"
            : holders.map { "pid \($0.pid)" + ($0.command.isEmpty ? "" : " (\($0.command))") }.joined(separator: ", ")
        let pids = holders.map { String($0.pid) }.joined(separator: " ")
        let waited = seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
        return CKError(.serviceUnavailable, "gave up after \(waited) s waiting for the lock on \(path), held by \(who)",
                       hint: (pids.isEmpty ? "" : "if it is stuck, stop it ('kill \(pids)') and try again; ")
                           + "CK_LOCK_TIMEOUT sets how many seconds to wait (default \(Int(defaultTimeout)))")
    }

    /// Releases the lock (also released when the process exits).
    package func unlock() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
        fd = -1
        // Unlocked, others may move any directory (a long `ck serve` would otherwise keep reaching a deleted
        // container's tree): the next lock is walked to afresh.
        DirectoryCache.forgetAll()
    }

    deinit { unlock() }
}
