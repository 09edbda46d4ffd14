import Foundation
import Testing

/// The README's install steps, run as written in bash in an empty home directory: only `swift build` is replaced
/// (by the build under test, placed where the steps copy it from).
@Suite struct InstallTests {
    /// The ```sh block of the README's Install section.
    static func installBlock() throws -> String {
        let text = try String(contentsOfFile: ReadmeTests.readmePath, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "\n## Install\n").dropFirst().first, "README has no Install section")
        let afterFence = try #require(section.components(separatedBy: "```sh\n").dropFirst().first, "the Install section has no sh block")
        return try #require(afterFence.components(separatedBy: "\n```").first)
    }

    @Test(RequiredTool.needed("bash")) func installStepsWorkInAnEmptyHome() throws {
        let bash = try RequiredTool.require("bash")
        let block = try Self.installBlock()
        #expect(block.contains("swift build -c release"), "the steps build ck:\n\(block)")
        let s = try Sandbox(store: false)
        let checkout = s.dir + "/checkout"
        try FileManager.default.createDirectory(atPath: checkout + "/.build/release", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: checkout + "/.build/release/ck", withDestinationPath: Sandbox.binary)
        try ("set -euo pipefail\nswift() { :; }\n" + block + "\n").write(toFile: s.dir + "/install.sh", atomically: true, encoding: .utf8)
        let r = try s.run([s.dir + "/install.sh"], cwd: checkout, program: bash, env: ["PATH": "/usr/bin:/bin"])
        #expect(r.status == 0, "the install steps failed:\n\(r.stdout)\(r.stderr)")
        let version = try s.ck("--version").stdout
        #expect(r.stdout == version && r.stderr.isEmpty, "the install steps printed:\n\(r.stdout)\(r.stderr)")
        let home = s.dir + "/home"
        #expect(FileManager.default.isExecutableFile(atPath: home + "/.local/bin/ck"))
        let installed = [("bash", ".local/share/bash-completion/completions/ck"), ("zsh", ".zfunc/_ck"),
                         ("fish", ".config/fish/completions/ck.fish")]
        for (shell, file) in installed {
            let script = try s.ck("completion", shell)
            let written = try? String(contentsOfFile: home + "/" + file, encoding: .utf8)
            #expect(written == script.stdout, "~/\(file) is not the \(shell) completion script")
        }
        // bash loads the installed script and completes `ck` with it.
        let loaded = try s.run(["-c", "source ~/.local/share/bash-completion/completions/ck && complete -p ck"], program: bash)
        #expect(loaded.stdout == "complete -F _ck ck\n", "\(loaded.stdout)\(loaded.stderr)")
    }
}
