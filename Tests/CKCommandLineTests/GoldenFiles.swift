import Foundation
import Testing

/// Re-recording golden files: with `CK_UPDATE_GOLDEN=1` a golden test writes what ck generates over the files that
/// differ and then fails, saying how many it rewrote, so a re-recording run is never mistaken for a passing one.
enum GoldenFiles {
    static var updating: Bool { ProcessInfo.processInfo.environment["CK_UPDATE_GOLDEN"] == "1" }

    /// Writes `text` to `file` unless it already holds exactly that; true when it wrote.
    static func record(_ text: String, to file: URL) throws -> Bool {
        if (try? String(contentsOf: file, encoding: .utf8)) == text { return false }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: file, atomically: true, encoding: .utf8)
        return true
    }

    /// Fails the test when a re-recording run changed files.
    static func finish(rerecorded count: Int, in dir: URL, sourceLocation: SourceLocation = #_sourceLocation) {
        guard count > 0 else { return }
        Issue.record("re-recorded \(count) file\(count == 1 ? "" : "s") in \(dir.path); run again without CK_UPDATE_GOLDEN",
                     sourceLocation: sourceLocation)
    }
}
