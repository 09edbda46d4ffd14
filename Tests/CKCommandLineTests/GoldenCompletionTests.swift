import Foundation
import Testing
@testable import CKCommandLine

/// The completion scripts under completions/ are generated from the command tree and committed; they must equal what ck generates.
/// Re-record after a deliberate change with `CK_UPDATE_GOLDEN=1 swift test` (that run fails; see GoldenFiles).
@Suite struct GoldenCompletionTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("completions")

    @Test func completionScriptsMatchCommittedFiles() throws {
        var rerecorded = 0
        for shell in CompletionRenderer.Shell.allCases {
            let file = Self.dir.appendingPathComponent(shell.fileName)
            let text = CompletionRenderer.script(shell)
            if GoldenFiles.updating { rerecorded += try GoldenFiles.record(text, to: file) ? 1 : 0; continue }
            let golden = try? String(contentsOf: file, encoding: .utf8)
            #expect(golden == text, "\(shell.fileName) differs from \(file.path); re-record with CK_UPDATE_GOLDEN=1")
        }
        GoldenFiles.finish(rerecorded: rerecorded, in: Self.dir)
    }

    @Test func completionCommandPrintsScripts() throws {
        let h = try Harness()
        for shell in CompletionRenderer.Shell.allCases {
            #expect(h.run(["completion", shell.rawValue]) == 0)
            #expect(h.out == CompletionRenderer.script(shell))
        }
        #expect(h.run(["completion", "tcsh"]) == 64)
        #expect(h.run(["completion"]) == 64)
    }

    @Test func scriptsCoverTheTree() {
        let bash = CompletionRenderer.script(.bash)
        #expect(bash.contains("'record') _ck_subs='save fetch list delete'"))
        #expect(bash.contains("*:--env|*:-e) _ck_words 'development production'"))
        #expect(bash.contains("_ck_dynamic recordType"))
        #expect(!bash.contains("__complete'"), "the hidden command is not offered")
        #expect(!CompletionRenderer.script(.fish).contains("-a '__complete'"))
    }

    @Test func completeListsStoreNames() throws {
        let h = try Harness()
        #expect(h.run(["__complete", "container"]) == 0)
        #expect(h.out == "", "no store is made by completion")
        #expect(!FileManager.default.fileExists(atPath: h.dir + "/store"))
        #expect(h.run(["record", "save", "Note", "--name", "n1", "title=Hi", "count=2"]) == 0)
        #expect(h.run(["record", "save", "Task", "--name", "t1", "due=3"]) == 0)
        #expect(h.run(["zone", "create", "Work"]) == 0)
        #expect(h.run(["__complete", "recordType"]) == 0)
        #expect(h.out == "Note\nTask\n")
        #expect(h.run(["__complete", "field", "Note"]) == 0)
        #expect(h.out == "count\ntitle\n")
        #expect(h.run(["__complete", "field"]) == 0)
        #expect(h.out == "count\ndue\ntitle\n")
        #expect(h.run(["__complete", "recordName"]) == 0)
        #expect(h.out == "n1\nt1\n")
        #expect(h.run(["__complete", "recordName", "Task"]) == 0)
        #expect(h.out == "t1\n")
        #expect(h.run(["__complete", "zone"]) == 0)
        #expect(h.out.split(separator: "\n").contains("Work"))
        #expect(h.run(["__complete", "user"]) == 0)
        #expect(h.out == "default\n")
        #expect(h.run(["__complete", "container"]) == 0)
        #expect(h.out.split(separator: "\n").count == 1)
        #expect(h.run(["__complete", "recordType", "-e", "production"]) == 0)
        #expect(h.out == "")
        #expect(h.run(["__complete", "nope"]) == 64)
    }
}
