import CKCore
import Foundation
import Testing

/// `ck changes` and `ck gc` as a script meets them: tokens on stdout, exit codes, files on disk.
@Suite struct ChangesEndToEndTests {
    func token(_ r: Sandbox.Result) -> String {
        r.stdout.split(separator: "\n").first { $0.hasPrefix("syncToken\t") }.map { String($0.dropFirst("syncToken\t".count)) } ?? ""
    }

    @Test func zoneFeedThroughTheBinary() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Notes")
        try s.ck("-z", "Notes", "record", "save", "Note", "--name", "a", "title=A")
        try s.ck("-z", "Notes", "record", "save", "Note", "--name", "b", "title=B")
        let first = try s.ck("changes", "zone", "Notes")
        #expect(first.status == 0)
        let lines = first.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 3)
        #expect(lines[0] == "saved\ta\tNote\t2\tNotes\ttitle=A")
        #expect(lines[1] == "saved\tb\tNote\t3\tNotes\ttitle=B")
        let t = token(first)
        #expect(t.hasPrefix("ckt1."))

        try s.ck("-z", "Notes", "record", "delete", "a")
        let next = try s.ck("-z", "Notes", "changes", "zone", "--since", t, "-o", "json")
        #expect(next.status == 0)
        #expect(next.stdout.contains("\"deleted\": true"))
        #expect(next.stdout.contains("\"moreComing\": false"))
        #expect(!next.stdout.contains("\"recordName\": \"b\""))

        let db = try s.ck("changes", "database", "-o", "jsonl")
        #expect(db.stdout.hasPrefix("{\"zoneID\":{\"zoneName\":\"Notes\""))

        let wrong = try s.ck("changes", "database", "--since", t)
        #expect(wrong.status == 8)
        #expect(wrong.stderr.contains("zone token, not a database token"))
        let dflt = try s.ck("changes", "zone")
        #expect(dflt.status == 8)
        #expect(dflt.stderr.contains("only in custom zones"))
        #expect(try s.ck("changes", "zone", "--limit", "0").status == 64)
    }

    @Test func gcCompactsRemovesOrphanAssetsAndExpiresOldTokens() throws {
        let s = try Sandbox()
        try s.write("cat bytes", to: "cat.png")
        try s.write("dog bytes", to: "dog.png")
        try s.ck("zone", "create", "Z")
        try s.ck("-z", "Z", "record", "save", "Pet", "--name", "p", "photo:asset=@cat.png")
        let old = token(try s.ck("changes", "zone", "Z"))
        try s.ck("-z", "Z", "record", "save", "Pet", "--name", "p", "photo:asset=@dog.png", "--policy", "changed-keys")
        try s.ck("-z", "Z", "record", "save", "Pet", "--name", "q", "n=1")
        try s.ck("-z", "Z", "record", "delete", "q")
        let current = token(try s.ck("changes", "zone", "Z"))
        let env = s.dir + "/store/containers/iCloud.ck.default/development"
        #expect(s.files(under: env + "/assets").count == 2)

        let dry = try s.ck("gc", "--dry-run", "-o", "json")
        #expect(dry.stdout.contains("\"assetsRemoved\": 1"))
        #expect(s.files(under: env + "/assets").count == 2, "a dry run changes nothing")
        let doctor = try s.ck("doctor")
        #expect(doctor.stdout.contains("'ck gc' removes it"))

        let gc = try s.ck("gc", "-o", "table")
        #expect(gc.status == 0)
        #expect(gc.stdout.contains("Compacted 1 of 1 zone log in development: 4 → 1 lines"))
        #expect(s.files(under: env + "/assets").count == 1)
        let log = try String(contentsOfFile: env + "/private/" + (s.files(under: env + "/private").first { $0.hasSuffix("Z.jsonl") } ?? ""), encoding: .utf8)
        // p's last save, then a gap line keeping the deletion's number (5), dropped above it (docs/store.md §5.3).
        let lines = log.split(separator: "\n")
        #expect(lines.count == 2 && lines.last == #"{"seq":5,"op":"gap"}"#, "\(log)")

        let expired = try s.ck("changes", "zone", "Z", "--since", old)
        #expect(expired.status == 9)
        #expect(expired.stderr.contains("changeTokenExpired"))
        #expect(try s.ck("changes", "zone", "Z", "--since", current).status == 0)
        #expect(try s.ck("-z", "Z", "record", "fetch", "p").stdout.contains("photo=asset "))
        #expect(try s.ck("-z", "Z", "asset", "get", "p", "photo").stdout == "dog bytes")
        // Numbers dropped by compaction are never handed out again.
        let saved = try s.ck("-z", "Z", "record", "save", "Pet", "--name", "r", "n=2")
        #expect(saved.stdout.hasPrefix("r\tPet\t6\t"))
        #expect(try s.ck("doctor").status == 0)
    }
}

/// The zone feed read through the index (bisection to the token, only returned records parsed) answers exactly
/// what folding the whole log answers, page by page and from a token in the middle.
@Suite struct ChangeFeedIndexTests {
    func transcript(_ s: Sandbox, index: Bool, since: String?, limit: Int?) throws -> [String] {
        var args = ["-z", "Notes", "changes", "zone", "-o", "plain"]
        if let since { args += ["--since", since] }
        if let limit { args += ["--limit", String(limit)] }
        let r = try s.run(args, env: index ? [:] : ["CK_INDEX": "off"])
        #expect(r.status == 0, "\(r.stderr)")
        return r.stdout.split(separator: "\n").map(String.init)
    }

    func pages(_ s: Sandbox, index: Bool) throws -> [[String]] {
        var out: [[String]] = []
        var token: String? = nil
        while true {
            let page = try transcript(s, index: index, since: token, limit: 7)
            out.append(page)
            token = page.first { $0.hasPrefix("syncToken\t") }.map { String($0.dropFirst("syncToken\t".count)) }
            if !page.contains("moreComing\ttrue") || out.count > 20 { break }
        }
        return out
    }

    @Test func theFeedThroughTheIndexAgreesWithFoldingTheLog() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Notes")
        let body = String(repeating: "words ", count: 50)
        let lines = (0..<60).map { #"{"recordName":"r\#($0)","recordType":"Note","fields":{"n":{"value":\#($0)},"body":{"value":"\#(body)"}}}"# }
        try s.ck("-z", "Notes", "record", "save", "--batch", "-", "-q", stdin: lines.joined(separator: "\n"))
        let middle = try transcript(s, index: true, since: nil, limit: nil).first { $0.hasPrefix("syncToken\t") }.map { String($0.dropFirst("syncToken\t".count)) }
        try s.ck("-z", "Notes", "record", "save", "Note", "--name", "r10", "--policy", "changed-keys", "n=100")
        try s.ck("-z", "Notes", "record", "delete", "r20", "r30", "r40")
        try s.ck("-z", "Notes", "record", "save", "Note", "--name", "r30", "n=300")

        let all = try transcript(s, index: true, since: nil, limit: nil)
        let names = all.filter { !$0.hasPrefix("syncToken") && !$0.hasPrefix("moreComing") }.map { $0.split(separator: "\t")[1] }
        let expected = (0..<60).filter { ![10, 20, 30, 40].contains($0) }.map { "r\($0)" } + ["r10", "r20", "r40", "r30"]
        #expect(names.map(String.init) == expected)
        #expect(all == (try transcript(s, index: false, since: nil, limit: nil)))
        let paged = try pages(s, index: true)
        #expect(paged.count == 9, "60 changes in pages of 7")
        #expect(paged == (try pages(s, index: false)))
        let since = try #require(middle)
        let after = try transcript(s, index: true, since: since, limit: nil)
        #expect(after.filter { !$0.hasPrefix("syncToken") && !$0.hasPrefix("moreComing") }.map { String($0.split(separator: "\t")[1]) } == ["r10", "r20", "r40", "r30"])
        #expect(after == (try transcript(s, index: false, since: since, limit: nil)))
    }

    /// The command fetches a server page at a time and writes each as it comes: over several pages, json is still
    /// the one document that printing the whole answer gives, and every format agrees with folding the log.
    @Test func outputOverSeveralServerPagesIsTheWholeAnswer() throws {
        let s = try Sandbox()
        try s.ck("zone", "create", "Notes")
        let n = CKDatabase.changesPageSize + 3
        let lines = (0..<n).map { #"{"recordName":"r\#($0)","recordType":"Note","fields":{"n":{"value":\#($0)},"x":{"value":1.5}}}"# }
        try s.ck("-z", "Notes", "record", "save", "--batch", "-", "-q", stdin: lines.joined(separator: "\n"))
        try s.ck("-z", "Notes", "record", "delete", "r7")
        for limit in [nil, n - 1, CKDatabase.changesPageSize, CKDatabase.changesPageSize + 1] {
            var args = ["-z", "Notes", "changes", "zone", "-o", "json"]
            if let limit { args += ["--limit", String(limit)] }
            let json = try s.run(args)
            #expect(json.status == 0, "\(json.stderr)")
            let doc = try JSON.parse(json.stdout)
            #expect(doc.pretty() + "\n" == json.stdout, "limit \(String(describing: limit))")
            let records = try #require(doc["records"]?.arrayValue)
            #expect(records.count == min(n, limit ?? n))
            #expect(doc["moreComing"] == .bool(limit.map { $0 < n } ?? false))
            #expect(records.last?["recordName"] == .string(limit.map { $0 < n ? "r\($0)" : "r7" } ?? "r7"))
            #expect(try s.run(args, env: ["CK_INDEX": "off"]).stdout == json.stdout)
            for format in ["jsonl", "plain", "name"] {
                let a = args.map { $0 == "json" ? format : $0 }
                let streamed = try s.run(a)
                #expect(streamed.stdout == (try s.run(a, env: ["CK_INDEX": "off"])).stdout)
                if format == "jsonl" {
                    let got = streamed.stdout.split(separator: "\n").map { try? JSON.parse(String($0)) }
                    #expect(got.dropLast() == records.map { Optional($0) })
                    #expect(got.last??["syncToken"] == doc["syncToken"] && got.last??["moreComing"] == doc["moreComing"])
                }
            }
        }
    }
}
