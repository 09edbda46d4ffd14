import Foundation
import Testing

/// Programs a test runs besides ck (shells, jq, curl, groff, strace). A fresh machine may lack some of them: there a test
/// that needs one is skipped with the tool named, never counted as passing; in CI (`CI` set; `.ci/run` installs
/// every one of them) it runs and a missing tool is a failure.
enum RequiredTool {
    /// The Debian package providing each tool, for the message.
    static let packages = ["zsh": "zsh", "fish": "fish", "strace": "strace", "valgrind": "valgrind", "groff": "groff-base", "jq": "jq", "bash": "bash", "curl": "curl", "flock": "util-linux",
                           "chromium": "chromium", "chromedriver": "chromium-driver"]

    static var inCI: Bool { ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } ?? false }

    /// The executable named `name` on PATH or in the usual system directories; nil when not installed.
    static func path(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin"]
        return dirs.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Why a test needing `name` is skipped here.
    static func reason(_ name: String) -> String {
        "needs \(name), which is not installed (apt-get install \(packages[name] ?? name)); .ci/run installs it and CI requires it"
    }

    /// A trait running the test where `name` is installed, and always in CI.
    static func needed(_ name: String) -> ConditionTrait {
        .enabled(if: inCI || path(name) != nil, Comment(rawValue: reason(name)))
    }

    /// The path of `name`, or a failure naming it (reached only in CI, where the trait runs the test regardless).
    static func require(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try #require(path(name), Comment(rawValue: reason(name)), sourceLocation: sourceLocation)
    }
}
