import Foundation
import Testing

/// Hints and messages point the right way: an error names where a value came from only when it is about that value.
@Suite struct HintEndToEndTests {
    /// "(from CK_ZONE)" goes on errors about the zone, not on errors that merely name it (a missing record or record
    /// type, a compacted token), and one error gets one such note.
    @Test func environmentVariablesAreNamedOnlyOnErrorsAboutTheirValue() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Notes")
        let zone = ["CK_ZONE": "Notes"]
        #expect(try s.run(["record", "save", "Note", "--name", "a", "t=1"], env: zone).status == 0)
        let token = try s.run(["changes", "zone", "-o", "plain"], env: zone).stdout
            .split(separator: "\n").last.map { String($0.split(separator: "\t")[1]) } ?? ""
        #expect(try s.run(["record", "delete", "a", "-y"], env: zone).status == 0)

        let missing = try s.run(["record", "fetch", "a"], env: zone)
        #expect(missing.stderr == "ck: unknownItem (11): Record not found: 'a' in zone Notes\n")
        let type = try s.run(["query", "Notes", "t == 1"], env: zone)
        #expect(type.stderr.hasPrefix("ck: unknownItem (11): Did not find record type: Notes\n"), "\(type.stderr)")
        try s.ck("gc")
        let expired = try s.run(["changes", "zone", "--since", token], env: zone)
        #expect(expired.status == 9)
        #expect(expired.stderr.hasPrefix("ck: changeTokenExpired (21): The change token is too old: the history of zone 'Notes' before it was compacted\n"),
                "\(expired.stderr)")

        // An error about the zone still says where it came from, once, though the user has the same name.
        let absent = try s.run(["record", "fetch", "a"], env: ["CK_ZONE": "zed", "CK_USER": "zed"])
        #expect(absent.stderr.hasPrefix("ck: zoneNotFound (26): Zone 'zed' does not exist (from CK_ZONE)\n"), "\(absent.stderr)")
        let container = try s.run(["record", "fetch", "a"], env: ["CK_CONTAINER": "iCloud.com.example.Nope"])
        #expect(container.stderr.hasPrefix("ck: badContainer (5): container 'iCloud.com.example.Nope' does not exist in \(s.dir)/store (from CK_CONTAINER)\n"),
                "\(container.stderr)")
    }
}
