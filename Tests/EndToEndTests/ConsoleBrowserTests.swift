import Foundation
import Testing
import CKModel

/// The browser console (docs/console.md) in a real headless Chromium, driven by Selenium: Debian's chromium,
/// chromium-driver and python3-selenium, which .ci/run installs. Each `console/test_<name>.py` runs against its own
/// `ck serve --port 0` on a fresh store; harness.py fails a test on any browser console error and leaves a
/// screenshot of a failure in a temporary folder, named in the failure.
@Suite(.serialized)
struct ConsoleBrowserTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let folder = root.appendingPathComponent("Tests/EndToEndTests/console")
    /// Debian's python3, which python3-selenium installs into (not a pyenv or venv python on PATH).
    static let python = "/usr/bin/python3"
    static var seleniumInstalled: Bool {
        FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium/__init__.py")
    }
    static var installed: Bool {
        RequiredTool.path("chromium") != nil && RequiredTool.path("chromedriver") != nil && seleniumInstalled
    }
    static let why = "needs chromium, chromium-driver and python3-selenium (apt-get install chromium chromium-driver python3-selenium); .ci/run installs them and CI requires them"

    /// The modules beside harness.py, by name (test_records.py → "records").
    static let modules: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasPrefix("test_") && $0.hasSuffix(".py") }
            .map { String($0.dropFirst(5).dropLast(3)) }.sorted()
    }()

    /// `test_tokens.py` meets a server that checks web auth tokens; every other module `--no-auth --as alice`.
    static func serverArguments(_ module: String) -> [String] {
        module == "tokens" ? [] : ["--no-auth", "--as", "alice"]
    }

    @Test(.enabled(if: RequiredTool.inCI || installed, Comment(rawValue: why)), .timeLimit(.minutes(5)), arguments: modules)
    func consoleInABrowser(module: String) throws {
        try #require(Self.installed, Comment(rawValue: Self.why))
        let sandbox = try Sandbox()
        let server = try ServeProcess(sandbox, arguments: Self.serverArguments(module))
        defer { server.stop() }
        let shots = FileManager.default.temporaryDirectory.appendingPathComponent("ck-console-shots-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: shots, withIntermediateDirectories: true)
        var arguments = [Self.folder.appendingPathComponent("harness.py").path, "--url", server.baseURL,
                         "--module", module, "--ck", Sandbox.binary, "--data-dir", sandbox.dir + "/store", "--shots", shots]
        // CK_CONSOLE_SCREENSHOT=<path> (relative to the package): the test that takes docs/console.md's screenshot
        // writes it there; without it no test writes outside its temporary folders.
        if let shot = ProcessInfo.processInfo.environment["CK_CONSOLE_SCREENSHOT"], !shot.isEmpty {
            arguments += ["--docs-shot", shot.hasPrefix("/") ? shot : Self.root.appendingPathComponent(shot).path]
        }
        let run = try sandbox.run(arguments, program: Self.python)
        let lines = run.stdout.split(separator: "\n").compactMap { try? JSON.parse(String($0)) }
        #expect(!lines.isEmpty, "harness.py ran no test of test_\(module).py (status \(run.status)): \(run.stdout)\n\(run.stderr)")
        for line in lines where line["ok"]?.boolValue != true {
            Issue.record("console \(module): \(line["test"]?.stringValue ?? "?") failed: \(line["error"]?.stringValue ?? "")")
        }
        #expect(run.status == 0, "harness.py exited \(run.status): \(run.stderr)")
    }
}
