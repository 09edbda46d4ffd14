import CKFiles
import CKModel

/// `faults.json` of one environment and `.faults.lock` beside it (see `StoreLayout`). The server reads and decides;
/// this reads and writes the file under the lock.
///
/// Locking: rules are consumed by the pipeline's fault stage, which runs with the environment's `.lock` held
/// (shared for reads). Consuming changes the file, so it also takes `.faults.lock` exclusively for the short
/// read-modify-write (a writer, alone under the exclusive lock, holds its counts and writes them with its
/// changes). `.faults.lock` is only ever taken last and released before returning, and `ck fault` takes it
/// after `.lock`: no process waits for `.lock` while holding it, so the two locks cannot deadlock.
package struct FaultsFile: Sendable {
    package let envDir: String

    package init(envDir: String) { self.envDir = envDir }

    package var path: String { envDir + "/faults.json" }
    package var lockPath: String { envDir + "/.faults.lock" }

    /// Whether there is a file (no file: no rules, and no lock need be taken).
    package var exists: Bool { FileIO.exists(path) }

    /// The file's bytes; nil when there is none.
    package func read() throws(CKError) -> [UInt8]? { try FileIO.read(path) }

    func write(_ json: JSON) throws(CKError) { try JSONFile.write(path, json) }

    /// Runs `body` holding `.faults.lock` exclusively; `makeDirectory` first makes the environment's directory
    /// (a fresh environment may not have one).
    package func locked<T>(makeDirectory: Bool = false, _ body: () throws(CKError) -> T) throws(CKError) -> T {
        if makeDirectory { try FileIO.makeDirectory(envDir) }
        let lock = try FileLock(path: lockPath, exclusive: true)
        defer { lock.unlock() }
        return try body()
    }
}
