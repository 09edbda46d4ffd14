import Testing
@testable import CKCommandLine

/// The table behind `-o name` and `ck help output` names real commands, each once.
@Suite struct OutputFormatTests {
    @Test func everyCommandThatPrintsNamesExists() {
        let paths = Set(CommandTree.root.allDescendants.filter { $0.run != nil }.map(\.path))
        for entry in OutputFormat.names { #expect(paths.contains(entry.command), "\(entry.command) is not a command") }
        #expect(Set(OutputFormat.names.map(\.command)).count == OutputFormat.names.count)
    }

    @Test func aCutCellEndsInAnEllipsisAndFitsTheWidth() {
        var t = Table(["A", "B"])
        t.add(["x", "0123456789abcdefghij"])
        #expect(t.aligned(width: 15) == "A  B\nx  0123456789a…\n")
        #expect(t.aligned() == "A  B\nx  0123456789abcdefghij\n")
        // Never cut to fewer than 8 characters, however narrow.
        #expect(t.aligned(width: 4) == "A  B\nx  0123456…\n")
    }
}
