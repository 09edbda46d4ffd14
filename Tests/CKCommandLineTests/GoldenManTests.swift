import Foundation
import Testing
@testable import CKCommandLine

/// The manual pages under man/ are generated from the command tree and committed; they must equal what ck generates.
/// Re-record after a deliberate change with `CK_UPDATE_GOLDEN=1 swift test` (that run fails; see GoldenFiles).
@Suite struct GoldenManTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("man")

    @Test func manPagesMatchCommittedFiles() throws {
        var rerecorded = 0
        var expected = Set(((try? FileManager.default.contentsOfDirectory(atPath: Self.dir.path)) ?? []).filter { $0.hasSuffix(".1") })
        let pages = ManPageRenderer.pages()
        #expect(pages.map(\.fileName).contains("ck.1"))
        #expect(pages.map(\.fileName).contains("ck-record.1"))
        for page in pages {
            let file = Self.dir.appendingPathComponent(page.fileName)
            expected.remove(page.fileName)
            if GoldenFiles.updating { rerecorded += try GoldenFiles.record(page.text, to: file) ? 1 : 0; continue }
            let golden = try? String(contentsOf: file, encoding: .utf8)
            #expect(golden == page.text, "\(page.fileName) differs from \(file.path); re-record with CK_UPDATE_GOLDEN=1")
        }
        if GoldenFiles.updating {
            for stale in expected { try FileManager.default.removeItem(at: Self.dir.appendingPathComponent(stale)) }
            GoldenFiles.finish(rerecorded: rerecorded + expected.count, in: Self.dir)
        } else {
            #expect(expected.isEmpty, "man pages for commands that no longer exist: \(expected.sorted())")
        }
    }

    @Test func manPagesAreASCIIAndNoTextLineReadsAsARequest() {
        for page in ManPageRenderer.pages() {
            #expect(page.text.unicodeScalars.allSatisfy { $0.isASCII }, "\(page.fileName) has non-ASCII characters")
            for line in page.text.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
                let request = line.dropFirst().prefix { $0 != " " }
                #expect(["TH", "SH", "TP", "PP", "IP", "RS", "RE", "nf", "fi", "br", "sp"].contains(String(request)),
                        "\(page.fileName): \(line)")
            }
        }
    }

    @Test func manCommandWritesAndPrintsPages() throws {
        let h = try Harness()
        #expect(h.run(["man"]) == 0)
        #expect(h.out == ManPageRenderer.pages().first?.text)
        #expect(h.run(["man", "zone"]) == 0)
        #expect(h.out.hasPrefix(".TH \"CK\\-ZONE\" \"1\""))
        #expect(h.run(["man", "nope"]) == 64)
        #expect(h.run(["man", "--dir", "pages", "-o", "plain"]) == 0)
        for page in ManPageRenderer.pages() {
            let written = try String(contentsOfFile: h.dir + "/pages/" + page.fileName, encoding: .utf8)
            #expect(written == page.text, "\(page.fileName)")
        }
        #expect(h.out.split(separator: "\n").count == ManPageRenderer.pages().count)
    }
}
