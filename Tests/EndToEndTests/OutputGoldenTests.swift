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

    /// A step: a golden file name (nil for set-up steps, which must succeed), ck's arguments and its stdin.
    struct Step {
        var golden: String?
        var args: [String]
        var stdin: String? = nil
        init(_ golden: String?, _ args: [String], stdin: String? = nil) {
            self.golden = golden
            self.args = args
            self.stdin = stdin
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
        // The developer commands' -o json shapes (docs/cli.md §3): typed values in the command line, pinned here.
        s += [
            Step("init.json", ["init", "proj", "-o", "json"]),
            Step("container-create.json", ["container", "create", "iCloud.com.example.Golden", "-o", "json"]),
            Step("container-list.json", ["container", "list", "-o", "json"]),
            Step("container-use.json", ["container", "use", "iCloud.com.example.Golden", "-o", "json"]),
            Step("container-show.json", ["container", "show", "-o", "json"]),
            Step("container-delete.json", ["container", "delete", "iCloud.com.example.Golden", "-y", "-o", "json"]),
            Step(nil, ["container", "use", "iCloud.ck.default"]),
            Step("doctor.json", ["doctor", "-o", "json"]),
            Step("schema-show.json", ["schema", "show", "-o", "json"]),
            Step("schema-show-type.json", ["schema", "show", "Note", "-o", "json"]),
            Step("schema-index.json", ["schema", "index", "Note", "title", "--searchable", "-o", "json"]),
            Step("schema-diff.json", ["schema", "diff", "-o", "json"]),
            Step("user-list.json", ["user", "list", "-o", "json"]),
            Step("user-show.json", ["user", "show", "-o", "json"]),
            Step("role-list.json", ["role", "list", "-o", "json"]),
            Step("quota-set.json", ["quota", "set", "5MB", "-o", "json"]),
            Step("quota-show.json", ["quota", "show", "-o", "json"]),
            Step("account-status.json", ["account", "status", "-o", "json"]),
            Step("account-set.json", ["account", "set", "available", "--as", "bob", "-o", "json"]),
            Step("fault-add.json", ["fault", "add", "--error", "zoneBusy", "--op", "fetch", "--times", "1", "--id", "busy", "-o", "json"]),
            Step("fault-list.json", ["fault", "list", "-o", "json"]),
            Step("fault-clear.json", ["fault", "clear", "-o", "json"]),
            Step("kv-set.json", ["kv", "set", "theme", "dark", "-o", "json"]),
            Step("kv-get.json", ["kv", "get", "theme", "-o", "json"]),
            Step("kv-list.json", ["kv", "list", "-o", "json"]),
            Step("kv-show.json", ["kv", "show", "-o", "json"]),
            Step("kv-remove.json", ["kv", "remove", "theme", "-o", "json"]),
            Step("gc.json", ["gc", "--dry-run", "-o", "json"]),
        ]
        return s
    }()

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
        normalized("$ \(commandLine(step.args))\n" + (step.stdin.map { "--- stdin\n" + $0 } ?? "") + "exit \(r.status)\n--- stdout\n\(r.stdout)--- stderr\n\(r.stderr)", sandbox: sandbox)
    }

    /// A json step's stdout is one JSON document and a jsonl step's every line one object; an error of either is
    /// one JSON object on stderr: the goldens pin valid JSON.
    static func checkParses(_ name: String, _ r: Sandbox.Result) {
        func object(_ text: Substring) -> Bool { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any] }
        guard name.hasSuffix(".json") || name.hasSuffix(".jsonl") else { return }
        if name.hasSuffix(".json") && !r.stdout.isEmpty { #expect(object(r.stdout[...]), "\(name) stdout: \(r.stdout)") }
        if name.hasSuffix(".jsonl") { for line in r.stdout.split(separator: "\n") { #expect(object(line), "\(name) stdout: \(line)") } }
        if r.status != 0 { #expect(r.stderr.split(separator: "\n").count == 1 && object(r.stderr.dropLast()), "\(name) stderr: \(r.stderr)") }
    }

    @Test func outputMatchesGoldenFiles() throws {
        let update = ProcessInfo.processInfo.environment["CK_UPDATE_GOLDEN"] == "1"
        let s = try Sandbox()
        var rerecorded = 0
        var expected = Set((try? FileManager.default.contentsOfDirectory(atPath: Self.dir.path)) ?? [])
        for step in Self.steps {
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
