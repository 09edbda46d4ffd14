import Foundation
import Testing

/// Runs every command the README shows and compares what it prints with what the README says it prints,
/// so the README cannot drift from the tool. `CK_UPDATE_GOLDEN=1` writes the real outputs back, and that run fails
/// saying so: a re-recording run is never a passing one.
@Suite struct ReadmeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let readmePath = root.appendingPathComponent("README.md").path
    /// Where the README says the tour runs; the sandbox's home is shown as this.
    static let shownHome = "/home/me"

    /// One `$ command` of a console block, its continuation lines (`> …`), and the output shown under it.
    struct Step {
        var command: String
        var expected: [String]
        /// Line range of the expected output in the README (to rewrite it).
        var outputLines: Range<Int>
        /// The heading the step is under (`### Fixtures for CI`).
        var section: String = ""
    }

    /// Sections whose commands a CI job copies: they run in a fresh shell, with none of the tour's exported variables.
    static let freshShellSections: Set<String> = ["### Fixtures for CI", "## ck in CI"]

    /// The steps of every ```console block, in order.
    static func steps(_ lines: [String]) -> [Step] {
        var out: [Step] = []
        var inBlock = false
        var section = ""
        for (i, line) in lines.enumerated() {
            if !inBlock {
                if line.hasPrefix("#") { section = line }
                inBlock = line == "```console"
                continue
            }
            if line == "```" { inBlock = false; continue }
            if line.hasPrefix("$ ") {
                out.append(Step(command: String(line.dropFirst(2)), expected: [], outputLines: (i + 1)..<(i + 1), section: section))
            } else if line.hasPrefix("> "), var last = out.last, last.expected.isEmpty {
                last.command += "\n" + line.dropFirst(2)
                last.outputLines = (i + 1)..<(i + 1)
                out[out.count - 1] = last
            } else if var last = out.last {
                last.expected.append(line)
                last.outputLines = last.outputLines.lowerBound..<(i + 1)
                out[out.count - 1] = last
            }
        }
        return out
    }

    /// Times, timestamps and UUIDs differ on every run; everything else must match.
    static func normalized(_ text: String) -> String {
        var s = text
        let patterns = [
            (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#, "<time>"),
            (#"\b1[6-9]\d{11}\b"#, "<ms>"),
            (#"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"#, "<uuid>"),
        ]
        for (p, r) in patterns { s = s.replacingOccurrences(of: p, with: r, options: .regularExpression) }
        return s
    }

    /// Runs all steps in one bash session (variables and files carry over), in `<home>/notes-app`,
    /// with output as on a terminal (table) and no colour; returns each step's stdout and stderr, merged.
    static func run(_ steps: [Step], sandbox s: Sandbox) throws -> [String] {
        let home = s.dir + "/home"
        let work = home + "/notes-app"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        // `$?` after a step is the step's status, as in a terminal: the marker line must not reset it.
        var script = "cd \(work)\nckstatus=0\n"
        for (i, step) in steps.enumerated() {
            var command = step.command
            if freshShellSections.contains(step.section) {
                // As written, in a new shell that has none of the variables the tour exported (CK_ZONE above all);
                // only the terminal-like output settings of this harness carry over, and `$?` (for `echo $?`).
                let quoted = "'(exit \"$1\")\n" + command.replacingOccurrences(of: "'", with: "'\\''") + "'"
                command = "env -i HOME=\"$HOME\" PATH=\"$PATH\" LANG=C.UTF-8 CK_OUTPUT=table NO_COLOR=1 TERM=dumb bash -c \(quoted) fresh-shell \"$ckstatus\""
            }
            script += "printf '@@ck-readme-step %d@@\\n' \(i)\n(exit $ckstatus)\n{ \(command)\n} 2>&1\nckstatus=$?\n"
        }
        try script.write(toFile: s.dir + "/tour.sh", atomically: true, encoding: .utf8)
        let bin = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let r = try s.run([s.dir + "/tour.sh"], stdin: "", cwd: work, program: try RequiredTool.require("bash"),
                          env: ["PATH": bin + ":/usr/bin:/bin", "CK_OUTPUT": "table", "NO_COLOR": "1", "TERM": "dumb",
                                "CK_DATA_DIR": ""])
        #expect(r.stderr.isEmpty, "the tour script itself failed: \(r.stderr)")
        var outputs = Array(repeating: "", count: steps.count)
        var current = -1
        var all = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        if all.last == "" { all.removeLast() }
        for line in all {
            if line.hasPrefix("@@ck-readme-step "), let n = Int(line.dropFirst("@@ck-readme-step ".count).dropLast(2)) {
                current = n
                continue
            }
            if current >= 0 { outputs[current] += line + "\n" }
        }
        return outputs.map { o in
            var t = o.replacingOccurrences(of: home, with: shownHome)
            if t.hasSuffix("\n") { t.removeLast() }
            return t
        }
    }

    @Test(RequiredTool.needed("bash"), RequiredTool.needed("jq"), RequiredTool.needed("curl"))
    func everyTourCommandPrintsWhatTheReadmeShows() throws {
        let text = try String(contentsOfFile: Self.readmePath, encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        let steps = Self.steps(lines)
        // The tour walks the notes app end to end: each of these must appear as a command.
        for part in ["ck container create", "ck zone create", "ck record save", "ck record fetch", "--if-tag", "ck query",
                     "ck subscription create", "ck sync", "ck device save", "ck notification list", "ck changes zone",
                     "ck schema deploy", "ck export", "import", "ck exec", "ck gc", "ck serve", "curl"] {
            #expect(steps.contains { $0.command.hasPrefix(part) || $0.command.contains(" " + part) }, "the tour has no `\(part)` step")
        }
        // The section on ck serve talks to it with curl and jq.
        _ = try RequiredTool.require("jq")
        _ = try RequiredTool.require("curl")
        #expect(steps.contains { $0.section == "### Fixtures for CI" }, "the CI fixtures steps are no longer found to run in a fresh shell")
        let s = try Sandbox(store: false)
        let outputs = try Self.run(steps, sandbox: s)
        if ProcessInfo.processInfo.environment["CK_UPDATE_GOLDEN"] == "1" {
            // Only outputs that really changed are rewritten: times and UUIDs alone do not churn the README.
            var rerecorded = 0
            for (step, out) in zip(steps, outputs).reversed()
            where Self.normalized(out) != Self.normalized(step.expected.joined(separator: "\n")) {
                lines.replaceSubrange(step.outputLines, with: out.isEmpty ? [] : out.components(separatedBy: "\n"))
                rerecorded += 1
            }
            guard rerecorded > 0 else { return }
            try lines.joined(separator: "\n").write(toFile: Self.readmePath, atomically: true, encoding: .utf8)
            Issue.record("re-recorded 1 file (README.md, \(rerecorded) outputs); run again without CK_UPDATE_GOLDEN")
            return
        }
        for (step, out) in zip(steps, outputs) {
            let want = Self.normalized(step.expected.joined(separator: "\n"))
            let got = Self.normalized(out)
            #expect(got == want, "README command `\(step.command)` printed:\n\(out)\n--- but the README shows:\n\(step.expected.joined(separator: "\n"))")
        }
    }

    @Test func theReadmeNamesEveryHelpTopic() throws {
        let text = try String(contentsOfFile: Self.readmePath, encoding: .utf8)
        let s = try Sandbox()
        let help = try s.ck("help").stdout
        // `ck help` lists them on a "HELP TOPICS: a, b, … (see 'ck help <topic>')." paragraph.
        let start = try #require(help.range(of: "HELP TOPICS:"), "ck help lists no topics:\n\(help)")
        let paragraph = help[start.upperBound...].prefix { $0 != "(" }.replacingOccurrences(of: "\n", with: " ")
        let topics = paragraph.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        #expect(topics.count >= 10, "\(topics)")
        let line = try #require(text.range(of: "and `ck help <topic>` for the topics"), "the README's topic list is gone")
        let listed = text[line.upperBound...].prefix { $0 != ";" }
        for topic in topics { #expect(listed.contains("`\(topic)`"), "the README's topic list lacks `\(topic)`") }
    }

    @Test func theFirstCommandPrintsWhatTheReadmeShows() throws {
        // The README's first block builds and runs `ck record save Note title="Hello CloudKit"` on a fresh machine;
        // the block after it shows the output.
        let text = try String(contentsOfFile: Self.readmePath, encoding: .utf8)
        let blocks = text.components(separatedBy: "```")
        #expect(blocks.count > 4)
        #expect(blocks[1].contains("swift run -c release ck record save Note title=\"Hello CloudKit\""))
        #expect(blocks[1].contains("\nswift test\n"))
        let shown = blocks[3].trimmingCharacters(in: .newlines)
        let s = try Sandbox(store: false)
        let r = try s.ck("record", "save", "Note", "title=Hello CloudKit", "-o", "table")
        #expect(r.status == 0)
        #expect(Self.normalized(r.stdout.trimmingCharacters(in: .newlines)) == Self.normalized(shown))
        #expect(FileManager.default.fileExists(atPath: s.dir + "/home/.local/share/ck/ck.json"), "the user store is made on first use")
        let version = try s.ck("--version")
        #expect(text.contains("ck --version                            # \(version.stdout.trimmingCharacters(in: .newlines))"))
    }

    /// The ```sh blocks of a section, up to the next heading.
    static func shBlocks(_ text: String, section: String) -> [String] {
        var blocks: [String] = []
        var inSection = false, current: [String]? = nil
        for line in text.components(separatedBy: "\n") {
            if current == nil, line.hasPrefix("#") { inSection = line == section; continue }
            guard inSection else { continue }
            if current == nil { if line == "```sh" { current = [] }; continue }
            if line == "```" { blocks.append((current ?? []).joined(separator: "\n") + "\n"); current = nil; continue }
            current?.append(line)
        }
        return blocks
    }

    @Test(RequiredTool.needed("bash")) func theCIBlocksRunAsWrittenInAFreshShell() throws {
        let text = try String(contentsOfFile: Self.readmePath, encoding: .utf8)
        let blocks = Self.shBlocks(text, section: "## ck in CI")
        let script = try #require(blocks.first { $0.hasPrefix("#!/bin/sh\n# run-integration-tests.sh") }, "\(blocks)")
        let job = try #require(blocks.first { $0.contains("ck exec --import fixtures/dev.json") }, "\(blocks)")
        let s = try Sandbox(store: false)
        try FileManager.default.createDirectory(atPath: s.dir + "/fixtures", withIntermediateDirectories: true)
        // The repository's fixtures: three notes in the zone Notes, two of them with priority over 3.
        try s.write(ZoneHintTests.fixtures, to: "fixtures/dev.json")
        try s.write(script, to: "run-integration-tests.sh")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: s.dir + "/run-integration-tests.sh")
        try s.write(job, to: "job.sh")
        let bin = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let bash = try RequiredTool.require("bash")
        // A fresh shell: PATH and HOME only, no CK_ variable at all.
        s.environment = ["HOME": s.dir + "/home", "PATH": bin + ":/usr/bin:/bin"]
        let r = try s.run([s.dir + "/job.sh"], program: bash)
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout == "ci-1\n")
        let after = try String(contentsOfFile: s.dir + "/after.json", encoding: .utf8)
        #expect(after.contains("\"Saved by CI\""), "--export-on-exit kept what the script saved")
        // The same script without its zone fails the job, and stderr says which zone holds the notes.
        try s.write(script.replacingOccurrences(of: " -z Notes", with: ""), to: "run-integration-tests.sh")
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: s.dir + "/run-integration-tests.sh")
        let forgot = try s.run([s.dir + "/job.sh"], program: bash)
        #expect(forgot.status != 0)
        #expect(forgot.stderr.contains(ZoneHintTests.hint), "\(forgot.stderr)")
    }

    @Test func stepParsingKeepsContinuationLinesAndOutputs() {
        let lines = ["text", "```console", "$ cat > a <<'EOF'", "> one", "> EOF", "$ cat a", "one", "```", "$ not run"]
        let steps = Self.steps(lines)
        #expect(steps.count == 2)
        #expect(steps[0].command == "cat > a <<'EOF'\none\nEOF")
        #expect(steps[0].expected.isEmpty)
        #expect(steps[1].command == "cat a" && steps[1].expected == ["one"] && steps[1].outputLines == 6..<7)
    }
}
