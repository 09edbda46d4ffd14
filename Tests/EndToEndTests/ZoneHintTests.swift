import Foundation
import Testing

/// A query that forgets its zone finds nothing and exits 0: for a CI script counting lines that is a silent pass.
/// When the zone asked holds no records of the type but other zones of the database do, one line on stderr names
/// them and the -z to use; stdout and the exit code stay what they were.
@Suite struct ZoneHintTests {
    static let hint = "ck: zone _defaultZone holds no Note records; zone Notes does: add -z Notes\n"

    /// Three notes in the private zone Notes (priorities 5, 4, 1), none in the default zone.
    static let fixtures = """
        {"format": "ck-fixtures/1", "container": "iCloud.com.example.Notes",
         "zones": [{"database": "private", "zoneName": "Notes"}],
         "records": [
          {"record": {"recordName": "note-1", "recordType": "Note", "zoneID": {"zoneName": "Notes"}, "fields": {"priority": {"value": 5}}}},
          {"record": {"recordName": "note-2", "recordType": "Note", "zoneID": {"zoneName": "Notes"}, "fields": {"priority": {"value": 4}}}},
          {"record": {"recordName": "note-3", "recordType": "Note", "zoneID": {"zoneName": "Notes"}, "fields": {"priority": {"value": 1}}}}
         ]}
        """

    @Test func anEmptyQueryNamesTheZonesThatHoldTheTypeInEveryFormat() throws {
        let s = try Sandbox()
        try s.write(Self.fixtures, to: "dev.json")
        #expect(try s.ck("container", "create", "iCloud.com.example.Notes", "--use").status == 0)
        #expect(try s.ck("import", "dev.json").status == 0)
        // stdout is what an empty answer prints in each format (json: an empty records array), the exit code 0.
        let empty: [String: String] = ["plain": "", "name": "", "jsonl": "", "table": "", "json": "{\n  \"records\": []\n}\n"]
        for (format, stdout) in empty {
            let r = try s.ck("-c", "iCloud.com.example.Notes", "query", "Note", "priority > 3", "-o", format)
            #expect(r.status == 0, "\(format): \(r.stderr)")
            #expect(r.stdout == stdout, "\(format): \(r.stdout)")
            #expect(r.stderr.hasSuffix(Self.hint) && r.stderr.components(separatedBy: "holds no").count == 2, "\(format): \(r.stderr)")
        }
        // The zone named: the records, and no hint.
        let named = try s.ck("-c", "iCloud.com.example.Notes", "query", "Note", "priority > 3", "-z", "Notes", "-o", "name")
        #expect(named.stdout.split(separator: "\n").sorted() == ["note-1", "note-2"])
        #expect(named.stderr == "")
        // The zone asked holds the type but nothing matched: that is a real empty answer, no hint.
        let none = try s.ck("-c", "iCloud.com.example.Notes", "query", "Note", "priority > 9", "-z", "Notes", "-o", "plain")
        #expect(none.status == 0 && none.stdout == "" && none.stderr == "")
        // A type no other zone holds either: no hint.
        #expect(try s.ck("-c", "iCloud.com.example.Notes", "record", "save", "Task", "n=1").status == 0)
        let task = try s.ck("-c", "iCloud.com.example.Notes", "query", "Task", "n > 5", "-o", "plain")
        #expect(task.status == 0 && task.stdout == "" && task.stderr == "")
    }

    @Test func severalZonesAreAllNamed() throws {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Work").status == 0)
        #expect(try s.ck("zone", "create", "Home").status == 0)
        #expect(try s.ck("zone", "create", "Empty").status == 0)
        #expect(try s.ck("record", "save", "Note", "-z", "Work", "n=1").status == 0)
        #expect(try s.ck("record", "save", "Note", "-z", "Home", "n=2").status == 0)
        let r = try s.ck("query", "Note", "n > 0", "-z", "Empty", "-o", "plain")
        #expect(r.status == 0 && r.stdout == "")
        #expect(r.stderr == "ck: zone Empty holds no Note records; zones Home, Work do: add -z Home, -z Work or --zone-wide\n")
        // The zone from CK_ZONE is the zone asked, too.
        let env = try s.run(["query", "Note", "n > 0", "-o", "plain"], env: ["CK_ZONE": "Empty"])
        #expect(env.stderr == r.stderr)
        // -q silences notes, this one included.
        #expect(try s.ck("query", "Note", "n > 0", "-z", "Empty", "-o", "plain", "-q").stderr == "")
    }

    @Test func aCkExecScriptThatForgetsTheZoneIsToldOnStderr() throws {
        let s = try Sandbox(store: false)
        try s.write(Self.fixtures, to: "dev.json")
        let bin = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let r = try s.run(["exec", "--import", "dev.json", "--", "sh", "-c", "ck query Note 'priority > 3' -o name"],
                          env: ["PATH": bin + ":/usr/bin:/bin"])
        #expect(r.status == 0)
        #expect(r.stdout == "")
        #expect(r.stderr == Self.hint)
    }
}
