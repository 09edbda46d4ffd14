import Foundation
import Testing

/// Every file a user names for output goes through one writer: a symbolic link at the target is refused and the
/// file it points to is left alone (docs/reliability.md, "Output").
@Suite struct OutputFileTests {
    /// A schema `schema fmt` would rewrite (not in canonical layout).
    static let messy = "DEFINE SCHEMA\n  RECORD TYPE   Doc (\"t\"   INT64);\n"

    @Test func everyFileOutputRefusesASymlinkAtItsTarget() throws {
        let s = try Sandbox()
        try s.write("hello", to: "a.bin")
        #expect(try s.ck("record", "save", "Doc", "--name", "d", "photo:asset=@a.bin", "t=1").status == 0)
        try s.write("""
        import SwiftData

        @Model final class Trip {
            var name: String = ""
            init() {}
        }

        """, to: "Trip.swift")
        try s.write(Self.messy, to: "messy.ckdb")
        try FileManager.default.createDirectory(atPath: s.dir + "/outside", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: s.dir + "/man", withIntermediateDirectories: true)
        let cases: [(args: [String], link: String)] = [
            (["export", "--file", "link"], "link"),
            (["schema", "export", "--file", "link"], "link"),
            (["model", "schema", "Trip.swift", "--file", "link"], "link"),
            (["asset", "get", "d", "photo", "--file", "link"], "link"),
            (["cktool", "export-schema", "--team-id", "XYZ1234567", "--container-id", "iCloud.ck.default",
              "--environment", "development", "--output-file", "link"], "link"),
            (["exec", "--export-on-exit", "link", "--", "true"], "link"),
            (["schema", "fmt", "messy.ckdb"], "messy.ckdb"),
            (["man", "--dir", "man"], "man/ck.1"),
        ]
        for (i, c) in cases.enumerated() {
            // The link points at a file outside anything ck was asked to write.
            let outside = s.dir + "/outside/\(i)"
            let original = c.link == "messy.ckdb" ? Self.messy : "outside \(i)\n"
            try original.write(toFile: outside, atomically: true, encoding: .utf8)
            let link = s.dir + "/" + c.link
            try? FileManager.default.removeItem(atPath: link)
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: outside)
            let r = try s.run(c.args)
            // cktool's words exit as cktool does (1 for any error); ck's own commands exit 8 for invalidArguments.
            #expect(r.status == (c.args[0] == "cktool" ? 1 : 8), "ck \(c.args.joined(separator: " ")) exited \(r.status): \(r.stderr)")
            #expect(r.stderr.contains("\(link) is a symbolic link; ck does not write through it"), "\(c.args): \(r.stderr)")
            #expect(try String(contentsOfFile: outside, encoding: .utf8) == original, "\(c.args) changed the file outside")
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == outside, "\(c.args) replaced the link")
        }
        // Without a link the same writers write a regular file.
        try FileManager.default.removeItem(atPath: s.dir + "/link")
        #expect(try s.ck("asset", "get", "d", "photo", "--file", "link").status == 0)
        #expect(try String(contentsOfFile: s.dir + "/link", encoding: .utf8) == "hello")
    }
}
