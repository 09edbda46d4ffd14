import Foundation
import Testing
@testable import CKCommandLine

/// The manual pages under man/ are generated from the command tree and committed; they must equal what ck generates.
/// Re-record after a deliberate change with `CK_UPDATE_GOLDEN=1 swift test`.
@Suite struct GoldenManTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("man")

    @Test func manPagesMatchCommittedFiles() throws {
        let update = ProcessInfo.processInfo.environment["CK_UPDATE_GOLDEN"] == "1"
        if update { try FileManager.default.createDirectory(at: Self.dir, withIntermediateDirectories: true) }
        var expected = Set(((try? FileManager.default.contentsOfDirectory(atPath: Self.dir.path)) ?? []).filter { $0.hasSuffix(".1") })
        let pages = ManPageRenderer.pages()
        #expect(pages.map(\.fileName).contains("ck.1"))
        #expect(pages.map(\.fileName).contains("ck-record.1"))
        for page in pages {
            let file = Self.dir.appendingPathComponent(page.fileName)
            expected.remove(page.fileName)
            if update { try page.text.write(to: file, atomically: true, encoding: .utf8); continue }
            let golden = try? String(contentsOf: file, encoding: .utf8)
            #expect(golden == page.text, "\(page.fileName) differs from \(file.path); re-record with CK_UPDATE_GOLDEN=1")
        }
        if update {
            for stale in expected { try FileManager.default.removeItem(at: Self.dir.appendingPathComponent(stale)) }
        } else {
            #expect(expected.isEmpty, "man pages for commands that no longer exist: \(expected.sorted())")
        }
    }

    /// Finds groff on PATH (or /usr/bin); nil when it is not installed.
    static func groffPath() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let dirs = path.split(separator: ":").map(String.init) + ["/usr/bin"]
        return dirs.map { $0 + "/groff" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test func groffPrintsNoWarnings() throws {
        guard let groff = Self.groffPath() else {
            Issue.record("groff is not installed: install groff-base (apt-get install groff-base; .ci/run does) to check the man pages")
            return
        }
        let tmp = NSTemporaryDirectory() + "ck-man-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: tmp) }
        for page in ManPageRenderer.pages() {
            let file = tmp + "/" + page.fileName
            try page.text.write(toFile: file, atomically: true, encoding: .utf8)
            for args in [["-mandoc", "-ww", "-z", file], ["-mandoc", "-ww", "-z", "-Tutf8", "-rLL=80n", file]] {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: groff)
                process.arguments = args
                let pipe = Pipe()
                process.standardOutput = pipe
                process.standardError = pipe
                try process.run()
                let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                #expect(output.isEmpty, "groff \(args.dropLast().joined(separator: " ")) \(page.fileName):\n\(output)")
                #expect(process.terminationStatus == 0, "groff exited \(process.terminationStatus) on \(page.fileName)")
            }
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
