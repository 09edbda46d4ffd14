import CKModel
import CKStorage

/// The fault stage's engine for one environment: consumes rules under `.faults.lock` (see `FaultsFile`).
package struct FaultEngine {
    package let env: EnvironmentStore
    package let file: FaultsFile
    /// A writer's engine (the environment's exclusive lock held): the counts it moves are held in
    /// `env.heldFaults` and written with the operation's changes, never before them (docs/faults.md).
    package let deferred: Bool
    /// The store's clock: throttling windows end on it.
    package let now: () -> Int64
    /// False when a writer's engine found no faults.json: none can appear while it holds the exclusive lock
    /// (ck fault takes it too), so each record's fault point skips looking for the file.
    private let mayHaveFile: Bool

    package init(_ env: EnvironmentStore, deferred: Bool = false, now: @escaping () -> Int64) {
        self.env = env
        file = FaultsFile(envDir: env.dir)
        self.deferred = deferred
        self.now = now
        mayHaveFile = !deferred || file.exists
    }

    /// The rule that fires at `point`, if any, with the time left in its throttling window, and the file updated. No file: nothing to do, no lock taken.
    /// A damaged file applies no rule and is left as it is, with a warning: CloudKit has no injected faults, so a
    /// broken test fixture must not stop the user's work (docs/faults.md).
    package func trigger(_ point: FaultPoint) throws(CKError) -> (rule: FaultRule, left: Int64?)? {
        if deferred {
            // No other process changes faults.json while the writer holds the exclusive lock (ck fault takes it too).
            guard env.heldFaults != nil || (mayHaveFile && file.exists) else { return nil }
            var book: FaultBook
            do throws(CKError) {
                if let held = env.heldFaults { book = try FaultBook.parse(Array(held.serialized().utf8), path: file.path) } else { book = try FaultBook.read(file) }
            } catch {
                let warning = FaultEngine.damaged(error, path: file.path)
                if !env.warnings.contains(warning) { env.warnings.append(warning) }
                return nil
            }
            let before = book.rules
            let hit = book.consume(point, now: now())
            if book.rules != before { env.heldFaults = book.json }
            return hit
        }
        guard file.exists else { return nil }
        return try file.locked { () throws(CKError) -> (rule: FaultRule, left: Int64?)? in
            var book: FaultBook
            do throws(CKError) { book = try FaultBook.read(file) } catch {
                let warning = FaultEngine.damaged(error, path: file.path)
                if !env.warnings.contains(warning) { env.warnings.append(warning) }
                return nil
            }
            let before = book.rules
            let hit = book.consume(point, now: now())
            if book.rules != before { try env.apply([.faults(book.json)]) }
            return hit
        }
    }

    /// The warning for a faults.json that can't be read: where, why, and how to fix it.
    package static func damaged(_ error: CKError, path: String) -> Diagnostic {
        // The message says what to do: warnings are printed as one line, without their hint.
        Diagnostic(place: error.place ?? path, error.message + " (ck goes on without fault rules; 'ck doctor --repair' moves the file into lost+found)")
    }

    /// The fault stage for one point of an operation: a firing rule's error is thrown, nothing written; an
    /// after-commit rule's error is returned, to be thrown once the operation is applied.
    package func inject(_ point: FaultPoint) throws(CKError) -> CKError? {
        guard let (rule, left) = try trigger(point) else { return nil }
        if rule.afterCommit { return rule.failure() }
        throw rule.failure(left: left)
    }

    /// Changes the rules under the environment's exclusive lock and `.faults.lock` (ck fault add and clear): a
    /// writer holding counts to write with its changes is never overtaken.
    package func update<T>(_ change: (inout FaultBook) throws(CKError) -> T) throws(CKError) -> T {
        try env.locked(exclusive: true) { () throws(CKError) -> T in
            try file.locked(makeDirectory: true) { () throws(CKError) -> T in
                var book = try FaultBook.read(file)
                let out = try change(&book)
                try env.apply([.faults(book.json)])
                return out
            }
        }
    }

    /// Writes the counts a writer's fault stage moved that no request of records took with it: the operation
    /// changed nothing else, or its other changes are written (call after them, the exclusive lock held).
    package func writeHeld() throws(CKError) {
        guard let held = env.heldFaults else { return }
        env.heldFaults = nil
        try env.apply([.faults(held)])
    }
}
