import CKCommandLine
import Foundation
import Testing

/// Every example in ck's help (and so in its man pages) runs, as a user would paste it, in bash with ck on PATH, in a
/// fresh store: the examples of one help page in order (a later one may use what an earlier one made), each after
/// the setup steps `setup` gives it. A failing example is reported with its page, its setup and what it printed.
@Suite struct HelpExampleTests {
    /// Steps run before an example (keyed by the example's exact text) that it needs but doesn't name: records,
    /// indexes, files. Add an entry when a new example needs one; keep examples runnable as written otherwise.
    static let setup: [String: [String]] = [
        "ck asset get note-1 photo --file photo.jpg": [
            "printf 'jpeg bytes' > in.jpg && printf 'page 1' > p1.pdf && printf 'page 2' > p2.pdf",
            "ck record save Note --name note-1 photo:asset=@in.jpg scans:asset[]=p1.pdf,p2.pdf",
        ],
        "ck changes zone Notes": ["ck zone create Notes", "ck -z Notes record save Note title=Hi"],
        "ck changes zone Notes --since \"$TOKEN\" -o json": [
            "TOKEN=$(ck changes zone Notes -o plain | awk -F'\\t' '$1 == \"syncToken\" {print $2}')",
            "ck -z Notes record save Note title=Again",
        ],
        "ck -z Notes record list": ["ck zone create Notes", "ck -z Notes record save Note title=Hi"],
        "ck completion zsh > ~/.zfunc/_ck": ["mkdir -p ~/.zfunc"],
        "ck completion fish > ~/.config/fish/completions/ck.fish": ["mkdir -p ~/.config/fish/completions"],
        "ck device save tablet Note --name n1 -z Notes title=Edited": ["ck zone create Notes"],
        "ck device conflicts phone -o json": ["ck zone create Notes", "ck -z Notes record save Note --name n1 title=Hi body=b", "ck sync phone",
                                               "ck device save phone Note --name n1 -z Notes title=Phone",
                                               "ck -z Notes record save Note --name n1 --policy changed-keys title=Server",
                                               "ck sync phone --on-conflict manual || true"],
        "ck device resolve phone n1 -z Notes --take server": ["ck zone create Notes", "ck -z Notes record save Note --name n1 title=Hi body=b", "ck sync phone",
                                               "ck device save phone Note --name n1 -z Notes title=Phone",
                                               "ck -z Notes record save Note --name n1 --policy changed-keys title=Server",
                                               "ck sync phone --on-conflict manual || true"],
        "ck device resolve phone n1 -z Notes --take title,body": [
            "ck device save phone Note --name n1 -z Notes title=Phone2 body=b2",
            "ck -z Notes record save Note --name n1 --policy changed-keys title=Server2",
            "ck sync phone --on-conflict manual || true"],
        "ck device save tablet Note --name n2 -z Notes title=Offline": ["ck zone create Notes"],
        "ck --as alice device switch-account phone --to bob": ["ck --as alice sync phone"],
        "ck exec --import fixtures/dev.json -- ./smoke.sh": [
            "mkdir -p fixtures", "ck --data-dir seed record save Note title=Hi", "ck --data-dir seed export --file fixtures/dev.json",
            "printf '#!/bin/sh\\nck record save Note title=Smoke\\n' > smoke.sh && chmod +x smoke.sh",
        ],
        "ck export --file fixtures/dev.json": ["mkdir -p fixtures", "ck record save Note title=Hi"],
        "ck import fixtures/dev.json": ["mkdir -p fixtures", "ck --data-dir other record save Note title=Hi",
                                        "ck --data-dir other export --file fixtures/dev.json"],
        "ck import --all-users dev.json --into-env production": ["ck --data-dir other record save Note title=Hi",
                                                     "ck --data-dir other export --file dev.json"],
        "ck notification list --unread": ["ck init"],
        "ck notification show \"$ID\" --payload": [
            "ck record save Note --name seed title=x", "ck subscription create query Note \"title == 'Hi'\" --id hot --alert Hi",
            "ck record save Note title=Hi",
            "ID=$(ck notification list -o plain | head -1 | cut -f1)",
        ],
        "ck schema export --file schema.ckdb": ["ck record save Note title=Hi"],
        "ck user list": ["ck account set available --as alice"],
        "ck serve key add ci-key --public-key public.pem --as builder": [
            "openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem", "openssl ec -in eckey.pem -pubout -out public.pem 2>/dev/null",
        ],
        // A server on this store at the default port (the --url example names it), asked once; --follow runs last
        // and ends when the server is stopped a moment later (or the script's exit stops it, should a step fail).
        "ck serve log": [
            "ck serve > serve.out 2>&1 & SERVER=$!; trap 'kill $SERVER 2>/dev/null' EXIT",
            "for i in $(seq 100); do grep -q listening serve.out && break; sleep 0.1; done; grep -q listening serve.out",
            "curl -sf http://127.0.0.1:8090/_ck/health > /dev/null",
        ],
        "ck serve log --follow": ["(sleep 2; kill $SERVER) &"],
        "ck -e production import --all-users prod.json --replace": ["ck -e production export > prod.json"],
        "ck kv events tablet --since 3": ["ck kv set --device tablet volume 7", "ck kv sync tablet"],
        "ck kv events tablet -o json": ["ck kv set --device tablet volume 7", "ck kv sync tablet"],
        "ck model check Sources/Models": [
            "mkdir -p Sources/Models",
            "printf 'import SwiftData\\n\\n@Model final class Note {\\n    var title: String = \"\"\\n    init() {}\\n}\\n' > Sources/Models/Note.swift",
        ],
        "ck query Note \"title BEGINSWITH 'Shop' AND done == NO\" --sort -modificationDate": [
            "ck record save Note title='Shop for milk' done=0 priority=3 due=2026-11-30",
            "ck schema index Note ___modTime --sortable",
        ],
        "ck query Note \"self CONTAINS 'milk'\"": ["ck schema index Note title --searchable"],
        "ck query Place 'distanceToLocation:fromLocation:(location, %@) < 5000' --arg location:37.33,-122.03": [
            "ck record save Place name=Cupertino location:location=37.33,-122.03",
        ],
        "ck record delete --query Note 'done == 1' --dry-run": ["ck record save Note title=Done done=1"],
        "ck record delete note-1": ["ck record save Note --name note-1 title=Hi"],
        "ck record delete note-1 --if-tag 3": ["ck record save Note --name note-1 title=Again"],
        "ck record fetch note-1 note-2": ["ck record save Note --name note-1 title=One", "ck record save Note --name note-2 title=Two"],
        "ck record fetch note-1 -o json": ["ck record save Note --name note-1 title=Hi"],
        "ck record save --batch notes.jsonl": [
            "echo '{\"recordName\": \"note-9\", \"recordType\": \"Note\", \"fields\": {\"title\": {\"value\": \"Batch\"}}}' > notes.jsonl",
        ],
        "ck role assign Moderator bob": [
            "printf 'DEFINE SCHEMA\\n    CREATE ROLE Moderator;\\n' > roles.ckdb && ck schema import roles.ckdb",
            "ck account set available --as bob",
        ],
        "ck schema index Note ___recordID --queryable": ["ck record save Note title=Hi"],
        "ck subscription create query Note \"priority >= 5\" --id hot --alert Urgent": ["ck record save Note title=Hi priority=1"],
        "ck -z Work subscription create zone --id work": ["ck zone create Work"],
        "ck user show alice": ["ck account set available --as alice"],
        "ck doctor": ["ck record save Note title=Hi"],
        "ck -z Lists share create list-1 --title Groceries": ["ck zone create Lists", "ck -z Lists record save List --name list-1 title=Groceries"],
        "ck --as bob share accept \"$URL\"": ["URL=$(ck -z Lists share show list-1 -o json | jq -r .url)"],
    ]

    /// Help pages with examples: the command's path and its examples in order.
    static var pages: [(path: String, examples: [String])] {
        ([CommandTree.root] + CommandTree.root.allDescendants).filter { !$0.examples.isEmpty }.map { ($0.path, $0.examples.map(\.command)) }
    }

    @Test func setupStepsBelongToExamples() {
        let all = Set(Self.pages.flatMap(\.examples))
        for key in Self.setup.keys { #expect(all.contains(key), "HelpExampleTests.setup has steps for an example no help shows: \(key)") }
    }

    @Test(RequiredTool.needed("bash"), arguments: pages.map(\.path))
    func examplesRunInAFreshStore(_ path: String) throws {
        let bash = try RequiredTool.require("bash")
        let examples = try #require(Self.pages.first { $0.path == path }?.examples)
        let s = try Sandbox()
        // Each step's output goes to its own file and its status to `status`; the first failing step ends the script.
        let log = s.dir + "/.steps"
        try FileManager.default.createDirectory(atPath: log, withIntermediateDirectories: true)
        var steps: [(example: String, text: String)] = []
        for e in examples {
            for step in Self.setup[e] ?? [] { steps.append((e, step)) }
            steps.append((e, e))
        }
        var script = "set -o pipefail\n"
        for (k, step) in steps.enumerated() {
            script += "{ \(step.text)\n} >\(log)/\(k) 2>&1 </dev/null; status=$?; echo \"\(k) $status\" >>\(log)/status; [ $status -eq 0 ] || exit 0\n"
        }
        try script.write(toFile: s.dir + "/examples.sh", atomically: true, encoding: .utf8)
        let bin = URL(fileURLWithPath: Sandbox.binary).deletingLastPathComponent().path
        let r = try s.run([s.dir + "/examples.sh"], program: bash, env: ["PATH": bin + ":/usr/bin:/bin"])
        #expect(r.status == 0 && r.stderr.isEmpty, "the example script for '\(path)' failed: \(r.stderr)")
        let statuses = ((try? String(contentsOfFile: log + "/status", encoding: .utf8)) ?? "").split(separator: "\n")
        var failed = false
        for line in statuses {
            let parts = line.split(separator: " ").compactMap { Int($0) }
            guard parts.count == 2, parts[1] != 0, parts[0] < steps.count else { continue }
            failed = true
            let step = steps[parts[0]]
            let output = (try? String(contentsOfFile: log + "/\(parts[0])", encoding: .utf8)) ?? ""
            let what = step.text == step.example ? "exited \(parts[1])" : "could not be set up: step `\(step.text)` exited \(parts[1])"
            Issue.record("""
                the example `\(step.example)` in '\(path) --help' \(what) in a fresh store, after the examples before it \
                and the steps \(Self.setup[step.example] ?? []). It printed:
                \(output)
                Make the example run as written, or give it setup steps in HelpExampleTests.setup.
                """)
        }
        if !failed { #expect(statuses.count == steps.count, "only \(statuses.count) of the \(steps.count) steps of '\(path)' ran") }
    }
}
