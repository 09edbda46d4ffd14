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
}
