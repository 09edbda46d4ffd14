import Foundation
import Testing

/// The man pages `ck man --dir` writes are read by groff without a warning, at the default width and at 80 columns.
@Suite struct ManPageTests {
    @Test(RequiredTool.needed("groff")) func groffPrintsNoWarnings() throws {
        let groff = try RequiredTool.require("groff")
        let s = try Sandbox()
        let written = try s.ck("man", "--dir", "pages", "-o", "plain")
        #expect(written.status == 0, "\(written.stderr)")
        let pages = s.files(under: s.dir + "/pages").filter { $0.hasSuffix(".1") }
        #expect(pages.contains("ck.1") && pages.contains("ck-record.1"), "ck man --dir wrote \(pages)")
        for page in pages {
            let file = s.dir + "/pages/" + page
            for args in [["-mandoc", "-ww", "-z", file], ["-mandoc", "-ww", "-z", "-Tutf8", "-rLL=80n", file]] {
                let r = try s.run(args, program: groff)
                #expect(r.stdout.isEmpty && r.stderr.isEmpty, "groff \(args.dropLast().joined(separator: " ")) \(page):\n\(r.stdout)\(r.stderr)")
                #expect(r.status == 0, "groff exited \(r.status) on \(page)")
            }
        }
    }
}
