import Testing
@testable import CKCommandLine

/// The root's commands are declared by name and built on first use: the names must be the specs' own.
@Suite struct CommandTreeTests {
    @Test func everyLazyNameIsItsSpecsName() {
        let names = CommandTree.commands.map(\.name)
        #expect(Set(names).count == names.count, "a command is declared twice")
        for declared in CommandTree.commands {
            #expect(declared.make().name == declared.name)
        }
        #expect(CommandTree.root.subcommands.map(\.name) == names)
    }

    @Test func aCommandReachedByNameKnowsItsParent() throws {
        let fetch = try #require(CommandTree.root.subcommand("record")?.subcommand("fetch"))
        #expect(fetch.path == "ck record fetch")
        #expect(CommandTree.root.subcommand("nosuch") == nil)
        #expect(CommandTree.root.subcommand("__complete")?.hidden == true)
        #expect(!CommandTree.root.visibleSubcommands.contains { $0.name == "__complete" })
    }

    @Test func helpWrapsAsBeforeWithoutFoundation() {
        // Words wrap at 80 columns; runs of spaces fold; blank lines and a trailing newline are kept; widths count
        // scalars, so an em dash is one column.
        let text = String(repeating: "word ", count: 20) + "end—dash\n\nnext  para"
        let wrapped = HelpRenderer.wrap(text, indent: 4)
        let lines = wrapped.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { $0.unicodeScalars.count <= HelpRenderer.width })
        #expect(lines.first == "    " + Array(repeating: "word", count: 15).joined(separator: " "))
        #expect(lines[1] == "    " + Array(repeating: "word", count: 5).joined(separator: " ") + " end—dash")
        #expect(lines[2] == "")
        #expect(lines[3] == "    next para")
        #expect(HelpRenderer.wrap("", indent: 3) == "")
        #expect(HelpRenderer.wrap("a\n", indent: 2) == "  a\n")
        #expect(HelpRenderer.item("--flag", "Does a thing.") == "  --flag" + String(repeating: " ", count: 18) + "Does a thing.\n")
        let long = "--a-very-long-option-name <value>"
        #expect(HelpRenderer.item(long, "Text.") == "  " + long + "\n" + String(repeating: " ", count: 26) + "Text.\n")
    }
}
