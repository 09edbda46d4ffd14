import Foundation
#if canImport(Glibc)
import Glibc
import CKModel
#endif

/// A change to several files below one directory, made all or nothing (docs/reliability.md, "Operations on
/// several files"). New versions are built aside in `.pending-<random>/new/`; `commit` fsyncs them, writes and
/// fsyncs the intent record `.intent.json` naming every step, then moves each target into `.pending-…/old/`
/// and renames its new version in, and removes the old versions last. A crash before the intent record is
/// written leaves the store as it was (the pending directory was never committed: the next writer removes it);
/// a crash after it is finished by whoever next holds the lock (`recover`), or by `ck doctor --repair`.
/// The caller holds the exclusive lock that covers `base` for the whole operation.
package final class Intent {
    /// One target, relative to `base`: replaced by what was staged for it, or removed.
    package struct Step {
        package var path: String
        package var replaced: Bool
    }

    package static let fileName = ".intent.json"
    package static let pendingPrefix = ".pending-"

    package let base: String
    package let operation: String
    /// The pending directory's name in `base`.
    package let pending: String
    package private(set) var steps: [Step] = []
    private var committed = false
    /// The pending directory, open and flock'd for as long as this operation lives: a tree whose lock nobody
    /// holds belongs to a process that died, and is the only kind recovery removes.
    private let owner: Int32

    /// Starts an operation named `operation` (shown by `ck doctor` if it is interrupted).
    package init(base: String, operation: String) throws(CKError) {
        self.base = base
        self.operation = operation
        // An unpredictable name made with mkdir, which fails rather than reuse anything already there.
        let id = String(UInt64.random(in: 0...UInt64.max), radix: 16)
        pending = Intent.pendingPrefix + id
        // Built under a temporary name and locked before it is renamed to its pending name, so no other process
        // ever sees an unlocked pending tree of a live operation. Made and moved through the store's walk, which
        // follows no link.
        let building = base + "/." + String(pending.dropFirst()) + ".tmp-\(getpid())"
        try FileIO.makeNewDirectory(building)
        guard let fd = FileIO.openDirectory(building) else {
            let why = FileIO.errnoText()
            _ = FileIO.removeEmptyDirectory(building)
            throw CKError.internalError("cannot open \(building): \(why)")
        }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let why = FileIO.errnoText()
            close(fd)
            _ = FileIO.removeEmptyDirectory(building)
            throw CKError.internalError("cannot lock \(building): \(why)")
        }
        owner = fd
        for dir in [building + "/new", building + "/old"] {
            try FileIO.makeNewDirectory(dir)
        }
        try FileIO.rename(building, base + "/" + pending)
    }

    deinit {
        // Never committed: nothing refers to what was built, so it goes (the next writer would remove it anyway).
        if !committed { FileIO.removeNow(base + "/" + pending) }
        close(owner)
    }

    /// Whether the process that made the pending tree `name` in `base` still runs (it holds the tree's lock).
    package static func isLive(_ base: String, _ name: String) -> Bool {
        let fd = open(base + "/" + name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    /// Where to build the new version of `relative` (a file or a directory tree); it replaces the target on commit.
    package func stage(_ relative: String) -> String {
        steps.append(Step(path: relative, replaced: true))
        return Intent.newPath(base: base, pending: pending, steps.count - 1)
    }

    /// Removes `relative` (a file or a tree) on commit.
    package func remove(_ relative: String) {
        steps.append(Step(path: relative, replaced: false))
    }

    /// Makes the change. `finish` runs after the swap and before the intent record goes (index updates): if a
    /// crash interrupts it, recovery redoes what it stands for.
    package func commit(then finish: () throws(CKError) -> Void = {}) throws(CKError) {
        try FileIO.syncTree(base + "/" + pending)
        try JSONFile.write(base + "/" + Intent.fileName, json)
        committed = true
        try Intent.apply(base: base, pending: pending, steps: steps)
        try finish()
        try Intent.complete(base: base, pending: pending)
    }

    package var json: JSON {
        .object(["format": .int(1), "operation": .string(operation), "pending": .string(pending),
                 "steps": .array(steps.map { .object(["path": .string($0.path), "replaced": .bool($0.replaced)]) })])
    }

    package static func newPath(base: String, pending: String, _ i: Int) -> String { base + "/" + pending + "/new/\(i)" }
    package static func oldPath(base: String, pending: String, _ i: Int) -> String { base + "/" + pending + "/old/\(i)" }

    /// Moves every target aside and its new version in. Idempotent: a step already done is skipped, so an
    /// interrupted apply is finished by running it again.
    package static func apply(base: String, pending: String, steps: [Step]) throws(CKError) {
        var dirs: [String] = []
        for (i, step) in steps.enumerated() {
            let target = base + "/" + step.path
            let new = newPath(base: base, pending: pending, i), old = oldPath(base: base, pending: pending, i)
            let parent = PathName.parent(target)
            if step.replaced {
                // The new version is gone only once it was renamed in.
                guard FileIO.lexists(new) else { continue }
                if FileIO.lexists(target) { try rename(target, old) }
                try FileIO.makeDirectory(parent)
                try rename(new, target)
            } else if FileIO.lexists(target) && !FileIO.lexists(old) {
                try rename(target, old)
            }
            if !dirs.contains(parent) { dirs.append(parent) }
        }
        for d in dirs { FileIO.syncDirectory(d) }
    }

    private static func rename(_ from: String, _ to: String) throws(CKError) { try FileIO.rename(from, to) }

    /// The operation is whole: the intent record goes, then the old versions.
    package static func complete(base: String, pending: String) throws(CKError) {
        try FileIO.unlink(base + "/" + fileName)
        FileIO.syncDirectory(base)
        FileIO.removeNow(base + "/" + pending)
    }

    /// What an interrupted operation left in `base`: its intent record, if any, and pending or half-removed trees.
    package static func leftovers(_ base: String) -> (intent: Bool, trees: [String]) {
        // A pending tree whose process still runs (an import building a container outside the root lock) is no leftover.
        let trees = FileIO.list(base).filter {
            ($0.hasPrefix(pendingPrefix) && !isLive(base, $0)) || $0.hasPrefix(FileIO.deletingPrefix)
        }
        return (FileIO.lexists(base + "/" + fileName), trees)
    }

    /// Which steps an intent of each operation may name: `permits(operation, stepPath)`, the path relative to `base`.
    package typealias Rule = (_ operation: String, _ path: String) -> Bool

    /// The committed operation recorded in `base`, checked before anything acts on it: nil when there is none.
    /// A record ck did not write (a step outside the paths `permits` allows for its operation, an absolute path,
    /// `..`) is refused, naming the file and why: a store handed over by someone else must not make ck move or
    /// remove files it was never asked to.
    package static func read(_ base: String, permits: Rule) throws(CKError) -> (operation: String, pending: String, steps: [Step])? {
        let path = base + "/" + fileName
        guard let o = try JSONFile.readObject(path) else { return nil }
        guard let pending = o["pending"]?.stringValue, pending.hasPrefix(pendingPrefix), !pending.contains("/"),
              pending != pendingPrefix, let list = o["steps"]?.arrayValue, let operation = o["operation"]?.stringValue else {
            throw CKError.corrupt(path: path, "not an intent record ck wrote")
        }
        var steps: [Step] = []
        for s in list {
            guard let p = s["path"]?.stringValue, let replaced = s["replaced"]?.boolValue else {
                throw CKError.corrupt(path: path, "a step needs a \"path\" and \"replaced\"")
            }
            let parts = p.split(separator: "/", omittingEmptySubsequences: false)
            guard !p.hasPrefix("/"), !parts.contains(".."), !parts.contains("."), !parts.contains(""), permits(operation, p) else {
                throw CKError.corrupt(path: path, "step \(JSON.string(p).serialized()) is not a path a '\(operation)' changes; nothing was done")
            }
            steps.append(Step(path: p, replaced: replaced))
        }
        return (operation, pending, steps)
    }

    /// Finishes an operation interrupted in `base` and removes trees no committed operation refers to; returns the
    /// finished operation's name. Call with the exclusive lock covering `base` held.
    @discardableResult
    package static func recover(_ base: String, permits: Rule) throws(CKError) -> String? {
        var finished: String? = nil
        if let intent = try read(base, permits: permits) {
            try apply(base: base, pending: intent.pending, steps: intent.steps)
            try complete(base: base, pending: intent.pending)
            finished = intent.operation
        }
        for name in leftovers(base).trees { FileIO.removeNow(base + "/" + name) }
        return finished
    }
}
