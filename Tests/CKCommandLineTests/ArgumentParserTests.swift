import Testing
@testable import CKCommandLine

@Suite struct ArgumentParserTests {
    func parse(_ args: [String]) throws -> ParsedCommand {
        try ArgumentParser.parse(args, root: CommandTree.root, globals: GlobalOptions.all)
    }

    @Test func nounVerbAndGlobalOptionsAnywhere() throws {
        let p = try parse(["-e", "production", "record", "save", "Note", "title=Hi", "--name", "n1", "-o", "json", "--zone=Notes"])
        #expect(p.command.path == "ck record save")
        #expect(p.positionals == ["Note", "title=Hi"])
        #expect(p.value("name") == "n1")
        #expect(p.value("env") == "production")
        #expect(p.value("output") == "json")
        #expect(p.value("zone") == "Notes")
    }

    @Test func shortFlagsAndAttachedValues() throws {
        let p = try parse(["record", "delete", "a", "b", "-yq", "-zNotes"])
        #expect(p.flag("yes") && p.flag("quiet"))
        #expect(p.value("zone") == "Notes")
        #expect(p.positionals == ["a", "b"])
    }

    @Test func doubleDashEndsOptions() throws {
        let p = try parse(["record", "fetch", "--", "-weird-name"])
        #expect(p.positionals == ["-weird-name"])
    }

    @Test func repeatableOptions() throws {
        let p = try parse(["record", "save", "Note", "--unset", "a", "--unset", "b"])
        #expect(p.all("unset") == ["a", "b"])
    }

    @Test func mistakes() {
        #expect(throws: UsageError.self) { try parse(["record", "save", "--nope"]) }
        #expect(throws: UsageError.self) { try parse(["record", "save", "--name"]) }
        #expect(throws: UsageError.self) { try parse(["-o", "yaml", "record", "fetch", "a"]) }
        #expect(throws: UsageError.self) { try parse(["--env", "staging"]) }
        #expect(throws: UsageError.self) { try parse(["record", "save", "Note", "--name", "a", "--name", "b"]) }
        #expect(throws: UsageError.self) { try parse(["record", "save", "--atomic=yes"]) }
        do { _ = try parse(["record", "save", "--nam", "x"]); Issue.record("expected an error") } catch let error as UsageError {
            #expect(error.message.contains("did you mean '--name'"))
            #expect(error.command == "ck record save")
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func negativeNumbersArePositionals() throws {
        let p = try parse(["record", "save", "Note", "-5"])
        #expect(p.positionals == ["Note", "-5"])
    }
}
