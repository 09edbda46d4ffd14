import Foundation
import Testing

/// Text anyone could have written (a key-value key, a predicate) printed by ck: it never reaches the terminal as
/// control sequences, and an error does not echo an input of any size whole (issue 28).
@Suite struct HostileTextTests {
    /// ESC [31m recolours a terminal, BEL rings it, CSI (U+009B) starts a sequence on some terminals.
    let key = "k\u{1B}[31mX\u{07}\u{9B}"
    let shownKey = #"k\u{1B}[31mX\u{7}\u{9B}"#

    func noControl(_ text: String) -> Bool {
        !text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || ($0.value >= 0x7F && $0.value < 0xA0) }
    }

    @Test func keyValueKeysAndValuesAreEscapedInTextButExactInJSON() throws {
        let s = try Sandbox()
        let set = try s.ck("kv", "set", key, "v\u{1B}[0m")
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stdout == "\(shownKey)\tstring\t5\n")
        let told = try s.ck("kv", "set", key, "v\u{1B}[0m", "-o", "table")
        #expect(told.stdout == "Set \(shownKey) (string, 5 bytes)\n")

        let list = try s.ck("kv", "list")
        #expect(list.stdout == "\(shownKey)\tstring\t5\n")
        let table = try s.ck("kv", "list", "-o", "table")
        #expect(noControl(table.stdout) && table.stdout.contains(shownKey + "  string  5\n"), "\(table.stdout)")
        let show = try s.ck("kv", "show", "-o", "table")
        #expect(noControl(show.stdout) && show.stdout.contains("largest value  \(shownKey): 5 of 1048576 bytes"), "\(show.stdout)")

        #expect(try s.ck("kv", "get", key).stdout == #"v\u{1B}[0m"# + "\n")
        #expect(try s.ck("kv", "get", key, "-o", "table").stdout == #"v\u{1B}[0m"# + "\n")
        // JSON is for programs: the exact text, escaped by JSON's own rules.
        let json = try s.ck("kv", "get", key, "-o", "json")
        #expect(json.stdout.contains(#""key": "k\u001b[31mX\u0007"#), "\(json.stdout)")
        #expect(json.stdout.contains(#""value": "v\u001b[0m""#))

        let removed = try s.ck("kv", "remove", key, "-o", "table")
        #expect(removed.stdout == "Removed \(shownKey)\n")
        #expect(try s.ck("kv", "list", "-o", "plain").stdout.isEmpty)
    }

    @Test func anErrorQuotesALongPredicateCutWithItsLength() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "a", "title:string=x").status == 0)
        let word = String(repeating: "a", count: 30_000)
        // A bare word on the right of == is a key path: the reason, the predicate line and the hint all quote it.
        let r = try s.ck("query", "Note", "title == " + word)
        #expect(r.status == 8)
        #expect(r.stderr.utf8.count < 2_000, "\(r.stderr.utf8.count) bytes")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 4, "\(lines)")
        // "column 10: '" (12) + 30,000 + "' on the right …" (47): start and end are kept, the length is said.
        #expect(lines.first?.hasPrefix("ck: invalidArguments (12): column 10: 'aaaa") == true)
        #expect(lines.first?.contains("a…[30059 characters in all]…a") == true)
        #expect(lines.first?.hasSuffix("a' on the right of == is a key path, not a value") == true)
        // The predicate (9 + 30,000 characters) around the column, the caret under its tenth character.
        #expect(lines.count > 2 && lines[1].hasPrefix("  title == aaa") && lines[1].hasSuffix("a… (30009 characters)"))
        #expect(lines.count > 2 && lines[2] == "           ^")
        #expect(lines.last?.hasSuffix("a' (a bare word is a key path)") == true)

        // Near the end of a long predicate the window ends there and starts with '…'.
        let open = try s.ck("query", "Note", "title == '\(word)' AND (")
        let shown = open.stderr.split(separator: "\n").map(String.init)
        #expect(open.status == 8 && open.stderr.utf8.count < 1_000)
        #expect(shown.count == 4 && shown[1].hasPrefix("  …aaa") && shown[1].hasSuffix("a' AND ( (30017 characters)"), "\(shown)")
        #expect(shown.count == 4 && shown[2].count == shown[1].count - " (30017 characters)".count + 1 && shown[2].hasSuffix(" ^"))

        // A short predicate is shown whole, as before.
        let short = try s.ck("query", "Note", "title == 'x' AND (")
        #expect(short.stderr == "ck: invalidArguments (12): column 19: the predicate ends where a key or a value was expected\n"
                + "  title == 'x' AND (\n                    ^\nhint: complete the comparison, such as title == 'x'\n")
    }
}
