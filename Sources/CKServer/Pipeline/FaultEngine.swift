import CKModel
import CKStorage

/// The fault stage's engine for one environment: consumes rules under `.faults.lock` (see `FaultsFile`).
package struct FaultEngine {
    package let env: EnvironmentStore
    package let file: FaultsFile

    package init(_ env: EnvironmentStore) {
        self.env = env
        file = FaultsFile(envDir: env.dir)
    }

    /// The rule that fires at `point`, if any, with the file updated. No file: nothing to do, no lock taken.
    /// A damaged file applies no rule and is left as it is, with a warning: CloudKit has no injected faults, so a
    /// broken test fixture must not stop the user's work (docs/faults.md).
    package func trigger(_ point: FaultPoint) throws(CKError) -> FaultRule? {
        guard file.exists else { return nil }
        return try file.locked { () throws(CKError) -> FaultRule? in
            var book: FaultBook
            do throws(CKError) { book = try FaultBook.read(file) } catch {
                let warning = FaultEngine.damaged(error, path: file.path)
                if !env.warnings.contains(warning) { env.warnings.append(warning) }
                return nil
            }
            let before = book.rules
            let hit = book.consume(point)
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
        guard let rule = try trigger(point) else { return nil }
        if rule.afterCommit { return rule.failure() }
        throw rule.failure()
    }

    /// Changes the rules under `.faults.lock` (ck fault add and clear).
    package func update<T>(_ change: (inout FaultBook) throws(CKError) -> T) throws(CKError) -> T {
        try file.locked(makeDirectory: true) { () throws(CKError) -> T in
            var book = try FaultBook.read(file)
            let out = try change(&book)
            try env.apply([.faults(book.json)])
            return out
        }
    }
}
