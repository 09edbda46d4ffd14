import Foundation
import Testing
@testable import CKCommandLine
import CKCore

/// Runs ck in-process against a captured terminal and a temporary store.
final class Harness {
    let dir: String
    var out = ""
    var err = ""

    init() throws {
        dir = NSTemporaryDirectory() + "ck-cli-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: dir) }

    @discardableResult
    func run(_ args: [String], stdin: String = "", env: [String: String] = [:]) -> Int32 {
        out = ""
        err = ""
        let terminal = Terminal(writeOut: { self.out += $0 }, writeErr: { self.err += $0 },
                                readStdin: { Array(stdin.utf8) }, environment: ["CK_DATA_DIR": dir + "/store"].merging(env) { $1 },
                                workingDirectory: dir)
        return CKCommandLineTool.run(args, terminal: terminal)
    }
}

@Suite struct CommandLineTests {
    @Test func exitCodesFollowTheTable() {
        #expect(ExitCode.of(.unknownItem) == 3)
        #expect(ExitCode.of(.zoneNotFound) == 3)
        #expect(ExitCode.of(.serverRecordChanged) == 4)
        #expect(ExitCode.of(.requestRateLimited) == 5)
        #expect(ExitCode.of(.quotaExceeded) == 6)
        #expect(ExitCode.of(.badDatabase) == 7)
        #expect(ExitCode.of(.limitExceeded) == 8)
        #expect(ExitCode.of(.changeTokenExpired) == 9)
        #expect(ExitCode.of(.batchRequestFailed) == 10)
        #expect(ExitCode.of(.internalError) == 1)
        for row in ExitCode.table {
            for code in row.errors { #expect(ExitCode.of(code) == row.code, "\(code.name)") }
        }
        // Every error either has a row or is the "not otherwise listed" failure.
        let listed = Set(ExitCode.table.flatMap(\.errors))
        for code in CKError.Code.allCases where !listed.contains(code) { #expect(ExitCode.of(code) == ExitCode.failure, "\(code.name)") }
        #expect(ExitCode.table.map(\.code) == ExitCode.table.map(\.code).sorted())
    }

    @Test func saveFetchAndFormats() throws {
        let h = try Harness()
        #expect(h.run(["record", "save", "Note", "--name", "n1", "title=Hello", "count=2"]) == 0)
        #expect(h.out == "n1\tNote\t1\t_defaultZone\tcount=2\ttitle=Hello\n")
        #expect(h.run(["record", "fetch", "n1", "-o", "json"]) == 0)
        let json = try JSON.parse(h.out)
        #expect(json["records"]?.arrayValue?.first?["fields"]?["count"] == .object(["value": .int(2), "type": .string("INT64")]))
        #expect(h.run(["record", "fetch", "n1", "-o", "jsonl", "--keys", "title"]) == 0)
        #expect(try JSON.parse(h.out)["fields"]?.objectValue?.keys.sorted() == ["title"])
        #expect(h.run(["record", "fetch", "n1", "-o", "table"]) == 0)
        #expect(h.out.contains("recordName  n1"))
        #expect(h.out.contains("title       Hello  (STRING)"))
    }

    @Test func errorsAreOneLineWithHint() throws {
        let h = try Harness()
        h.run(["record", "save", "Note", "--name", "n1", "title=Hello"])
        #expect(h.run(["record", "save", "Note", "--name", "n1", "title=Again"]) == 4)
        #expect(h.err.hasPrefix("ck: serverRecordChanged (14): record to insert already exists\n"))
        #expect(h.err.contains("hint: to overwrite it, pass --if-tag 1"))
        #expect(h.run(["record", "save", "Note", "--name", "n1", "title=Again", "-o", "json"]) == 4)
        let e = try JSON.parse(h.err)
        #expect(e["ckErrorCode"] == .string("serverRecordChanged"))
        #expect(e["serverErrorCode"] == .string("EXISTS"))
        #expect(e["serverRecord"]?["recordName"] == .string("n1"))
    }

    @Test func usageErrorsExit64() throws {
        let h = try Harness()
        #expect(h.run(["recrod", "save"]) == 64)
        #expect(h.err.contains("unknown command 'recrod'"))
        #expect(h.run(["record", "save", "Note", "novalue"]) == 64)
        #expect(h.run(["record", "save", "Note", "x:wat=1"]) == 64)
        #expect(h.run(["record", "save", "Note", "--if-tag", "1", "--policy", "all-keys", "a=1"]) == 64)
        #expect(h.run(["-o", "json", "record", "save", "--bogus"]) == 64)
        #expect((try? JSON.parse(h.err))?["error"] == .string("usage"))
    }

    @Test func helpAndVersion() throws {
        let h = try Harness()
        #expect(h.run(["--version"]) == 0 && h.out == "ck \(CommandTree.version)\n")
        #expect(h.run([]) == 0 && h.out.hasPrefix("OVERVIEW: A local, offline emulator of Apple CloudKit."))
        #expect(h.run(["record", "save", "--help"]) == 0)
        #expect(h.out.contains("USAGE: ck record save [<record-type>]"))
        #expect(h.out.contains("--if-tag <tag>"))
        #expect(h.run(["help", "record", "save"]) == 0 && h.out.contains("--if-tag <tag>"))
        #expect(h.run(["help", "exit-codes"]) == 0 && h.out.contains("10   partial failure"))
        #expect(h.run(["help", "nonsense"]) == 64)
        // Every command has help that names it.
        for c in CommandTree.root.allDescendants {
            #expect(HelpRenderer.help(c, globals: GlobalOptions.all).contains("USAGE: \(c.path)"))
        }
    }

    @Test func fieldsJSONInBothShapes() throws {
        let h = try Harness()
        #expect(h.run(["record", "save", "Book", "--name", "b", "--fields-json",
                       #"{"title":{"type":"stringType","value":"Great Expectations"},"pageCount":{"type":"int64Type","value":544}}"#]) == 0)
        #expect(h.run(["record", "save", "Book", "--name", "c", "--fields-stdin"], stdin: #"{"title":{"value":"x","type":"STRING"}}"#) == 0)
        #expect(h.run(["record", "fetch", "b", "c"]) == 0)
        #expect(h.out == "b\tBook\t1\t_defaultZone\tpageCount=544\ttitle=Great Expectations\nc\tBook\t2\t_defaultZone\ttitle=x\n")
        #expect(h.run(["record", "save", "Book", "--fields-json", "{\"title\": 3"]) == 8)
        #expect(h.err.contains("--fields-json:1:12"))
        #expect(h.run(["record", "save", "Book", "--fields-json", #"{"title":"bare"}"#]) == 8)
    }

    @Test func batchIsCheckedBeforeAnythingIsWritten() throws {
        let h = try Harness()
        let input = #"{"recordName":"a","recordType":"Note","fields":{"t":{"value":"1"}}}"# + "\n{broken\n"
        #expect(h.run(["record", "save", "--batch", "-"], stdin: input) == 8)
        #expect(h.err.contains("<stdin>:2:2: invalid JSON"))
        #expect(h.run(["record", "fetch", "a"]) == 3)
        #expect(h.run(["record", "save", "--batch", "-", "--if-tag", "3"], stdin: "") == 64)
        #expect(h.err.contains("--if-tag cannot be given"))
        #expect(h.run(["record", "save", "Note", "--batch", "-"], stdin: "") == 64)
    }

    @Test func batchPrintsDeletionsToo() throws {
        let h = try Harness()
        h.run(["record", "save", "Note", "--name", "a", "t=1"])
        let input = #"{"operationType":"forceDelete","record":{"recordName":"a"}}"# + "\n" + #"{"operationType":"forceUpdate","record":{"recordName":"b","recordType":"Note","fields":{"t":{"value":"2"}}}}"#
        #expect(h.run(["record", "save", "--batch", "-"], stdin: input) == 0)
        #expect(h.out == "a\tNote\tdeleted\nb\tNote\t3\t_defaultZone\tt=2\n")
    }
}

@Suite struct ProgressTests {
    func run(_ args: [String], stdin: String, stderrIsTTY: Bool, env: [String: String] = [:]) throws -> (Int32, String) {
        let dir = NSTemporaryDirectory() + "ck-progress-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var err = ""
        let terminal = Terminal(writeOut: { _ in }, writeErr: { err += $0 }, readStdin: { Array(stdin.utf8) },
                                stderrIsTTY: stderrIsTTY, environment: ["CK_DATA_DIR": dir].merging(env) { $1 }, workingDirectory: dir)
        return (CKCommandLineTool.run(args, terminal: terminal), err)
    }

    /// A temporary directory holding a store with `count` Note records (each with `size` bytes of text) in `zone`.
    func seededStore(count: Int, size: Int, zone: String? = nil) throws -> (dir: String, env: [String: String]) {
        let dir = NSTemporaryDirectory() + "ck-progress-\(UUID().uuidString)"
        let text = String(repeating: "x", count: size)
        let lines = (0..<count).map { #"{"recordName":"r\#($0)","recordType":"Note","fields":{"t":{"value":"\#(text)"}}}"# }
            .joined(separator: "\n")
        let env = ["CK_DATA_DIR": dir + "/store"]
        var save = ["record", "save", "--batch", "-"]
        if let zone {
            #expect(try run(["zone", "create", zone], stdin: "", stderrIsTTY: false, env: env).0 == 0)
            save = ["-z", zone] + save
        }
        #expect(try run(save, stdin: lines, stderrIsTTY: false, env: env).0 == 0)
        return (dir, env)
    }

    @Test func bulkSavesShowProgressOnlyOnATerminal() throws {
        let lines = (0..<1_200).map { #"{"recordName":"r\#($0)","recordType":"Note","fields":{"n":{"value":\#($0)}}}"# }.joined(separator: "\n")
        let (code, err) = try run(["record", "save", "--batch", "-"], stdin: lines, stderrIsTTY: true)
        #expect(code == 0)
        #expect(err.contains("\rck: saved 200 of 1200 (16%)"))
        #expect(err.contains("\rck: saved 1200 of 1200 (100%)\n"))
        let (_, piped) = try run(["record", "save", "--batch", "-"], stdin: lines, stderrIsTTY: false)
        #expect(!piped.contains("saved 200 of"))
        let (_, quiet) = try run(["record", "save", "--batch", "-", "-q"], stdin: lines, stderrIsTTY: true)
        #expect(quiet.isEmpty)
    }

    @Test func gcShowsProgressInMegabytesOnlyOnATerminal() throws {
        let (dir, env) = try seededStore(count: 1_200, size: 4_000)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (code, err) = try run(["gc"], stdin: "", stderrIsTTY: true, env: env)
        #expect(code == 0)
        #expect(err.hasPrefix("\rck: compacting "), "\(err)")
        #expect(err.hasSuffix(" MB (100%)\n"), "\(err)")
        #expect(try run(["gc"], stdin: "", stderrIsTTY: false, env: env).1.isEmpty)
        #expect(try run(["gc", "-q"], stdin: "", stderrIsTTY: true, env: env).1.isEmpty)
    }

    @Test func importAndExportShowProgressOnlyOnATerminal() throws {
        let (dir, env) = try seededStore(count: 1_100, size: 4_000)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (code, err) = try run(["export", "--file", dir + "/fixtures.json"], stdin: "", stderrIsTTY: true, env: env)
        #expect(code == 0)
        #expect(err.hasPrefix("\rck: exporting "), "\(err)")
        #expect(err.contains(" MB (100%)\n"), "\(err)")
        #expect(try run(["export", "--file", dir + "/again.json"], stdin: "", stderrIsTTY: false, env: env).1 == "ck: wrote \(dir)/again.json\n")
        let other = ["CK_DATA_DIR": dir + "/other"]
        let (icode, ierr) = try run(["import", dir + "/fixtures.json"], stdin: "", stderrIsTTY: true, env: other)
        #expect(icode == 0)
        #expect(ierr.contains("\rck: imported 200 of 1100 (18%)"), "\(ierr)")
        #expect(ierr.hasSuffix("\rck: imported 1100 of 1100 (100%)\n"), "\(ierr)")
        let quiet = ["CK_DATA_DIR": dir + "/quiet"]
        #expect(try run(["import", dir + "/fixtures.json", "-q"], stdin: "", stderrIsTTY: true, env: quiet).1.isEmpty)
    }

    @Test func syncShowsProgressOnlyOnATerminal() throws {
        let (dir, env) = try seededStore(count: 1_050, size: 10, zone: "Notes")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (code, err) = try run(["sync", "phone"], stdin: "", stderrIsTTY: true, env: env)
        #expect(code == 0)
        #expect(err.contains("\rck: pulled 200 of 1050 (19%)"), "\(err)")
        #expect(err.contains("\rck: pulled 1050 of 1050 (100%)\n"), "\(err)")
        #expect(try run(["sync", "tablet"], stdin: "", stderrIsTTY: false, env: env).1.isEmpty)
        #expect(try run(["sync", "laptop", "-q"], stdin: "", stderrIsTTY: true, env: env).1.isEmpty)
    }

    @Test func colourOnlyOnATerminalAndNeverWithNoColor() throws {
        // Each run has a store directory of its own that does not exist: a read-only command's error.
        let (_, tty) = try run(["record", "fetch", "missing"], stdin: "", stderrIsTTY: true)
        #expect(tty.hasPrefix("\u{1B}[31mck: badContainer"))
        let (_, noColor) = try run(["record", "fetch", "missing"], stdin: "", stderrIsTTY: true, env: ["NO_COLOR": "1"])
        #expect(noColor.hasPrefix("ck: badContainer"))
        let (_, flag) = try run(["record", "fetch", "missing", "--no-color"], stdin: "", stderrIsTTY: true)
        #expect(flag.hasPrefix("ck: badContainer"))
        let (_, piped) = try run(["record", "fetch", "missing"], stdin: "", stderrIsTTY: false)
        #expect(piped.hasPrefix("ck: badContainer"))
    }
}
