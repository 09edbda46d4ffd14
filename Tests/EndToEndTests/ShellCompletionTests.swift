import Foundation
import Testing

/// Loads the committed completion scripts in real shells and asks them for candidates.
@Suite struct ShellCompletionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let completions = root.appendingPathComponent("completions").path

    static func shell(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin"]
        return dirs.map { $0 + "/" + name }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether a test that needs `name` runs: always in CI (`CI` set, where .ci/run installs the shell and a missing
    /// one is a failure), elsewhere only where it is installed — the skip names the shell, it never passes silently.
    static func runs(needing name: String) -> Bool {
        ProcessInfo.processInfo.environment["CI"].map { !$0.isEmpty } == true || shell(name) != nil
    }

    /// The candidates the bash completion function offers for a line; the last word is the one being completed.
    static func bashComplete(_ words: [String], sandbox: Sandbox, bash: String) throws -> [String] {
        let script = """
        source "$1/ck.bash" || exit 3
        shift
        COMP_WORDS=("$@")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        _ck
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let r = try sandbox.run(["-c", script, "bash", completions] + words, program: bash)
        #expect(r.status == 0, "bash completion failed for \(words): \(r.stderr)")
        #expect(r.stderr.isEmpty, "bash printed on stderr for \(words): \(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesFromTheTreeAndTheStore() throws {
        guard let bash = Self.shell("bash") else {
            Issue.record("bash is not installed: the bash completion script cannot be checked")
            return
        }
        let s = try Sandbox()
        #expect(try Self.bashComplete(["ck", "rec"], sandbox: s, bash: bash) == ["record"])
        #expect(try Self.bashComplete(["ck", "record", "s"], sandbox: s, bash: bash) == ["save"])
        #expect(try Self.bashComplete(["ck", "-e", ""], sandbox: s, bash: bash) == ["development", "production"])
        #expect(try Self.bashComplete(["ck", "--o"], sandbox: s, bash: bash) == ["--output"])
        #expect(try Self.bashComplete(["ck", "completion", ""], sandbox: s, bash: bash) == ["bash", "zsh", "fish"])
        #expect(try Self.bashComplete(["ck", "help", "ex"], sandbox: s, bash: bash) == ["exit-codes", "export", "exec"])
        #expect(try Self.bashComplete(["ck", "help", "pre"], sandbox: s, bash: bash) == ["predicates"])
        #expect(try Self.bashComplete(["ck", "schema", "diff", "--to", "p"], sandbox: s, bash: bash) == ["production"])
        #expect(try Self.bashComplete([Sandbox.binary, "query", ""], sandbox: s, bash: bash) == [])
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=Hi").status == 0)
        #expect(try s.ck("record", "save", "Task", "--name", "t1", "due=1").status == 0)
        #expect(try Self.bashComplete([Sandbox.binary, "query", ""], sandbox: s, bash: bash) == ["Note", "Task"])
        #expect(try Self.bashComplete([Sandbox.binary, "query", "N"], sandbox: s, bash: bash) == ["Note"])
        #expect(try Self.bashComplete([Sandbox.binary, "query", "Note", "--sort", ""], sandbox: s, bash: bash) == ["title"])
        #expect(try Self.bashComplete([Sandbox.binary, "record", "delete", "n1", ""], sandbox: s, bash: bash) == ["n1", "t1"])
        // --data-dir on the line is passed along: another (missing) store offers nothing.
        #expect(try Self.bashComplete([Sandbox.binary, "--data-dir", s.dir + "/none", "query", ""], sandbox: s, bash: bash) == [])
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/none"))
        // -e production has no record types yet.
        #expect(try Self.bashComplete([Sandbox.binary, "-e", "production", "query", ""], sandbox: s, bash: bash) == [])
        // Subscription IDs and device names come from the store too.
        #expect(try s.ck("subscription", "create", "database", "--id", "all-changes").status == 0)
        #expect(try Self.bashComplete([Sandbox.binary, "subscription", "show", ""], sandbox: s, bash: bash) == ["all-changes"])
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("sync", "iphone").status == 0)
        #expect(try s.ck("sync", "ipad").status == 0)
        #expect(try Self.bashComplete([Sandbox.binary, "sync", "ip"], sandbox: s, bash: bash) == ["ipad", "iphone"])
        #expect(try Self.bashComplete([Sandbox.binary, "device", "records", "iph"], sandbox: s, bash: bash) == ["iphone"])
        #expect(try Self.bashComplete([Sandbox.binary, "sync", "iphone", "--conflicts", ""], sandbox: s, bash: bash) == ["local", "server"])
        try FileManager.default.createDirectory(atPath: s.dir + "/pages", withIntermediateDirectories: true)
        #expect(try Self.bashComplete(["ck", "man", "--dir", "pa"], sandbox: s, bash: bash) == ["pages"])
    }

    @Test(.enabled(if: runs(needing: "zsh"), "needs zsh, which is not installed (apt-get install zsh; required in CI)"))
    func zshScriptLoads() throws {
        // .ci/run installs zsh: a missing shell is a failure, not a silent pass.
        let zsh = try #require(Self.shell("zsh"), "zsh is needed by this test (apt-get install zsh; .ci/run installs it)")
        let s = try Sandbox()
        let r = try s.run(["-f", "-c", "autoload -U compinit; compinit -u; source \"$1/_ck\" && print loaded", "zsh", Self.completions], program: zsh)
        #expect(r.status == 0 && r.stdout == "loaded\n" && r.stderr.isEmpty, "zsh: \(r.stdout)\(r.stderr)")
    }

    /// The candidates the zsh completion function offers for a line, with zsh's completion builtins stubbed to
    /// print what they are given (filtered by the word being completed, as zsh would).
    static func zshComplete(_ words: [String], sandbox: Sandbox, zsh: String) throws -> [String] {
        let script = """
        compdef() { : }
        compset() { : }
        _ck_emit() { local x; for x in "$@"; do [[ $x == ${words[CURRENT]}* ]] && print -r -- "$x"; done }
        compadd() {
            while [[ $1 == -* ]]; do
                case $1 in
                    -a) shift; _ck_emit "${(@P)1}"; return 0 ;;
                    --) shift; break ;;
                    *) shift ;;
                esac
            done
            _ck_emit "$@"
        }
        _describe() { local -a names; names=("${(@)${(@P)${@[-1]}}%%:*}"); _ck_emit "${names[@]}" }
        _files() { print -r -- '<files>' }
        source "$1/_ck" || exit 3
        shift
        words=("$@")
        CURRENT=${#words}
        _ck
        """
        let r = try sandbox.run(["-f", "-c", script, "zsh", completions] + words, program: zsh)
        #expect(r.status == 0, "zsh completion failed for \(words): \(r.stderr)")
        #expect(r.stderr.isEmpty, "zsh printed on stderr for \(words): \(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    @Test(.enabled(if: runs(needing: "zsh"), "needs zsh, which is not installed (apt-get install zsh; required in CI)"))
    func zshCompletesFromTheTreeAndTheStore() throws {
        let zsh = try #require(Self.shell("zsh"), "zsh is needed by this test (apt-get install zsh; .ci/run installs it)")
        let s = try Sandbox()
        #expect(try Self.zshComplete(["ck", "rec"], sandbox: s, zsh: zsh) == ["record"])
        #expect(try Self.zshComplete(["ck", "record", "s"], sandbox: s, zsh: zsh) == ["save"])
        #expect(try Self.zshComplete(["ck", "-e", ""], sandbox: s, zsh: zsh) == ["development", "production"])
        #expect(try Self.zshComplete(["ck", "completion", ""], sandbox: s, zsh: zsh) == ["bash", "zsh", "fish"])
        #expect(try Self.zshComplete(["ck", "record", "save", "--batch", ""], sandbox: s, zsh: zsh) == ["<files>"])
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=Hi").status == 0)
        #expect(try s.ck("record", "save", "Task", "--name", "t1", "due=1").status == 0)
        #expect(try Self.zshComplete([Sandbox.binary, "query", ""], sandbox: s, zsh: zsh) == ["Note", "Task"])
        #expect(try Self.zshComplete([Sandbox.binary, "query", "Note", "--sort", ""], sandbox: s, zsh: zsh) == ["title"])
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("sync", "iphone").status == 0)
        #expect(try Self.zshComplete([Sandbox.binary, "sync", "ip"], sandbox: s, zsh: zsh) == ["iphone"])
    }

    @Test(.enabled(if: runs(needing: "fish"), "needs fish, which is not installed (apt-get install fish; required in CI)"))
    func fishScriptLoadsAndCompletes() throws {
        let fish = try #require(Self.shell("fish"), "fish is needed by this test (apt-get install fish; .ci/run installs it)")
        let s = try Sandbox()
        let r = try s.run(["-c", "source $argv[1]/ck.fish; and complete -C 'ck record s'", Self.completions], program: fish)
        #expect(r.status == 0 && r.stderr.isEmpty, "fish: \(r.stdout)\(r.stderr)")
        #expect(r.stdout.hasPrefix("save\t"), "fish offered: \(r.stdout)")
        // Store names: the script asks the ck named on the line.
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=Hi").status == 0)
        #expect(try s.ck("record", "save", "Task", "--name", "t1", "due=1").status == 0)
        let types = try s.run(["-c", "source $argv[1]/ck.fish; and complete -C \"$argv[2] query \"", Self.completions, Sandbox.binary],
                              program: fish)
        #expect(types.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" } == ["Note", "Task"],
                "fish offered: \(types.stdout)\(types.stderr)")
        let shells = try s.run(["-c", "source $argv[1]/ck.fish; and complete -C 'ck completion '", Self.completions], program: fish)
        #expect(shells.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }.sorted() == ["bash", "fish", "zsh"],
                "fish offered: \(shells.stdout)")
    }
}
