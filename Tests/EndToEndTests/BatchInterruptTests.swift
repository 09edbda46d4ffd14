import Foundation
import Testing

/// Ctrl-C during `record save --batch`: the batch stops after the request in flight, says how many operations it
/// saved and where the unsent rest starts, exits 130; run again, it hints `--policy changed-keys` once, and that
/// policy saves the rest (docs/cli.md §9, issue 27).
@Suite struct BatchInterruptTests {
    /// A zone log file under the store that has records in it, if any yet.
    func writtenLog(under store: String) -> Bool {
        guard let names = FileManager.default.enumerator(atPath: store)?.compactMap({ $0 as? String }) else { return false }
        for n in names where n.hasSuffix("/_defaultZone.jsonl") {
            let size = (try? FileManager.default.attributesOfItem(atPath: store + "/" + n)[.size] as? Int) ?? 0
            if size > 0 { return true }
        }
        return false
    }

    func recordCount(_ s: Sandbox) throws -> Int {
        let r = try s.ck("zone", "show", "_defaultZone", "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        let m = r.stdout.firstMatch(of: /"recordCount"\s*:\s*(\d+)/)
        return m.flatMap { Int($0.1) } ?? -1
    }

    /// Writes `total` records to items.jsonl, runs `record save --batch items.jsonl` with `options`, and sends SIGINT
    /// once the first request is in the store (the batch check writes nothing before).
    func interruptedBatch(_ s: Sandbox, total: Int, options: [String]) throws -> (process: Process, stdout: String, stderr: String) {
        let lines = (0..<total).map { #"{"recordName":"r\#($0)","recordType":"Item","fields":{"n":{"value":\#($0)}}}"# }
        try s.write(lines.joined(separator: "\n") + "\n", to: "items.jsonl")
        let (p, out, err) = try s.launch(["record", "save", "--batch", "items.jsonl"] + options)
        // A guard, not a timing assertion: a batch that never stops must not hang the suite.
        DispatchQueue.global().asyncAfter(deadline: .now() + 120) { if p.isRunning { kill(p.processIdentifier, SIGKILL) } }
        let store = s.dir + "/store"
        while p.isRunning && !writtenLog(under: store) { usleep(2_000) }
        kill(p.processIdentifier, SIGINT)
        let (outData, errData) = Sandbox.finish(p, out: out, err: err)
        return (p, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test func ctrlCStopsAfterTheRequestInFlightAndTheRerunIsHinted() throws {
        let s = try Sandbox()
        let total = 30_000
        let (p, stdout, stderr) = try interruptedBatch(s, total: total, options: ["-o", "plain"])

        #expect(p.terminationReason == .exit && p.terminationStatus == 130, "\(p.terminationStatus) \(stderr)")
        let m = stderr.firstMatch(of: /ck: interrupted: saved (\d+) of 30000 operations; the other (\d+), from items\.jsonl:(\d+) on, were not sent\n/)
        #expect(m != nil, "\(stderr)")
        let saved = m.flatMap { Int($0.1) } ?? -1, rest = m.flatMap { Int($0.2) } ?? -1, line = m.flatMap { Int($0.3) } ?? -1
        // Whole requests of 200 (CloudKit's limit): the one in flight finished, none after it was sent.
        #expect(saved > 0 && saved < total && saved % 200 == 0, "\(stderr)")
        #expect(saved + rest == total)
        #expect(line == saved + 1)
        #expect(stderr.contains("hint: to save the rest, run the same command again with --policy changed-keys"), "\(stderr)")
        // What it says it saved is what the store holds and what it printed.
        #expect(try recordCount(s) == saved)
        #expect(stdout.split(separator: "\n").count == saved)
        #expect(try s.ck("record", "fetch", "r\(saved - 1)").status == 0)
        #expect(try s.ck("record", "fetch", "r\(saved)").status == 3)

        // Run again as it was: the saved records fail as existing, with one hint for all of them.
        let again = try s.ck("record", "save", "--batch", "items.jsonl", "-o", "plain")
        #expect(again.status == 10, "\(again.stderr)")
        #expect(again.stderr.contains("Failed to save \(saved) of 30000 records"), "\(again.stderr)")
        #expect(again.stderr.components(separatedBy: "hint:").count == 2, "\(again.stderr)")
        #expect(again.stderr.contains("hint: \(saved) records already exist (saved by an earlier run?); with --policy changed-keys the batch overwrites them with the file's values instead of failing\n"), "\(again.stderr)")
        #expect(try recordCount(s) == total)

        // The hinted policy makes the same file go through.
        let fixed = try s.ck("record", "save", "--batch", "items.jsonl", "--policy", "changed-keys", "-q", "-o", "name")
        #expect(fixed.status == 0, "\(fixed.stderr)")
        #expect(fixed.stdout.split(separator: "\n").count == total)
        #expect(try recordCount(s) == total)
        let last = try s.ck("record", "fetch", "r\(total - 1)", "-o", "plain")
        #expect(last.stdout.contains("n=\(total - 1)"), "\(last.stdout)")
    }

    /// With -o json the interruption is a JSON object on stderr, as errors are.
    @Test func withJSONOutputTheInterruptionIsAJSONObject() throws {
        let s = try Sandbox()
        let (p, stdout, stderr) = try interruptedBatch(s, total: 20_000, options: ["-o", "json", "-q"])
        #expect(p.terminationReason == .exit && p.terminationStatus == 130, "\(stderr)")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(stderr.utf8)) as? [String: Any], "\(stderr)")
        let saved = try #require(o["saved"] as? Int)
        #expect(o["error"] as? String == "interrupted")
        #expect(saved > 0 && saved % 200 == 0)
        #expect(o["failed"] as? Int == 0)
        #expect(o["notSent"] as? Int == 20_000 - saved)
        #expect(o["notSentFrom"] as? String == "items.jsonl:\(saved + 1)")
        #expect((o["hint"] as? String)?.contains("--policy changed-keys") == true)
        #expect(try recordCount(s) == saved)
        let printed = try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any], "\(stdout.prefix(200))")
        #expect((printed["records"] as? [Any])?.count == saved)
    }
}
