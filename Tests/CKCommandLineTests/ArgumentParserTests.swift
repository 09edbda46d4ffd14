import Testing
@testable import CKCommandLine

@Suite struct ArgumentParserTests {
    func parse(_ args: [String]) throws(UsageError) -> ParsedCommand {
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
        do { _ = try parse(["record", "save", "--nam", "x"]); Issue.record("expected an error") } catch {
            #expect(error.message.contains("did you mean '--name'"))
            #expect(error.command == "ck record save")
        }
    }

    @Test func negativeNumbersArePositionals() throws {
        let p = try parse(["record", "save", "Note", "-5"])
        #expect(p.positionals == ["Note", "-5"])
    }

    /// The usage error a command line gets, or nil when it parses.
    func usageError(_ args: [String]) -> UsageError? {
        do { _ = try parse(args); return nil } catch { return error }
    }

    @Test func declaredValueRulesAreCheckedByTheParser() throws {
        // Integers with a lower bound.
        #expect(usageError(["changes", "zone", "Notes", "--limit", "0"])?.message
                == "invalid value '0' for --limit: expected a whole number of at least 1")
        #expect(usageError(["query", "Note", "--limit", "ten"])?.message == "invalid value 'ten' for --limit: expected a whole number of at least 1")
        #expect(usageError(["asset", "get", "r", "f", "--index", "-1"])?.message == "invalid value '-1' for --index: expected a whole number of at least 0")
        #expect(usageError(["kv", "events", "phone", "--since", "x"])?.command == "ck kv events")
        // Decimal numbers in a range.
        #expect(usageError(["sync", "phone", "--max-wait", "nan"])?.message == "invalid value 'nan' for --max-wait: expected a number of at least 0")
        #expect(usageError(["fault", "add", "--error", "zoneBusy", "--probability", "1.5"])?.message
                == "invalid value '1.5' for --probability: expected a number from 0 to 1")
        #expect(usageError(["fault", "add", "--error", "zoneBusy", "--times", "0"]) != nil)
        // Lists of enumerated words.
        #expect(usageError(["subscription", "create", "query", "Note", "--fires-on", "create,updat"])?.message
                == "invalid value 'create,updat' for --fires-on: expected a comma-separated list of create, update, delete")
        #expect(usageError(["zone", "create", "Z", "--capabilities", "atomic,bogus"]) != nil)
        // Enumerated values, with a suggestion when one is close.
        #expect(usageError(["fault", "add", "--error", "zoneBusyy"])?.message.hasSuffix("; did you mean 'zoneBusy'?") == true)
        // Good values go through as given.
        let p = try parse(["query", "Note", "--limit", "20", "-e", "production"])
        #expect(p.value("limit") == "20")
        #expect(try parse(["subscription", "create", "query", "Note", "--fires-on", "create, delete"]).value("fires-on") == "create, delete")
        #expect(try parse(["fault", "add", "--error", "zoneBusy", "--probability", "0.25", "--times", "2"]).value("probability") == "0.25")
    }

    @Test func suggestionsAreOfferedOnlyWhenClose() {
        #expect(usageError(["record", "save", "--if-tga", "1"])?.message == "unknown option '--if-tga'; did you mean '--if-tag'?")
        #expect(usageError(["record", "save", "--zzzz"])?.message == "unknown option '--zzzz'")
        #expect(usageError(["-e", "prodution"])?.message.hasSuffix("did you mean 'production'?") == true)
    }
}
