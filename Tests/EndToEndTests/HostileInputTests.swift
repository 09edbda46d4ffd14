import Foundation
import Testing
import CKTestSupport

// Hostile input through the built binary: names that try to leave the store, oversized and deeply nested JSON,
// random predicates, schemas and batch lines. Every refusal must be a clean exit (never a signal) with a code from
// the documented table and a message that names the problem, and nothing may be written outside the store.

/// One run of `ck` with how it ended: `ck` must always exit, never die of a signal.
struct HostileOutcome: CustomStringConvertible {
    var reason: Process.TerminationReason
    var status: Int32
    var stdout: String
    var stderr: String

    var exited: Bool { reason == .exit }
    /// Short: the exit code and the first lines of stderr, or for a crash the fatal error and the first ck frame.
    var description: String {
        let lines = stderr.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard exited else {
            let fatal = lines.first { $0.contains("Fatal error") || $0.contains("runtime failure") } ?? "?"
            // The first frame in ck's own sources: the text after its address.
            let frame = lines.first { $0.contains(" in ck at /") && !$0.contains("<compiler-generated>") }.map { line -> String in
                let words = line.split(separator: " ")
                return words.drop { !$0.hasPrefix("0x") }.dropFirst().joined(separator: " ")
            } ?? ""
            return "SIGNAL \(status): \(fatal.trimmingCharacters(in: .whitespaces).prefix(200)) — \(frame.prefix(200))"
        }
        let head = lines.prefix(3).joined(separator: " | ")
        return "exit \(status); stderr: \(head.prefix(400))" + (head.count > 400 || lines.count > 3 ? "…" : "")
    }
    /// stderr holds a control character other than a newline: hostile text reached the terminal unescaped.
    var stderrHasRawControls: Bool { stderr.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || $0.value == 0x7F } }
}

/// What this file draws from the suites' fixed-seed generator: the random inputs are the same on every run.
private extension SeededRNG {
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) } }

    /// A seed with 1–4 byte mutations: flip, insert, delete, duplicate, splice in a token.
    mutating func mutate(_ seed: [UInt8], tokens: [[UInt8]]) -> [UInt8] {
        var b = seed
        for _ in 0...below(4) {
            let at = below(b.count + 1)
            switch below(5) {
            case 0 where at < b.count: b[at] ^= UInt8(truncatingIfNeeded: 1 << below(8))
            case 1: b.insert(UInt8(truncatingIfNeeded: next()), at: at)
            case 2 where at < b.count: b.removeSubrange(at..<min(b.count, at + 1 + below(6)))
            case 3 where !b.isEmpty:
                let from = below(b.count)
                b.insert(contentsOf: Array(b[from..<min(b.count, from + 1 + below(24))]), at: at)
            default: b.insert(contentsOf: tokens[below(tokens.count)], at: at)
            }
        }
        return b
    }
}

extension Sandbox {
    /// Runs ck and reports how it ended. stdin comes from a file (or /dev/null), so a command that refuses early
    /// never meets a blocked pipe.
    func hostileRun(_ args: [String], stdinFile: String? = nil, env: [String: String] = [:]) throws -> HostileOutcome {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Sandbox.binary)
        p.arguments = args
        p.environment = environment.merging(env) { $1 }
        p.currentDirectoryURL = URL(fileURLWithPath: dir)
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let input = stdinFile.map { FileHandle(forReadingAtPath: $0) } ?? FileHandle(forReadingAtPath: "/dev/null")
        p.standardInput = input
        try p.run()
        let (outData, errData) = Sandbox.finish(p, out: out, err: err)
        try? input?.close()
        return HostileOutcome(reason: p.terminationReason, status: p.terminationStatus,
                              stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Every path under the sandbox, except files ck may touch on a refused command (locks, the derived index).
    func hostileSnapshot() -> Set<String> {
        Set(files(under: dir).filter { p in
            let name = (p as NSString).lastPathComponent
            return name != ".lock" && !name.hasPrefix(".index.sqlite")
        })
    }
}

@Suite struct HostileInputTests {
    static let env = "store/containers/iCloud.ck.default/development"

    /// A marker no real file has: any path holding it after the run is an escape.
    static func marker() -> String { "ckesc" + UUID().uuidString.prefix(8).lowercased() }

    /// No file or directory named with `marker` exists in the sandbox, the temporary directory or `/`.
    static func noEscape(_ s: Sandbox, _ marker: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var found = s.files(under: s.dir).filter { $0.contains(marker) }
        for top in [NSTemporaryDirectory(), "/"] {
            found += ((try? FileManager.default.contentsOfDirectory(atPath: top)) ?? []).filter { $0.contains(marker) }.map { top + "/" + $0 }
        }
        #expect(found.isEmpty, "files escaped: \(found)", sourceLocation: sourceLocation)
    }

    /// Names every slot must refuse, with a label for messages.
    static func hostileNames(_ m: String) -> [(label: String, value: String)] {
        [("parent escape", "../../../../../../../\(m)"), ("store-internal escape", "../../\(m)"), ("slash", "a/\(m)"),
         ("absolute", "/tmp/\(m)"), ("dot-dot", ".."), ("control", "a\u{1}\(m)"), ("newline", "a\n\(m)"), ("delete", "a\u{7F}b"),
         ("escape sequence", "\u{1B}]0;\(m)\u{7}"), ("256 bytes", String(repeating: "n", count: 256)),
         ("Latin-1", "Zoné\(m)"), ("CJK", "名前\(m)"), ("emoji", "😀\(m)"), ("empty", "")]
    }

    // MARK: Names

    @Test func hostileNamesAreRefusedInEverySlotAndNothingIsWrittenOutside() throws {
        let s = try Sandbox()
        let seed = try s.hostileRun(["record", "save", "Note", "--name", "seed", "x=1"])
        #expect(seed.status == 0, "\(seed)")
        let m = HostileInputTests.marker()
        let before = s.hostileSnapshot()
        // (slot word in the message, the command with the name in that slot)
        let slots: [(String, (String) -> [String])] = [
            ("record name", { ["record", "save", "Note", "--name", $0, "x=1"] }),
            ("record name", { ["record", "fetch", "--", $0] }),
            ("record name", { ["record", "delete", "-y", "--", $0] }),
            ("record name", { ["record", "save", "Note", "--name", "r1", "r:reference=\($0)"] }),
            ("zone name", { ["zone", "create", "--", $0] }),
            ("zone name", { ["--zone=\($0)", "record", "save", "Note", "x=1"] }),
            ("zone name", { ["zone", "delete", "-y", "--", $0] }),
            ("zone name", { ["record", "save", "Note", "--name", "r2", "r:reference=x@\($0)"] }),
            ("container identifier", { ["--container=iCloud.\($0)", "record", "save", "Note", "x=1"] }),
            ("container identifier", { ["container", "create", "--", "iCloud.\($0)"] }),
            ("user name", { ["--as=\($0)", "record", "save", "Note", "x=1"] }),
            ("field name", { ["record", "save", "Note", "--name", "f1", "\($0)=1"] }),
            ("record type", { ["record", "save", "--name", "t1", "--", $0, "x=1"] }),
        ]
        var runs = 0
        for (word, command) in slots {
            for (label, name) in HostileInputTests.hostileNames(m) {
                // An empty --as or --zone value may count as unset, as an empty CK_USER or CK_ZONE does.
                if name.isEmpty && (word == "user name" || command("").contains("--zone=")) { continue }
                // A record name may hold '/' and be '..', as in CloudKit: it is never a path (RecordNameTests).
                if word == "record name" && (name.contains("/") || name == "..") { continue }
                let r = try s.hostileRun(command(name))
                runs += 1
                let what = "\(word) \(label): ck \(command(name).map { $0.debugDescription }.joined(separator: " ")) → \(r)"
                #expect(r.exited, "\(what)")
                #expect(r.status == 8 || r.status == 64, "\(what)")
                if r.status == 8 {
                    #expect(r.stderr.hasPrefix("ck: invalidArguments (12): "), "\(what)")
                    // The message names the kind of name (a reference names it after the field: "fields.r: zone name …").
                    #expect(r.stderr.contains(word), "\(what)")
                }
                let escaped = !r.stderrHasRawControls
                #expect(escaped, "control characters echoed raw to stderr: \(what)")
                #expect(r.stdout.isEmpty, "\(what): printed \(r.stdout.prefix(200))")
            }
        }
        // The same names through the environment variables.
        for (variable, word) in [("CK_ZONE", "zone name"), ("CK_USER", "user name"), ("CK_CONTAINER", "container identifier")] {
            for (label, name) in HostileInputTests.hostileNames(m) where !name.isEmpty && !name.contains("\n") {
                let value = variable == "CK_CONTAINER" ? "iCloud." + name : name
                let r = try s.hostileRun(["record", "save", "Note", "x=1"], env: [variable: value])
                runs += 1
                let what = "\(variable)=\(value.debugDescription) (\(label)) → \(r)"
                #expect(r.exited && (r.status == 8 || r.status == 64), "\(what)")
                #expect(r.stderr.contains(word) || r.stderr.contains(variable), "\(what)")
                #expect(r.stdout.isEmpty, "\(what)")
            }
        }
        #expect(runs > 180)
        let after = s.hostileSnapshot()
        #expect(after.subtracting(before).isEmpty, "new files: \(after.subtracting(before).sorted())")
        #expect(before.subtracting(after).isEmpty, "files gone: \(before.subtracting(after).sorted())")
        HostileInputTests.noEscape(s, m)
        // The store still works, and holds only the seed.
        let fetch = try s.hostileRun(["record", "fetch", "seed"])
        #expect(fetch.status == 0 && fetch.stdout.hasPrefix("seed\tNote\t"), "\(fetch)")
    }

    @Test func hostileNamesInBatchLinesAreRefusedAndEchoedEscaped() throws {
        let s = try Sandbox()
        let m = HostileInputTests.marker()
        let lines = [
            #"{"recordName":"a\u0000\#(m)","recordType":"Note","fields":{}}"#,
            #"{"recordName":"../../../../../../../\#(m)","recordType":"Note","fields":{}}"#,
            #"{"recordName":"esc\u001b[2J\#(m)","recordType":"Note","fields":{}}"#,
            #"{"recordName":"t1","recordType":"No\u0000te","fields":{}}"#,
            #"{"recordName":"t2","recordType":"Note","fields":{"a\u0000b":{"value":1}}}"#,
            #"{"recordName":"t3","recordType":"Note","fields":{"r":{"value":{"recordName":"x\u0000y"},"type":"REFERENCE"}}}"#,
            #"{"recordName":"t4","recordType":"Note","fields":{"r":{"value":{"recordName":"xy","zoneID":{"zoneName":"\u001b]0;\#(m)\u0007"}},"type":"REFERENCE"}}}"#,
            #"{"recordName":"t5","recordType":"Note","fields":{"r":{"value":{"recordName":"xy","zoneID":{"zoneName":"../../\#(m)"}},"type":"REFERENCE"}}}"#,
        ]
        try s.write(lines.joined(separator: "\n") + "\n", to: "hostile.jsonl")
        #expect(try s.hostileRun(["record", "save", "Note", "--name", "seed", "x=1"]).status == 0)
        let before = s.hostileSnapshot()
        let r = try s.hostileRun(["record", "save", "--batch", "hostile.jsonl"])
        // Every line is checked before anything is written: the command refuses the file whole.
        #expect(r.exited && r.status == 8, "\(r)")
        // Line 2's '../../…' is a valid record name (CloudKit's rule; it never becomes a path): 7 lines are invalid.
        #expect(r.stderr.hasPrefix("ck: invalidArguments (12): hostile.jsonl: 7 lines are invalid; nothing was saved (7 problems below)\n"), "\(r)")
        #expect(r.stderr.contains("must contain only printable ASCII characters"), "\(r)")
        #expect(!r.stderr.contains("hostile.jsonl:2:"), "\(r)")
        #expect(r.stderr.contains("invalid record type 'No\\u{0}te'"), "\(r)")
        #expect(r.stderr.contains("invalid field name 'a\\u{0}b'"), "\(r)")
        // Item names and reasons go to a terminal: the ESC and BEL of a hostile name must not reach it raw.
        let escaped = !r.stderrHasRawControls
        #expect(escaped, "raw control characters on stderr: \(r.stderr.debugDescription)")
        let json = try s.hostileRun(["record", "save", "--batch", "hostile.jsonl", "-o", "json"])
        #expect(json.exited && json.status == 8)
        #expect(!json.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "raw control characters in JSON output")
        #expect(s.hostileSnapshot() == before)
        HostileInputTests.noEscape(s, m)
    }

    @Test func aZoneNameThatEscapesFromADataDirIsRefused() throws {
        // A store whose zones.json names a zone that would resolve outside it (a hand edit, a hostile checkout).
        let s = try Sandbox()
        let m = HostileInputTests.marker()
        #expect(try s.hostileRun(["zone", "create", "Work"]).status == 0)
        #expect(try s.hostileRun(["-z", "Work", "record", "save", "Note", "--name", "w1", "x=1"]).status == 0)
        let zonesPath = s.dir + "/" + HostileInputTests.env + "/zones.json"
        let hostile = "../../../../../../../\(m)"
        let original = try String(contentsOfFile: zonesPath, encoding: .utf8)
        try original.replacingOccurrences(of: "\"zoneName\": \"Work\"", with: "\"zoneName\": \"\(hostile)\"")
            .write(toFile: zonesPath, atomically: true, encoding: .utf8)
        let dataDir = ["--data-dir", s.dir + "/store"]
        // Addressing the zone is refused by the name check, whatever the store says.
        for args in [["-z", hostile, "record", "save", "Note", "x=1"], ["-z", hostile, "record", "fetch", "w1"],
                     ["zone", "delete", "-y", "--", hostile], ["zone", "show", "--", hostile], ["zone", "create", "--", hostile]] {
            let r = try s.hostileRun(dataDir + args)
            // Refused by the name check (exit 8), or earlier, by the check of zones.json itself (exit 1, naming it).
            #expect(r.exited && (r.status == 8 || (r.status == 1 && r.stderr.contains("zones.json"))), "\(args) → \(r)")
            #expect(r.stderr.contains("zone name '\(hostile)' may not be '.', '..' or contain '/'"), "\(args) → \(r)")
        }
        // Writes elsewhere in the environment read every zone's log: nothing may follow the hostile name.
        let save = try s.hostileRun(dataDir + ["record", "save", "Note", "--name", "d1", "x=1"])
        #expect(save.exited && (save.status == 0 || save.status == 1), "\(save)")
        HostileInputTests.noEscape(s, m)
        // ck reads the catalog as it reads a broken one: it names zones.json and refuses to use the store.
        let list = try s.hostileRun(dataDir + ["zone", "list"])
        #expect(list.exited)
        #expect(list.status == 1 && list.stderr.contains("zones.json"),
                "zones.json naming zone '\(hostile)' is accepted: zone list → \(list); stdout: \(list.stdout)")
        #expect(!list.stdout.contains(m), "zone list prints a zone no command can address: \(list.stdout)")
    }

    @Test func zoneNamesOfTheMaximumLengthWorkEndToEnd() throws {
        // 255 bytes is a legal zone name; its log file is <name>.jsonl and, while deleting, .deleting-<name>.jsonl-<pid>.
        for length in [255, 240] {
            let s = try Sandbox()
            let zone = String(repeating: "z", count: length)
            let create = try s.hostileRun(["zone", "create", zone])
            #expect(create.exited)
            if create.status == 8 { continue }  // refusing the name up front is also acceptable
            #expect(create.status == 0, "\(length): \(create)")
            let save = try s.hostileRun(["-z", zone, "record", "save", "Note", "--name", "a", "x=1"])
            #expect(save.exited && save.status == 0, "\(length)-byte zone: save → \(save)")
            let delete = try s.hostileRun(["zone", "delete", "-y", zone])
            #expect(delete.exited && delete.status == 0, "\(length)-byte zone: delete → \(delete)")
            // A zone that was deleted (or whose delete failed) must not bring its records back when re-created.
            #expect(try s.hostileRun(["zone", "create", zone]).status == 0)
            let fetch = try s.hostileRun(["-z", zone, "record", "fetch", "a"])
            #expect(fetch.status == 3, "\(length)-byte zone: record 'a' survives its zone's deletion: \(fetch); \(fetch.stdout)")
        }
    }

    @Test func assetHashesAreHexDigitsNotPaths() throws {
        // An asset named by hash must already be in assets/<sha256>. A "hash" of 64 bytes that climbs out of
        // assets/ must be refused as a hash, and must not tell whether the file it names exists.
        let s = try Sandbox()
        func climbing(to target: String) -> String {
            let up = String(repeating: "../", count: 14) + target
            return String(repeating: "./", count: (64 - up.utf8.count) / 2) + up
        }
        let existing = climbing(to: "etc/passwd"), missing = climbing(to: "etc/passwq")
        #expect(existing.utf8.count == 64 && missing.utf8.count == 64 && FileManager.default.fileExists(atPath: "/etc/passwd"))
        var outcomes: [String: HostileOutcome] = [:]
        for (label, hash) in [("existing", existing), ("missing", missing)] {
            let fields = #"{"a":{"value":{"sha256":"\#(hash)","size":1},"type":"ASSETID"}}"#
            let r = try s.hostileRun(["record", "save", "Note", "--name", "x", "--fields-json", fields])
            outcomes[label] = r
            let clean = r.exited && r.status == 8
            #expect(clean, "sha256 naming an \(label) file outside the store → \(r)")
            #expect(r.stderr.contains("sha256"), "\(label) → \(r)")
        }
        #expect(outcomes["existing"]?.status == outcomes["missing"]?.status,
                "the answer tells whether /etc/passwd exists: existing → \(outcomes["existing"]!), missing → \(outcomes["missing"]!)")
        #expect(try s.hostileRun(["record", "fetch", "x"]).status == 3)
    }

    // MARK: Record size

    /// A fields file with one STRING field `s` of `count` copies of `unit` (JSON text).
    static func fieldsFile(_ unit: String, count: Int) -> String {
        #"{"s":{"value":""# + String(repeating: unit, count: count) + #"","type":"STRING"}}"#
    }

    @Test func theOneMegabyteRecordLimitIsExact() throws {
        let s = try Sandbox()
        // size = name + type + key + compact JSON value: 3 + 4 + 1 + (n + 2).
        let limit = 1_048_576
        try s.write(HostileInputTests.fieldsFile("x", count: limit - 10 - 1), to: "under.json")
        try s.write(HostileInputTests.fieldsFile("x", count: limit - 10 + 1), to: "over.json")
        let over = try s.hostileRun(["record", "save", "Note", "--name", "big", "--fields-file", "over.json"])
        #expect(over.exited && over.status == 8, "\(over)")
        #expect(over.stderr.hasPrefix("ck: limitExceeded (27): record 'big' is 1048577 bytes; CloudKit's limit is 1048576 bytes (assets excluded)\n"), "\(over)")
        #expect(try s.hostileRun(["record", "fetch", "big"]).status == 3, "a refused record was stored")
        let under = try s.hostileRun(["record", "save", "Note", "--name", "big", "--fields-file", "under.json", "-o", "json"])
        #expect(under.exited && under.status == 0, "\(under)")
        let fetched = try s.hostileRun(["record", "fetch", "big", "--keys", ""])
        #expect(fetched.status == 0 && fetched.stdout == "big\tNote\t1\t_defaultZone\n", "\(fetched)")
        // The same limit through --batch (name big2: one byte more).
        let line = #"{"recordName":"big2","recordType":"Note","fields":{"s":{"value":""# + String(repeating: "y", count: limit - 11 + 1) + #""}}}"#
        try s.write(line + "\n", to: "over.jsonl")
        let batch = try s.hostileRun(["record", "save", "--batch", "over.jsonl"])
        #expect(batch.exited && batch.status == 8, "\(batch)")
        #expect(batch.stderr.hasPrefix("ck: limitExceeded (27): record 'big2' is 1048577 bytes;"), "\(batch)")
    }

    @Test func theRecordLimitCountsEscapedCharacters() throws {
        // 200,000 U+0001 characters are 1,200,002 bytes of compact JSON ("\u0001" each): over the limit as ck counts.
        let s = try Sandbox()
        try s.write(HostileInputTests.fieldsFile("\\u0001", count: 200_000), to: "controls.json")
        let r = try s.hostileRun(["record", "save", "Note", "--name", "ctl", "--fields-file", "controls.json", "-o", "json"])
        #expect(r.exited)
        #expect(r.status == 8 && r.stderr.contains("limitExceeded") && r.stderr.contains("is 1200010 bytes"),
                "a record of 1,200,010 bytes (by ck's own measure) was accepted: \(r)")
    }

    // MARK: Nested and huge JSON

    @Test func tenThousandLevelsOfNestingAreRefusedCleanly() throws {
        let s = try Sandbox()
        let arrays = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let objects = String(repeating: #"{"a":"#, count: 10_000) + "1" + String(repeating: "}", count: 10_000)
        try s.write(#"{"s":{"value":"# + arrays + "}}", to: "deep-fields.json")
        try s.write(objects, to: "deep-objects.json")
        try s.write(#"{"recordName":"d","recordType":"Note","fields":{"s":{"value":"# + arrays + "}}}\n", to: "deep.jsonl")
        let cases: [(args: [String], stdin: String?, place: String)] = [
            (["record", "save", "Note", "--name", "d", "--fields-stdin"], s.dir + "/deep-fields.json", "<stdin>:1:"),
            (["record", "save", "Note", "--name", "d", "--fields-stdin"], s.dir + "/deep-objects.json", "<stdin>:1:"),
            (["record", "save", "Note", "--name", "d", "--fields-file", "deep-fields.json"], nil, "deep-fields.json:1:"),
            (["record", "save", "Note", "--name", "d", "--fields-json", objects], nil, "--fields-json:1:"),
            (["record", "save", "--batch", "deep.jsonl"], nil, "deep.jsonl:1:"),
            (["record", "save", "--batch", "-"], s.dir + "/deep.jsonl", "<stdin>:1:"),
        ]
        for c in cases {
            let r = try s.hostileRun(c.args, stdinFile: c.stdin)
            let what = "\(c.args.prefix(6).joined(separator: " ")) \(c.stdin.map { "< " + ($0 as NSString).lastPathComponent } ?? "") → \(r)"
            #expect(r.exited && r.status == 8, "\(what)")
            #expect(r.stderr.hasPrefix("ck: invalidArguments (12): \(c.place)"), "\(what)")
            #expect(r.stderr.contains("invalid JSON: nesting deeper than 128 levels"), "\(what)")
        }
        // Query filters as JSON: refused as well (whatever the wording), never a crash.
        #expect(try s.hostileRun(["record", "save", "Note", "--name", "n", "x=1"]).status == 0)
        let filters = try s.hostileRun(["query", "Note", "--filters-json", #"{"filterBy":"# + arrays + "}"])
        #expect(filters.exited && filters.status == 8, "--filters-json nested 10,000 deep → \(filters)")
        #expect(filters.stderr.hasPrefix("ck: invalidArguments (12): --filters-json:1:"), "\(filters)")
        #expect(filters.stderr.contains("nesting deeper than 128 levels"), "\(filters)")
        #expect(try s.hostileRun(["record", "fetch", "d"]).status == 3)
    }

    @Test func twentyMegabytesOfJSONAreRefusedByTheLimit() throws {
        let s = try Sandbox()
        // 20 MB of fields JSON passes the 4 MB ck reads for one record's JSON (docs/cli.md §4.1): refused unparsed.
        let huge = String(repeating: "h", count: 20_000_000)
        try s.write(#"{"s":{"value":""# + huge + #""}}"#, to: "huge.json")
        let r = try s.hostileRun(["record", "save", "Note", "--name", "h", "--fields-stdin"], stdinFile: s.dir + "/huge.json")
        #expect(r.exited && r.status == 8, "\(r)")
        #expect(r.stderr.hasPrefix("ck: limitExceeded (27): <stdin> is larger than 4194304 bytes (4 MB)"), "\(r)")
        // 2 MB is read, and the record it makes is over CloudKit's 1 MB.
        let large = String(repeating: "h", count: 2_000_000)
        try s.write(#"{"s":{"value":""# + large + #""}}"#, to: "large.json")
        let l = try s.hostileRun(["record", "save", "Note", "--name", "h", "--fields-stdin"], stdinFile: s.dir + "/large.json")
        #expect(l.exited && l.status == 8, "\(l)")
        #expect(l.stderr.hasPrefix("ck: limitExceeded (27): record 'h' is 2000008 bytes; CloudKit's limit is 1048576 bytes (assets excluded)\n"), "\(l)")
        #expect(l.stderr.contains("hint: store large data in an asset field"), "\(l)")
        #expect(try s.hostileRun(["record", "fetch", "h"]).status == 3)
        // A 2 MB line that is not JSON at all: a syntax error naming the place, not a hang or a crash.
        try s.write("{\"s\":{\"value\":\"" + large + "\n", to: "torn.json")
        let torn = try s.hostileRun(["record", "save", "Note", "--name", "h", "--fields-stdin"], stdinFile: s.dir + "/torn.json")
        #expect(torn.exited && torn.status == 8, "\(torn)")
        #expect(torn.stderr.hasPrefix("ck: invalidArguments (12): <stdin>:1:"), "\(torn)")
    }

    // MARK: Random input

    @Test func randomPredicatesNeverCrashTheQuery() throws {
        let s = try Sandbox()
        #expect(try s.hostileRun(["record", "save", "Note", "--name", "n1", "title=one", "n=1", "d=2026-01-01"]).status == 0)
        #expect(try s.hostileRun(["schema", "index", "Note", "___recordID", "--queryable"]).status == 0)
        var rng = SeededRNG(seed: 0x0051_DE0F_F0E5)
        let seeds = ["title == 'x' AND n > 3", "ANY tags == %@", "NOT (n BETWEEN {1, 5})", "d > CAST(757382400, \"NSDate\")",
                     "distanceToLocation:fromLocation:(place, %@) < 5", "self CONTAINS 'one'", "title BEGINSWITH \"o\""].map { Array($0.utf8) }
        let tokens = ["(", ")", "'", "\"", "%@", "%K", " AND ", " OR ", "{", "}", "\\", "\u{FFFF}", "é"].map { Array($0.utf8) }
        for i in 0..<50 {
            let bytes = i % 2 == 0 ? rng.bytes(1 + rng.below(60)) : rng.mutate(seeds[rng.below(seeds.count)], tokens: tokens)
            // argv cannot carry NUL; everything else goes through as the bytes decode.
            let predicate = String(decoding: bytes.filter { $0 != 0 }, as: UTF8.self)
            let r = try s.hostileRun(["query", "Note", "--", predicate])
            let what = "predicate \(predicate.debugDescription) → \(r)"
            #expect(r.exited, "\(what)")
            if i % 2 == 0 {
                #expect(r.status == 8 || r.status == 64, "\(what)")
            } else {
                #expect([0, 8, 64].contains(r.status), "\(what)")
            }
            if r.status != 0 { #expect(r.stderr.hasPrefix("ck: "), "\(what)") }
        }
    }

    @Test func randomSchemaFilesNeverCrashValidate() throws {
        let s = try Sandbox()
        var rng = SeededRNG(seed: 0xC0DB_5EED)
        let valid = Array("""
            DEFINE SCHEMA
                CREATE ROLE editor;
                RECORD TYPE Note (
                    "___recordID" REFERENCE QUERYABLE,
                    title STRING QUERYABLE SEARCHABLE SORTABLE,
                    tags LIST<STRING> QUERYABLE,
                    GRANT WRITE TO "_creator",
                    GRANT READ TO "_world",
                    GRANT WRITE TO editor
                );
            """.utf8)
        let tokens = ["RECORD TYPE ", "(", ")", ",", ";", "\"", "LIST<", ">", "GRANT ", "/*", "--", "\u{0}", "é"].map { Array($0.utf8) }
        for i in 0..<50 {
            let bytes = i % 2 == 0 ? rng.bytes(rng.below(400)) : rng.mutate(valid, tokens: tokens)
            try Data(bytes).write(to: URL(fileURLWithPath: s.dir + "/fuzz.ckdb"))
            let r = try s.hostileRun(["schema", "validate", "fuzz.ckdb"])
            let what = "case \(i): \(bytes.prefix(120).map { String(format: "%02x", $0) }.joined()) → \(r)"
            #expect(r.exited, "\(what)")
            if i % 2 == 0 {
                #expect(r.status == 8 || r.status == 64, "\(what)")
            } else {
                #expect([0, 8, 64].contains(r.status), "\(what)")
            }
            if r.status == 0 { #expect(r.stdout.contains("Schema is valid"), "\(what)") }
            if r.status == 8 { #expect(r.stderr.hasPrefix("ck: invalidArguments (12): fuzz.ckdb:"), "\(what)") }
        }
    }

    @Test func randomBatchLinesEndInADocumentedCode() throws {
        let s = try Sandbox()
        #expect(try s.hostileRun(["record", "save", "Note", "--name", "n1", "title=one", "when=2026-01-01"]).status == 0)
        var rng = SeededRNG(seed: 0xBA7C_4_11E5)
        // Templates that succeed on every run (force updates, fresh names), so an unmutated batch exits 0.
        let templates = [
            #"{"recordName":"NAME","recordType":"Note","fields":{"title":{"value":"Call Ann"},"priority":{"value":1}}}"#,
            #"{"operationType":"forceUpdate","record":{"recordName":"NAME","recordType":"Note","fields":{"done":{"value":true}}}}"#,
            #"{"operationType":"forceReplace","record":{"recordName":"NAME","recordType":"Note","fields":{"title":{"value":"x","type":"STRING"}}}}"#,
            #"{"recordName":"NAME","recordType":"Note","fields":{"tags":{"value":["a","b"],"type":"STRING_LIST"},"place":{"value":{"latitude":1,"longitude":2}}}}"#,
            #"{"recordName":"NAME","recordType":"Note","fields":{"r":{"value":{"recordName":"n1","action":"VALIDATE"},"type":"REFERENCE"},"b":{"value":"aGk=","type":"BYTES"}}}"#,
            // Valid input that only the server refuses (no such record): the batch then ends in a partial failure.
            #"{"operationType":"update","record":{"recordName":"NAME","recordType":"Note","recordChangeTag":"zz","fields":{}}}"#,
        ]
        let tokens = ["{", "}", "[", "]", ",", ":", "\"", "null", "true", "\"value\"", "\"type\"", "\"INT64\"", "\"STRING_LIST\"",
                      "\"recordName\"", "\\u0000", "-1", "1.5"].map { Array($0.utf8) }
        var seen: Set<Int32> = []
        for batch in 0..<20 {
            // Some lines mutated, the rest as they are: one line that is not JSON stops the whole batch (8), so
            // mutating every line would test only that.
            let lines = (0..<(2 + rng.below(3))).map { k -> String in
                let seed = Array(templates[rng.below(templates.count)].replacingOccurrences(of: "NAME", with: "r\(batch)-\(k)").utf8)
                let bytes = rng.below(5) < 2 ? rng.mutate(seed, tokens: tokens) : seed
                return String(decoding: bytes.filter { $0 != 0x0A && $0 != 0x0D }, as: UTF8.self)
            }
            try s.write(lines.joined(separator: "\n") + "\n", to: "random.jsonl")
            let r = try s.hostileRun(["record", "save", "--batch", "random.jsonl", "--policy", "changed-keys", "-q"])
            seen.insert(r.status)
            let clean = r.exited && [0, 8, 10].contains(r.status)
            #expect(clean, "batch \(batch):\n\(lines.joined(separator: "\n"))\n→ \(r)")
            if r.status != 0 { #expect(r.stderr.hasPrefix("ck: "), "batch \(batch) → \(r)") }
        }
        #expect(seen.isSuperset(of: [0, 8, 10]), "the batches ended in too few ways to exercise ck: \(seen.sorted())")
        // Whatever was written, the zone still reads back.
        let n1 = try s.hostileRun(["record", "fetch", "n1"])
        #expect(n1.exited && n1.status == 0, "\(n1)")
    }

    // MARK: Numbers at the edge of Int64

    @Test func outOfRangeNumbersAreRefusedNotCrashedOn() throws {
        let s = try Sandbox()
        #expect(try s.hostileRun(["record", "save", "Note", "--name", "n1", "d=2026-01-01"]).status == 0)
        #expect(try s.hostileRun(["schema", "index", "Note", "___recordID", "--queryable"]).status == 0)
        let cases: [[String]] = [
            // A JSON timestamp beyond ±2^63 ms.
            ["record", "save", "Note", "--name", "t1", "--fields-json", #"{"d":{"value":1e300,"type":"TIMESTAMP"}}"#],
            ["record", "save", "Note", "--name", "t2", "--fields-json", #"{"d":{"value":[-1e19],"type":"TIMESTAMP_LIST"}}"#],
            // The smallest timestamp, then printed as a date.
            ["record", "save", "Other", "--name", "t3", "d:timestamp=-9223372036854775808"],
            // CAST of seconds that overflow milliseconds.
            ["query", "Note", #"d > CAST(9223372036854775807, "NSDate")"#],
            ["query", "Note", #"d > CAST(1e300, "NSDate")"#],
            // A date argument that cannot be printed by --explain.
            ["query", "Note", "d > %@", "--arg", "timestamp:-9223372036854775808", "--explain"],
        ]
        for args in cases {
            let r = try s.hostileRun(args)
            let clean = r.exited && [0, 8].contains(r.status)
            #expect(clean, "ck \(args.joined(separator: " ")) → \(r)")
        }
        let t3 = try s.hostileRun(["record", "fetch", "t3", "-o", "plain"])
        let fetched = t3.exited && (t3.status == 0 || t3.status == 3)
        #expect(fetched, "fetching a record with the smallest timestamp → \(t3)")
    }
}
