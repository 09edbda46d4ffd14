import Foundation
import Testing
@testable import CKCommandLine

/// Help text is read by people: each command's help is kept as a golden file.
/// Re-record after a deliberate change with `CK_UPDATE_GOLDEN=1 swift test` (that run fails; see GoldenFiles).
@Suite struct GoldenHelpTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/help")

    static var pages: [(name: String, text: String)] {
        var out = [("ck", HelpRenderer.help(CommandTree.root, globals: GlobalOptions.all))]
        for c in CommandTree.root.allDescendants {
            out.append((c.path.replacingOccurrences(of: " ", with: "-"), HelpRenderer.help(c, globals: GlobalOptions.all)))
        }
        for (topic, render) in HelpCommand.topics { out.append(("topic-" + topic, render())) }
        return out
    }

    @Test func helpMatchesGoldenFiles() throws {
        var rerecorded = 0
        var expected = Set((try? FileManager.default.contentsOfDirectory(atPath: Self.dir.path)) ?? [])
        for page in Self.pages {
            let file = Self.dir.appendingPathComponent(page.name + ".txt")
            expected.remove(page.name + ".txt")
            if GoldenFiles.updating { rerecorded += try GoldenFiles.record(page.text, to: file) ? 1 : 0; continue }
            let golden = try? String(contentsOf: file, encoding: .utf8)
            #expect(golden == page.text, "help for \(page.name) differs from \(file.path); re-record with CK_UPDATE_GOLDEN=1")
        }
        if GoldenFiles.updating {
            for stale in expected { try FileManager.default.removeItem(at: Self.dir.appendingPathComponent(stale)) }
            GoldenFiles.finish(rerecorded: rerecorded + expected.count, in: Self.dir)
        } else {
            #expect(expected.isEmpty, "golden files for commands that no longer exist: \(expected.sorted())")
        }
    }

    @Test func helpLinesFitEightyColumns() {
        for page in Self.pages {
            for line in page.text.split(separator: "\n") where !line.hasPrefix("  ck ") {
                #expect(line.count <= 80, "\(page.name): \(line)")
            }
        }
    }
}
