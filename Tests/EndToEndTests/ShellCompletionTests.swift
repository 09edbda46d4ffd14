import Foundation
import Testing

/// Loads the committed completion scripts in real shells and asks them for candidates.
@Suite struct ShellCompletionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let completions = root.appendingPathComponent("completions").path

    /// The shells find `ck` on PATH by name, as a user's would: the directory holding the built binary comes first.
    static let path = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path + ":/usr/bin:/bin"

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
        let r = try sandbox.run(["-c", script, "bash", completions] + words, program: bash, env: ["PATH": path])
        #expect(r.status == 0, "bash completion failed for \(words): \(r.stderr)")
        #expect(r.stderr.isEmpty, "bash printed on stderr for \(words): \(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    @Test(RequiredTool.needed("bash")) func bashCompletesFromTheTreeAndTheStore() throws {
        let bash = try RequiredTool.require("bash")
        let s = try Sandbox()
        #expect(try Self.bashComplete(["ck", "rec"], sandbox: s, bash: bash) == ["record"])
        #expect(try Self.bashComplete(["ck", "record", "s"], sandbox: s, bash: bash) == ["save"])
        #expect(try Self.bashComplete(["ck", "-e", ""], sandbox: s, bash: bash) == ["development", "production"])
        #expect(try Self.bashComplete(["ck", "--o"], sandbox: s, bash: bash) == ["--output"])
        #expect(try Self.bashComplete(["ck", "completion", ""], sandbox: s, bash: bash) == ["bash", "zsh", "fish"])
        #expect(try Self.bashComplete(["ck", "help", "ex"], sandbox: s, bash: bash) == ["exit-codes", "export", "exec"])
        #expect(try Self.bashComplete(["ck", "help", "pre"], sandbox: s, bash: bash) == ["predicates"])
        #expect(try Self.bashComplete(["ck", "schema", "diff", "--to", "p"], sandbox: s, bash: bash) == ["production"])
        #expect(try Self.bashComplete(["ck", "query", ""], sandbox: s, bash: bash) == [])
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=Hi").status == 0)
        #expect(try s.ck("record", "save", "Task", "--name", "t1", "due=1").status == 0)
        #expect(try Self.bashComplete(["ck", "query", ""], sandbox: s, bash: bash) == ["Note", "Task"])
        #expect(try Self.bashComplete(["ck", "query", "N"], sandbox: s, bash: bash) == ["Note"])
        #expect(try Self.bashComplete(["ck", "query", "Note", "--sort", "t"], sandbox: s, bash: bash) == ["title"])
        #expect(try Self.bashComplete(["ck", "record", "delete", "n1", ""], sandbox: s, bash: bash) == ["n1", "t1"])
        // A field to set is offered as `title=`, ready for its value; an index can go on a system field too.
        #expect(try Self.bashComplete(["ck", "record", "save", "Note", ""], sandbox: s, bash: bash) == ["title="])
        #expect(try Self.bashComplete(["ck", "record", "save", "Note", "title=Hi", "t"], sandbox: s, bash: bash) == ["title="])
        #expect(try Self.bashComplete(["ck", "schema", "index", "Note", ""], sandbox: s, bash: bash)
                == ["title", "___createTime", "___createdBy", "___etag", "___modTime", "___modifiedBy", "___recordID"])
        // --data-dir on the line is passed along: another (missing) store offers nothing.
        #expect(try Self.bashComplete(["ck", "--data-dir", s.dir + "/none", "query", ""], sandbox: s, bash: bash) == [])
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/none"))
        // -e production has no record types yet.
        #expect(try Self.bashComplete(["ck", "-e", "production", "query", ""], sandbox: s, bash: bash) == [])
        // Subscription IDs and device names come from the store too.
        #expect(try s.ck("subscription", "create", "database", "--id", "all-changes").status == 0)
        #expect(try Self.bashComplete(["ck", "subscription", "show", ""], sandbox: s, bash: bash) == ["all-changes"])
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("sync", "iphone").status == 0)
        #expect(try s.ck("sync", "ipad").status == 0)
        #expect(try Self.bashComplete(["ck", "sync", "ip"], sandbox: s, bash: bash) == ["ipad", "iphone"])
        // changes zone refuses _defaultZone (it has no change feed), so Tab offers custom zones only.
        #expect(try Self.bashComplete(["ck", "changes", "zone", ""], sandbox: s, bash: bash) == ["Notes"])
        #expect(try Self.bashComplete(["ck", "zone", "delete", ""], sandbox: s, bash: bash) == ["Notes"])
        #expect(try Self.bashComplete(["ck", "zone", "show", ""], sandbox: s, bash: bash).contains("_defaultZone"))
        #expect(try Self.bashComplete(["ck", "device", "records", "iph"], sandbox: s, bash: bash) == ["iphone"])
        #expect(try Self.bashComplete(["ck", "sync", "iphone", "--conflicts", ""], sandbox: s, bash: bash) == ["local", "server"])
        try FileManager.default.createDirectory(atPath: s.dir + "/pages", withIntermediateDirectories: true)
        #expect(try Self.bashComplete(["ck", "man", "--dir", "pa"], sandbox: s, bash: bash) == ["pages"])
    }

    /// A store with two types (Note has a list field, which can't be sorted), a record of each and one notification.
    static func contextStore() throws -> (Sandbox, notification: String) {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=Hi", "priority=2", "tags:string[]=a,b").status == 0)
        #expect(try s.ck("record", "save", "Task", "--name", "t1", "due=1").status == 0)
        #expect(try s.ck("subscription", "create", "database", "--id", "all").status == 0)
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("-z", "Notes", "record", "save", "Note", "--name", "n2", "title=Yo").status == 0)
        let ids = try s.ck("notification", "list", "-o", "name").stdout.split(separator: "\n").map(String.init)
        #expect(ids.count == 1)
        return (s, ids.first ?? "")
    }

    /// `ck share show|invite|remove|update|delete` offer the share records of the acting user's zone (-z and --as on
    /// the line), not its other records; the user argument offers users (issue 25).
    @Test(RequiredTool.needed("bash")) func bashCompletesShares() throws {
        let bash = try RequiredTool.require("bash")
        let s = try Sandbox()
        #expect(try s.ck("--as", "alice", "zone", "create", "Lists").status == 0)
        for name in ["list-1", "list-2", "other"] {
            #expect(try s.ck("--as", "alice", "-z", "Lists", "record", "save", "List", "--name", name, "title=x").status == 0)
        }
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-1").status == 0)
        #expect(try s.ck("--as", "alice", "-z", "Lists", "share", "create", "list-2").status == 0)
        #expect(try s.ck("--as", "bob", "record", "save", "Note", "--name", "n").status == 0)
        for verb in ["show", "invite", "remove", "update", "delete"] {
            #expect(try Self.bashComplete(["ck", "--as", "alice", "-z", "Lists", "share", verb, ""], sandbox: s, bash: bash)
                    == ["share-list-1", "share-list-2"], "\(verb)")
        }
        #expect(try Self.bashComplete(["ck", "--as", "alice", "-z", "Lists", "share", "show", "share-list-2"], sandbox: s, bash: bash) == ["share-list-2"])
        // Another user's zone of that name holds no shares of alice's.
        #expect(try Self.bashComplete(["ck", "--as", "bob", "share", "show", ""], sandbox: s, bash: bash) == [])
        #expect(try Self.bashComplete(["ck", "--as", "alice", "-z", "Lists", "share", "invite", "share-list-1", "b"], sandbox: s, bash: bash) == ["bob"])
    }

    /// What Tab offers depends on the line: `--query` makes the first argument a record type; `--sort` offers the
    /// sortable fields and system fields, also as `-field`; `notification read` offers notification IDs (issue 27).
    @Test(RequiredTool.needed("bash")) func bashCompletesByContext() throws {
        let bash = try RequiredTool.require("bash")
        let (s, id) = try Self.contextStore()
        #expect(try Self.bashComplete(["ck", "record", "delete", "--query", ""], sandbox: s, bash: bash) == ["Note", "Task"])
        #expect(try Self.bashComplete(["ck", "record", "delete", "-y", "--query", "N"], sandbox: s, bash: bash) == ["Note"])
        #expect(try Self.bashComplete(["ck", "record", "delete", "--query", "Note", ""], sandbox: s, bash: bash) == [])
        #expect(try Self.bashComplete(["ck", "record", "delete", ""], sandbox: s, bash: bash) == ["n1", "t1"])
        #expect(try Self.bashComplete(["ck", "query", "Note", "--sort", "-p"], sandbox: s, bash: bash) == ["-priority"])
        #expect(try Self.bashComplete(["ck", "query", "Note", "--sort", "-"], sandbox: s, bash: bash)
                == ["-priority", "-title", "-creationDate", "-modificationDate", "-recordName"])
        #expect(try Self.bashComplete(["ck", "query", "Note", "--sort", ""], sandbox: s, bash: bash)
                == ["priority", "title", "creationDate", "modificationDate", "recordName",
                    "-priority", "-title", "-creationDate", "-modificationDate", "-recordName"])
        #expect(try Self.bashComplete(["ck", "query", "Task", "--sort", "-d"], sandbox: s, bash: bash) == ["-due"])
        #expect(try Self.bashComplete(["ck", "notification", "read", ""], sandbox: s, bash: bash) == [id])
        #expect(try Self.bashComplete(["ck", "notification", "list", "--since", ""], sandbox: s, bash: bash) == [id])
    }

    @Test(RequiredTool.needed("zsh")) func zshCompletesByContext() throws {
        let zsh = try RequiredTool.require("zsh")
        let (s, id) = try Self.contextStore()
        #expect(try Self.zshComplete(["ck", "record", "delete", "--query", ""], sandbox: s, zsh: zsh) == ["Note", "Task"])
        #expect(try Self.zshComplete(["ck", "record", "delete", ""], sandbox: s, zsh: zsh) == ["n1", "t1"])
        #expect(try Self.zshComplete(["ck", "query", "Note", "--sort", "-p"], sandbox: s, zsh: zsh) == ["-priority"])
        #expect(try Self.zshComplete(["ck", "notification", "read", ""], sandbox: s, zsh: zsh) == [id])
    }

    @Test(RequiredTool.needed("fish")) func fishCompletesByContext() throws {
        let fish = try RequiredTool.require("fish")
        let (s, id) = try Self.contextStore()
        #expect(try Self.fishComplete("ck record delete --query ", sandbox: s, fish: fish) == ["Note", "Task"])
        #expect(try Self.fishComplete("ck record delete ", sandbox: s, fish: fish) == ["n1", "t1"])
        #expect(try Self.fishComplete("ck query Note --sort -p", sandbox: s, fish: fish) == ["-priority"])
        #expect(try Self.fishComplete("ck notification read ", sandbox: s, fish: fish) == [id])
    }

    @Test(RequiredTool.needed("zsh")) func zshScriptLoads() throws {
        let zsh = try RequiredTool.require("zsh")
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
                    -S) shift 2 ;;
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
        let r = try sandbox.run(["-f", "-c", script, "zsh", completions] + words, program: zsh, env: ["PATH": path])
        #expect(r.status == 0, "zsh completion failed for \(words): \(r.stderr)")
        #expect(r.stderr.isEmpty, "zsh printed on stderr for \(words): \(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    @Test(RequiredTool.needed("zsh")) func zshCompletesFromTheTreeAndTheStore() throws {
        let zsh = try RequiredTool.require("zsh")
        let s = try Sandbox()
        #expect(try Self.zshComplete(["ck", "rec"], sandbox: s, zsh: zsh) == ["record"])
        #expect(try Self.zshComplete(["ck", "record", "s"], sandbox: s, zsh: zsh) == ["save"])
        #expect(try Self.zshComplete(["ck", "-e", ""], sandbox: s, zsh: zsh) == ["development", "production"])
        #expect(try Self.zshComplete(["ck", "completion", ""], sandbox: s, zsh: zsh) == ["bash", "zsh", "fish"])
        #expect(try Self.zshComplete(["ck", "record", "save", "--batch", ""], sandbox: s, zsh: zsh) == ["<files>"])
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=Hi").status == 0)
        #expect(try s.ck("record", "save", "Task", "--name", "t1", "due=1").status == 0)
        #expect(try Self.zshComplete(["ck", "query", ""], sandbox: s, zsh: zsh) == ["Note", "Task"])
        #expect(try Self.zshComplete(["ck", "query", "Note", "--sort", "t"], sandbox: s, zsh: zsh) == ["title"])
        #expect(try Self.zshComplete(["ck", "record", "save", "Note", ""], sandbox: s, zsh: zsh) == ["title="])
        #expect(try Self.zshComplete(["ck", "schema", "index", "Note", "___r"], sandbox: s, zsh: zsh) == ["___recordID"])
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.ck("sync", "iphone").status == 0)
        #expect(try Self.zshComplete(["ck", "sync", "ip"], sandbox: s, zsh: zsh) == ["iphone"])
    }

    /// The candidates fish offers for a line (`complete -C`), without their descriptions.
    static func fishComplete(_ line: String, sandbox: Sandbox, fish: String) throws -> [String] {
        let r = try sandbox.run(["-c", "source $argv[1]/ck.fish; and complete -C $argv[2]", completions, line], program: fish,
                                env: ["PATH": path])
        #expect(r.status == 0 && r.stderr.isEmpty, "fish completion failed for '\(line)': \(r.stdout)\(r.stderr)")
        return r.stdout.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }
    }

    @Test(RequiredTool.needed("fish")) func fishScriptLoadsAndCompletes() throws {
        let fish = try RequiredTool.require("fish")
        let s = try Sandbox()
        #expect(try Self.fishComplete("ck record s", sandbox: s, fish: fish) == ["save"])
        #expect(try Self.fishComplete("ck completion ", sandbox: s, fish: fish).sorted() == ["bash", "fish", "zsh"])
        // Store names: the script asks the ck found on PATH.
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "title=Hi").status == 0)
        #expect(try s.ck("record", "save", "Task", "--name", "t1", "due=1").status == 0)
        #expect(try Self.fishComplete("ck query ", sandbox: s, fish: fish) == ["Note", "Task"])
        // fish adds no space after a candidate ending in '='.
        #expect(try Self.fishComplete("ck record save Note ", sandbox: s, fish: fish) == ["title="])
        #expect(try Self.fishComplete("ck schema index Note ___m", sandbox: s, fish: fish).sorted() == ["___modTime", "___modifiedBy"])
    }
}
