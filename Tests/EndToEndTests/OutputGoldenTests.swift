import Foundation
import Testing

/// The output contract: what `-o json`, `-o jsonl`, `-o plain` and `-o name` print for records, zones,
/// subscriptions, notifications, changes, sync reports and errors is pinned by golden files under
/// `Golden/output/`, one per command run (its stdout, stderr and exit status).
///
/// The commands run in order against one fresh store with fixed inputs. Only what differs on every run is
/// normalised (see `normalized`): times, UUIDs, change tokens and cursors, and the sandbox's path.
/// `CK_UPDATE_GOLDEN=1` writes the files that differ, then fails saying how many: a re-recording run is never green.
@Suite struct OutputGoldenTests {
    static let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/output")

    /// A step: a golden file name (nil for set-up steps, which must succeed), ck's arguments, its stdin, and
    /// files written into the working directory before it runs (by name).
    struct Step {
        var golden: String?
        var args: [String]
        var stdin: String? = nil
        var files: [String: String] = [:]
        init(_ golden: String?, _ args: [String], stdin: String? = nil, files: [String: String] = [:]) {
            self.golden = golden
            self.args = args
            self.stdin = stdin
            self.files = files
        }
    }

    /// Set-up, then each shape in json and jsonl (and plain and name where a kind has them).
    static let steps: [Step] = {
        var s: [Step] = [
            Step(nil, ["zone", "create", "Notes"]),
            Step(nil, ["-z", "Notes", "record", "save", "Note", "--name", "n1", "title=Buy milk", "priority=2", "tags:string[]=home,shop"]),
            Step(nil, ["schema", "index", "Note", "___recordID", "--queryable"]),
            Step(nil, ["-z", "Notes", "subscription", "create", "zone", "--id", "watch-notes"]),
            Step(nil, ["subscription", "create", "query", "Note", "priority >= 2", "--id", "urgent", "--alert", "Urgent"]),
            Step(nil, ["-z", "Notes", "record", "save", "Note", "--name", "n2", "title=Call Anna", "priority=3"]),
        ]
        for f in ["json", "jsonl"] {
            s += [
                Step("record-save.\(f)", ["-z", "Notes", "record", "save", "Note", "--name", "n3-\(f)", "title=Tab\there", "-o", f]),
                Step("record-fetch.\(f)", ["-z", "Notes", "record", "fetch", "n1", "--keys", "title,priority", "-o", f]),
                Step("record-fetch-partial.\(f)", ["-z", "Notes", "record", "fetch", "n1", "missing", "-o", f]),
                Step("record-fetch-missing.\(f)", ["-z", "Notes", "record", "fetch", "missing", "-o", f]),
                Step("query.\(f)", ["-z", "Notes", "query", "Note", "priority >= 1", "--sort", "priority", "--limit", "1", "-o", f]),
                Step("query-empty.\(f)", ["-z", "Notes", "query", "Note", "priority > 100", "-o", f]),
                Step("zone-create.\(f)", ["zone", "create", "Z-\(f)", "-o", f]),
                Step("zone-list.\(f)", ["zone", "list", "-o", f]),
                Step("zone-show.\(f)", ["zone", "show", "Notes", "-o", f]),
                Step("zone-delete.\(f)", ["zone", "delete", "Z-\(f)", "-y", "-o", f]),
                Step("subscription-list.\(f)", ["subscription", "list", "-o", f]),
                Step("subscription-show.\(f)", ["subscription", "show", "urgent", "-o", f]),
                Step("notification-list.\(f)", ["notification", "list", "-o", f]),
                Step("changes-zone.\(f)", ["changes", "zone", "Notes", "--limit", "2", "-o", f]),
                Step("changes-database.\(f)", ["changes", "database", "-o", f]),
                // phone-json and phone-jsonl are one letter apart: the second is made explicitly (a near miss is not
                // made on first use, docs/cli.md "Names that create things").
                Step(nil, ["device", "create", "phone-\(f)"]),
                Step("sync.\(f)", ["sync", "phone-\(f)", "-o", f]),
                Step("device-records.\(f)", ["-z", "Notes", "device", "records", "phone-\(f)", "-o", f]),
                Step("record-save-batch.\(f)", ["-z", "Notes", "record", "save", "--batch", "-", "--no-atomic", "-o", f], stdin: """
                    {"recordName": "b1-\(f)", "recordType": "Note", "fields": {"title": {"value": "Batch one"}}}
                    {"recordName": "n1", "recordType": "Note", "fields": {"title": {"value": "stale"}}}
                    {"operationType": "forceDelete", "record": {"recordName": "n3-\(f)"}}

                    """),
                Step("subscription-create.\(f)", ["subscription", "create", "database", "--id", "db-\(f)", "-o", f]),
                Step("notification-read.\(f)", ["notification", "read", "--all", "-o", f]),
                Step("record-delete.\(f)", ["-z", "Notes", "record", "delete", "b1-\(f)", "missing", "-y", "--no-atomic", "-o", f]),
                Step("subscription-delete.\(f)", ["subscription", "delete", "nope", "-y", "-o", f]),
                Step("usage-error.\(f)", ["record", "fetch", "-o", f]),
            ]
        }
        for f in ["plain", "name"] {
            s += [
                Step("query.\(f)", ["-z", "Notes", "query", "Note", "--sort", "priority", "-o", f]),
                Step("record-fetch-partial.\(f)", ["-z", "Notes", "record", "fetch", "n1", "missing", "-o", f]),
                Step("zone-list.\(f)", ["zone", "list", "-o", f]),
                Step("subscription-list.\(f)", ["subscription", "list", "-o", f]),
                Step("notification-list.\(f)", ["notification", "list", "-o", f]),
                Step("changes-zone.\(f)", ["changes", "zone", "Notes", "-o", f]),
            ]
        }
        s.append(Step("name-refused", ["doctor", "-o", "name"]))
        // The developer commands' -o json and jsonl shapes (docs/cli.md §3): typed values in the command line.
        s += developerSteps("json")
        s += developerSteps("jsonl")
        for f in ["json", "jsonl"] {
            s += [
                Step("query-explain.\(f)", ["-z", "Notes", "query", "Note", "priority >= %d", "--arg", "2", "--sort", "-priority", "--explain", "-o", f]),
                Step(nil, ["device", "create", "tab-\(f)"]),
                Step(nil, ["kv", "set", "mode-\(f)", "on", "--device", "tab-\(f)"]),
                Step(nil, ["kv", "set", "shared-\(f)", "1"]),
                Step("kv-sync.\(f)", ["kv", "sync", "tab-\(f)", "-o", f]),
                Step("kv-events.\(f)", ["kv", "events", "tab-\(f)", "-o", f]),
                Step("gc-run.\(f)", ["gc", "-o", f]),
                Step("model-check.\(f)", ["model", "check", "Item.swift", "-o", f], files: ["Item.swift": Self.itemModel]),
                Step("model-diff.\(f)", ["model", "diff", "Trip.swift", "--against", "development", "-o", f], files: ["Trip.swift": Self.tripModel]),
                Step("schema-validate.\(f)", ["schema", "validate", "-", "-o", f], stdin: Self.bookSchema),
            ]
        }
        // Importing a schema of roles only drops Note from development: these steps come last.
        s.append(Step(nil, ["schema", "import", "-"], stdin: "DEFINE SCHEMA\n    CREATE ROLE Moderator;\n"))
        // Each format assigns a user and saves a new type (reset leaves development as production), so each deploys.
        for (f, user, type) in [("json", "bob", "Book"), ("jsonl", "default", "Film")] {
            s += [
                Step("role-assign.\(f)", ["role", "assign", "Moderator", user, "-o", f]),
                Step("role-list-assigned.\(f)", ["role", "list", "-o", f]),
                Step(nil, ["record", "save", type, "--name", "\(type.lowercased())-1", "title=Dune"]),
                Step("schema-deploy.\(f)", ["schema", "deploy", "-y", "-o", f]),
                Step("schema-reset.\(f)", ["schema", "reset", "-y", "-o", f]),
            ]
        }
        return s
    }()

    /// The developer commands in format `f`. json's command lines are those first pinned; jsonl's make their own
    /// project and container. Doctor runs in both formats before any fault rule exists (doctor knows
    /// `.faults.lock`; DoctorTests checks it).
    static func developerSteps(_ f: String) -> [Step] {
        let own = f == "json" ? "" : "-" + f
        let container = "iCloud.com.example.Golden" + (f == "json" ? "" : "Lines")
        var s = [
            Step("init.\(f)", ["init", "proj" + own, "-o", f]),
            Step("container-create.\(f)", ["container", "create", container, "-o", f]),
            Step("container-list.\(f)", ["container", "list", "-o", f]),
            Step("container-use.\(f)", ["container", "use", container, "-o", f]),
            Step("container-show.\(f)", ["container", "show", "-o", f]),
            Step("container-delete.\(f)", ["container", "delete", container, "-y", "-o", f]),
            Step(nil, ["container", "use", "iCloud.ck.default"]),
        ]
        if f == "json" { s += ["json", "jsonl"].map { Step("doctor.\($0)", ["doctor", "-o", $0]) } }
        return s + [
            Step("schema-show.\(f)", ["schema", "show", "-o", f]),
            Step("schema-show-type.\(f)", ["schema", "show", "Note", "-o", f]),
            // json's index is one development already has (no change); jsonl's is new.
            Step("schema-index.\(f)", ["schema", "index", "Note"] + (f == "json" ? ["title", "--searchable"] : ["___modTime", "--sortable"]) + ["-o", f]),
            Step("schema-diff.\(f)", ["schema", "diff", "-o", f]),
            Step("user-list.\(f)", ["user", "list", "-o", f]),
            Step("user-show.\(f)", ["user", "show", "-o", f]),
            Step("role-list.\(f)", ["role", "list", "-o", f]),
            Step("quota-set.\(f)", ["quota", "set", "5MB", "-o", f]),
            Step("quota-show.\(f)", ["quota", "show", "-o", f]),
            Step("account-status.\(f)", ["account", "status", "-o", f]),
            Step("account-set.\(f)", ["account", "set", "available", "--as", "bob", "-o", f]),
            Step("fault-add.\(f)", ["fault", "add", "--error", "zoneBusy", "--op", "fetch", "--times", "1", "--id", "busy", "-o", f]),
            Step("fault-list.\(f)", ["fault", "list", "-o", f]),
            Step("fault-clear.\(f)", ["fault", "clear", "-o", f]),
            Step("kv-set.\(f)", ["kv", "set", "theme", "dark", "-o", f]),
            Step("kv-get.\(f)", ["kv", "get", "theme", "-o", f]),
            Step("kv-list.\(f)", ["kv", "list", "-o", f]),
            Step("kv-show.\(f)", ["kv", "show", "-o", f]),
            Step("kv-remove.\(f)", ["kv", "remove", "theme", "-o", f]),
            Step("gc.\(f)", ["gc", "--dry-run", "-o", f]),
        ]
    }

    /// A SwiftData model CloudKit's validator refuses twice (a unique attribute, a non-optional one without a default).
    static let itemModel = """
        import SwiftData

        @Model final class Item {
            @Attribute(.unique) var code: String = ""
            var title: String
            var note: String?
            init(title: String) { self.title = title }
        }

        """

    /// A model CloudKit accepts, whose schema adds CD_Trip.
    static let tripModel = """
        import SwiftData

        @Model final class Trip {
            var name: String = ""
            var start: Date?
            init() {}
        }

        """

    static let bookSchema = """
        DEFINE SCHEMA
            RECORD TYPE Book (
                title STRING QUERYABLE SORTABLE,
                pages INT64
            );

        """

    /// What differs on every run, replaced by a placeholder; everything else must match byte for byte.
    static func normalized(_ text: String, sandbox: String) -> String {
        var s = text.replacingOccurrences(of: sandbox, with: "<dir>")
        let patterns = [
            (#"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"#, "<time>"),
            (#"\b1[6-9]\d{11}\b"#, "<ms>"),
            (#"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}"#, "<uuid>"),
            // Change tokens and query cursors are opaque and carry times.
            (#"("(?:syncToken|continuationMarker|databaseToken)":\s*)"[^"]*""#, "$1\"<token>\""),
            (#"(syncToken\t)\S+"#, "$1<token>"),
            (#"(--cursor )\S+"#, "$1<token>"),
        ]
        for (p, r) in patterns { s = s.replacingOccurrences(of: p, with: r, options: .regularExpression) }
        return s
    }

    /// The command line as a shell would take it: arguments with spaces or shell characters single-quoted.
    static func commandLine(_ args: [String]) -> String {
        "ck " + args.map { a in
            a.allSatisfy({ $0.isLetter || $0.isNumber || "-_.,=:/@[]".contains($0) }) && !a.isEmpty ? a : "'" + a.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }

    static func render(_ step: Step, _ r: Sandbox.Result, sandbox: String) -> String {
        let files = step.files.keys.sorted().map { "--- file \($0)\n" + (step.files[$0] ?? "") }.joined()
        return normalized("$ \(commandLine(step.args))\n" + files + (step.stdin.map { "--- stdin\n" + $0 } ?? "") + "exit \(r.status)\n--- stdout\n\(r.stdout)--- stderr\n\(r.stderr)", sandbox: sandbox)
    }

    /// A json step's stdout is one JSON document and a jsonl step's every line one object; an error of either is
    /// one JSON object on stderr: the goldens pin valid JSON.
    static func checkParses(_ name: String, _ r: Sandbox.Result) {
        func object(_ text: Substring) -> Bool { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any] }
        guard name.hasSuffix(".json") || name.hasSuffix(".jsonl") else { return }
        if name.hasSuffix(".json") && !r.stdout.isEmpty { #expect(object(r.stdout[...]), "\(name) stdout: \(r.stdout)") }
        if name.hasSuffix(".jsonl") { for line in r.stdout.split(separator: "\n") { #expect(object(line), "\(name) stdout: \(line)") } }
        // `model check` exits 8 on findings with them on stdout and nothing on stderr (docs/model.md §2): not an error.
        if r.status != 0 && !(name.hasPrefix("model-check.") && r.stderr.isEmpty) {
            #expect(r.stderr.split(separator: "\n").count == 1 && object(r.stderr.dropLast()), "\(name) stderr: \(r.stderr)")
        }
    }

    @Test func outputMatchesGoldenFiles() throws {
        let update = ProcessInfo.processInfo.environment["CK_UPDATE_GOLDEN"] == "1"
        let s = try Sandbox()
        var rerecorded = 0
        var expected = Set((try? FileManager.default.contentsOfDirectory(atPath: Self.dir.path)) ?? [])
        for step in Self.steps {
            for (name, text) in step.files { try text.write(toFile: s.dir + "/" + name, atomically: true, encoding: .utf8) }
            let r = try s.run(step.args, stdin: step.stdin)
            guard let name = step.golden else {
                #expect(r.status == 0, "set-up step \(Self.commandLine(step.args)) failed: \(r.stderr)")
                continue
            }
            Self.checkParses(name, r)
            let text = Self.render(step, r, sandbox: s.dir)
            let file = Self.dir.appendingPathComponent(name + ".txt")
            expected.remove(name + ".txt")
            let golden = try? String(contentsOf: file, encoding: .utf8)
            if golden == text { continue }
            if update {
                try FileManager.default.createDirectory(at: Self.dir, withIntermediateDirectories: true)
                try text.write(to: file, atomically: true, encoding: .utf8)
                rerecorded += 1
            } else {
                #expect(golden == text, "output of \(Self.commandLine(step.args)) differs from \(file.path); re-record with CK_UPDATE_GOLDEN=1 if the change is intended")
            }
        }
        #expect(expected.isEmpty, "golden files no step produces: \(expected.sorted())")
        if update && rerecorded > 0 {
            Issue.record("re-recorded \(rerecorded) files; run again without CK_UPDATE_GOLDEN")
        }
    }
}
