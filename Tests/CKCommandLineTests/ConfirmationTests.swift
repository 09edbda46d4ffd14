import Foundation
import Testing
@testable import CKCommandLine
import CKCore

/// The question a delete by query (and cktool's delete verbs) asks on a terminal, answered no and yes.
@Suite struct ConfirmationTests {
    final class Session {
        let dir = NSTemporaryDirectory() + "ck-confirm-\(UUID().uuidString)"
        var out = "", err = ""

        deinit { try? FileManager.default.removeItem(atPath: dir) }

        /// Runs ck with stdin a terminal whose user types `answer`.
        @discardableResult
        func run(_ args: [String], answer: String? = nil) -> Int32 {
            out = ""
            err = ""
            let terminal = Terminal(writeOut: { self.out += $0 }, writeErr: { self.err += $0 }, readStdin: { [] },
                                    readLine: { answer }, stdinIsTTY: answer != nil,
                                    environment: ["CK_DATA_DIR": dir + "/store"], workingDirectory: NSTemporaryDirectory())
            return CKCommandLineTool.run(args, terminal: terminal)
        }

        func names() -> [String] {
            run(["query", "Note", "n >= 0"])
            return out.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted()
        }
    }

    @Test func deleteByQueryAsksOnATerminalAndOnlyYesDeletes() {
        let s = Session()
        for n in ["a", "b", "c"] { #expect(s.run(["record", "save", "Note", "--name", n, "n=\(n == "c" ? 2 : 1)"]) == 0) }
        #expect(s.run(["record", "delete", "--query", "Note", "n == 1"], answer: "n") == 1)
        #expect(s.err == "Delete 2 Note records? [y/N] ck: nothing deleted\n")
        #expect(s.names() == ["a", "b", "c"])
        #expect(s.run(["record", "delete", "--query", "Note", "n == 1"], answer: "yes") == 0)
        #expect(s.out == "a\tNote\tdeleted\nb\tNote\tdeleted\n")
        #expect(s.names() == ["c"])
    }

    @Test func cktoolDeleteVerbsAskOnATerminal() {
        let s = Session()
        let target = ["--container-id", "iCloud.com.example.Ask", "--environment", "development", "--database-type", "private", "-q"]
        #expect(s.run(["cktool", "create-record", "--team-id", "T", "--record-type", "Note", "--fields-json", #"{"n": {"type": "int64Type", "value": 1}}"#]
                      + target) == 0)
        let name = s.out.split(separator: "\"").dropFirst(3).first.map(String.init) ?? ""
        #expect(!name.isEmpty)
        #expect(s.run(["cktool", "delete-record", "--record-name", name] + target, answer: "n") == 1)
        #expect(s.err == "Delete record \(name)? [y/N] ")
        #expect(s.run(["cktool", "delete-records", "--record-type", "Note", "--filters", "n == 1", "--dry-run", "false"] + target,
                      answer: "y") == 0)
        #expect(s.err == "Delete 1 matching record? [y/N] ")
        #expect(s.out == "Deleted 1 record.\n")
    }

    @Test func cktoolIsRecognisedByProgramNameAndMapsExitCodes() {
        #expect(CktoolCommand.isProgram("/usr/local/bin/cktool"))
        #expect(CktoolCommand.isProgram("cktool"))
        #expect(!CktoolCommand.isProgram("/usr/local/bin/ck"))
        #expect(!CktoolCommand.isProgram("/opt/cktool/ck"))
        let verb = CktoolCommand.spec.subcommands[0]
        #expect(CktoolCommand.exitCode(ExitCode.notFound, command: verb) == 1)
        #expect(CktoolCommand.exitCode(ExitCode.usage, command: verb) == 64)
        #expect(CktoolCommand.exitCode(ExitCode.success, command: verb) == 0)
        #expect(CktoolCommand.exitCode(ExitCode.notFound, command: RecordCommand.spec) == 3)
    }
}
