import Testing
@testable import CKCommandLine

/// The global options come from one table (`GlobalOptions.all`): the parser accepts exactly those, and help, every
/// manual page and every completion script must name each of them, so an option can't be accepted yet undocumented.
@Suite struct GlobalOptionsTests {
    /// The visible global options the parser accepts: each is parsed on a command line to prove it.
    static var accepted: [OptionSpec] {
        GlobalOptions.all.filter { o in
            let args = ["--" + o.long] + (o.takesValue ? [o.choices.first ?? "x"] : []) + ["zone", "list"]
            return !o.hidden && (try? ArgumentParser.parse(args, root: CommandTree.root, globals: GlobalOptions.all)) != nil
        }
    }

    @Test func theParserAcceptsEveryOptionOfTheTable() {
        #expect(Self.accepted.count == GlobalOptions.all.filter { !$0.hidden }.count)
        #expect(Self.accepted.contains { $0.long == "anonymous" })
    }

    @Test func helpNamesEveryGlobalOption() {
        let top = HelpRenderer.help(CommandTree.root, globals: GlobalOptions.all)
        let commands = CommandTree.root.allDescendants.filter { !$0.hidden }
        for o in Self.accepted {
            #expect(top.contains(o.synopsis), "ck --help misses \(o.synopsis)")
            guard GlobalOptions.perCommand().contains(where: { $0.long == o.long }) else { continue }
            for c in commands {
                let text = HelpRenderer.help(c, globals: GlobalOptions.all).replacingOccurrences(of: "\n", with: " ")
                #expect(text.contains(GlobalOptions.spelling(o)), "\(c.path) --help misses \(GlobalOptions.spelling(o))")
            }
        }
    }

    @Test func manPagesNameEveryGlobalOption() {
        for o in Self.accepted {
            let roff = "\\-\\-" + o.long.replacingOccurrences(of: "-", with: "\\-")
            for page in ManPageRenderer.pages() {
                let listsAll = page.fileName == "ck.1"
                guard listsAll || GlobalOptions.perCommand().contains(where: { $0.long == o.long }) else { continue }
                #expect(page.text.contains(roff), "\(page.fileName) misses --\(o.long)")
            }
        }
    }

    @Test func completionScriptsOfferEveryGlobalOption() {
        for shell in CompletionRenderer.Shell.allCases {
            let script = CompletionRenderer.script(shell)
            for o in Self.accepted {
                let offered = shell == .fish ? script.contains("complete -c ck -l " + o.long + " ") : script.contains("--" + o.long)
                #expect(offered, "\(shell.fileName) misses --\(o.long)")
            }
        }
    }
}
