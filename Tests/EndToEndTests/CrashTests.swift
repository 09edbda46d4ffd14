import Foundation
import Testing
import CKTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Writers killed with SIGKILL at random (seeded) points (docs/store.md §7): every save that exited 0 is
/// still there, the store opens without help, a torn last line or an interrupted request is dropped with a
/// warning and nothing else is lost, and whole-file rewrites leave the old file or the new one.
/// Helpers (`CKWriterLoop`, `ZoneLogFile`, `SeededRNG`, …) are in ConcurrencyTests.swift.
@Suite(.serialized) struct CrashTests {
    /// 50 rounds. Each round starts two writers into the default zone at once: a loop of single saves
    /// (`ck record save Note --name r7-s2 v:int64=2`, one process each, so the test knows exactly which
    /// exited 0) and one `ck record save --batch -` of 250–650 records (requests of 200, each one append).
    /// A seeded 0–50 ms after the batch has its input (odd rounds: after its first request is in the log),
    /// both are killed with SIGKILL; then the store is checked before anything else writes.
    @Test func writersKilledAtRandomPointsLoseNothingAcknowledged() throws {
        let s = try Sandbox()
        #expect(try s.serialCK("init").status == 0)  // the store exists before the first kill
        let launch = CKLaunch(s)
        let logPath = StorePaths.zoneLog(s, "_defaultZone")
        var rng = SeededRNG(seed: 0xC4A5_0050)
        var acknowledged: [String: Int] = [:]  // record name → its v, for every save that exited 0
        var settled = Data()                   // the log's bytes that hold only whole requests, as of the last check
        var ignored: [Int: String] = [:]       // seq → text of whole lines of an interrupted request, as of the last check
        var settledLines = 0, settledSeq = 0   // its number of lines, and the seq of its last line
        var maxSeq = 0                         // the highest seq seen in any whole line so far
        var batchOutcomes: [String: Int] = [:] // for the summary: how far each killed batch got
        var tornSeen = 0, incompleteSeen = 0
        let pad = String(repeating: "x", count: 200)

        for round in 0..<50 {
            let delay = Int.random(in: 0...50, using: &rng)
            let batchSize = Int.random(in: 250...650, using: &rng)
            let singles = CKWriterLoop(launch, (0..<20).map { i in
                CKJob("r\(round)-s\(i)", ["record", "save", "Note", "--name", "r\(round)-s\(i)", "v:int64=\(i)"])
            })
            // Records of ~330 bytes, so the input is larger than a pipe buffer and each request of 200 is one
            // write of ~65 KB.
            let lines = (0..<batchSize).map { i in
                #"{"recordName":"r\#(round)-b\#(i)","recordType":"Note","fields":{"v":{"value":\#(i),"type":"INT64"},"pad":{"value":"\#(pad)","type":"STRING"}}}"#
            }
            let batchJob = CKJob("r\(round) batch of \(batchSize)", ["record", "save", "--batch", "-", "-q"], stdin: lines.joined(separator: "\n") + "\n")
            singles.start()
            let batch = try CKChild(launch, batchJob)
            defer { batch.kill(); singles.stop(kill: true) }
            // The delay counts from when ck has taken in (nearly) all its input, so that on a loaded machine too
            // the kills land in ck's own work (checking the input, appending requests) rather than in its start-up.
            // In odd rounds it counts from when the batch's first request is in the log (the log grew by more than
            // the single saves could add), so that kills land between and inside its later requests.
            let sizeBefore = FileSize.of(logPath)
            _ = batch.inputWritten.wait(timeout: .now() + 10)
            if round % 2 == 1 {
                let giveUp = Date().addingTimeInterval(10)
                while FileSize.of(logPath) - sizeBefore < 40_000 && batch.process.isRunning && Date() < giveUp { usleep(300) }
            }
            Thread.sleep(forTimeInterval: Double(delay) / 1000)
            batch.kill()
            singles.stop(kill: true)
            let batchOutcome = batch.wait()
            singles.wait()

            // Which saves were acknowledged. A save that was not killed must have succeeded; its stderr may
            // only carry the warnings about what the other (killed) writer left.
            let batchAcked = !batchOutcome.killed && batchOutcome.status == 0
            var ackedSingles: [Int] = []
            for r in [batchOutcome] + singles.results where !r.killed {
                #expect(r.status == 0, "round \(round): \(r.label) exited \(r.status) without being killed: \(r.stderr.prefix(400))")
                let unexpected = r.unexpectedStderr.split(separator: "\n").filter { !($0.hasPrefix("ck: warning: ") && $0.hasSuffix("it was never acknowledged")) }
                #expect(unexpected.isEmpty, "round \(round): \(r.label) wrote to stderr: \(unexpected.prefix(3))")
                if r.status == 0, let i = r.label.split(separator: "-s").last.flatMap({ Int($0) }), r.label.hasPrefix("r\(round)-s") { ackedSingles.append(i) }
            }

            // The log, read before any other ck command touches it. What was settled at the last check must be
            // unchanged byte for byte; only what follows is parsed again.
            let data = Data((try? Data(contentsOf: URL(fileURLWithPath: logPath))) ?? Data())
            #expect(data.prefix(settled.count) == settled, "round \(round): the log no longer starts with the \(settled.count) bytes it had after round \(round - 1) (\(data.count) bytes now): acknowledged data was lost or changed")
            let log = ZoneLogFile(data: data, from: min(settled.count, data.count), firstLine: settledLines + 1)
            #expect(log.badLines.isEmpty, "round \(round): whole lines that are not valid log entries: \(log.badLines.prefix(2))")
            #expect(log.seqProblem == nil, "round \(round): \(log.seqProblem ?? "")")
            if let first = log.lines.first { #expect(first.seq > settledSeq, "round \(round): line \(first.number) has seq \(first.seq) after \(settledSeq)") }
            var reused: [LogLine] = []
            for l in log.lines {
                if l.op == "save" {
                    #expect(l.changeTag == String(l.seq, radix: 36), "round \(round): line \(l.number): tag \(l.changeTag ?? "nil") for seq \(l.seq)")
                }
                // Lines written since the last check take numbers never used before, even by lines that were cut off.
                if ignored[l.seq] == l.text { continue }  // the same interrupted request, still there
                if l.seq <= maxSeq { reused.append(l) }
            }
            if let first = reused.first {
                // Only after a kill left an interrupted request (rare: see aCutAppendIsDroppedWithAWarningAndNothingElseIsLost).
                Issue.record("round \(round): \(reused.count) lines from line \(first.number) on reuse seq numbers (seq \(first.seq); the highest seen before was \(maxSeq))")
            }
            let torn = log.tailIsTorn
            let incomplete = log.incompleteRequest
            if torn { tornSeen += 1 }
            if incomplete != nil { incompleteSeen += 1 }

            // The store opens without help: a fetch of a missing record answers unknownItem (exit 3), after
            // warning about a torn last line or an interrupted request if (and only if) the log has one.
            let probe = try s.serialCK("record", "fetch", "missing-\(round)")
            #expect(probe.status == 3, "round \(round): fetch after the kill exited \(probe.status): \(probe.stderr.prefix(400))")
            var expected: [String] = []
            if torn {
                expected.append("ck: warning: \(logPath):\(settledLines + log.newlineCount + 1): ignoring a torn last line (\(log.tail.count) bytes, an interrupted write); it was never acknowledged")
            }
            if let incomplete {
                expected.append("ck: warning: \(logPath):\(incomplete.number): ignoring an incomplete request of several lines (an interrupted write); it was never acknowledged")
            }
            expected.append("ck: unknownItem (11): Record not found: 'missing-\(round)' in zone _defaultZone")
            #expect(probe.stderr.split(separator: "\n").map(String.init) == expected,
                    "round \(round): the log ends \(log.tail.isEmpty ? "with a newline" : "without a newline: '\(log.tailText)'"); stderr was:\n\(probe.stderr)")

            // Every single save that exited 0 is there. The batch is there by whole requests of 200, in order:
            // all of it if it exited 0.
            let names = ackedSingles.map { "r\(round)-s\($0)" } + (0..<batchSize).map { "r\(round)-b\($0)" }
            let fetch = try s.runCK(["record", "fetch"] + names)
            var found: [String: String] = [:]
            for line in fetch.stdout.split(separator: "\n") {
                let cols = line.split(separator: "\t").map(String.init)
                if let v = cols.first(where: { $0.hasPrefix("v=") }) { found[cols[0]] = v }
            }
            for i in ackedSingles {
                #expect(found["r\(round)-s\(i)"] == "v=\(i)", "round \(round): r\(round)-s\(i) exited 0 but fetch shows \(found["r\(round)-s\(i)"] ?? "nothing")")
            }
            let batchFound = (0..<batchSize).filter { found["r\(round)-b\($0)"] != nil }
            let k = batchFound.count
            #expect(batchFound == Array(0..<k), "round \(round): the batch's records present are not a prefix: \(batchFound.prefix(5))…")
            #expect(k % 200 == 0 || k == batchSize, "round \(round): \(k) of the batch's \(batchSize) records are present, not a whole number of requests of 200")
            if batchAcked { #expect(k == batchSize, "round \(round): the batch exited 0 but only \(k) of \(batchSize) records are present") }
            for i in batchFound where found["r\(round)-b\(i)"] != "v=\(i)" {
                Issue.record("round \(round): r\(round)-b\(i) has \(found["r\(round)-b\(i)"] ?? "")")
            }
            batchOutcomes[batchAcked ? "exited 0" : k == 0 ? "killed, nothing written" : k == batchSize ? "killed after writing all" : "killed after \(k)", default: 0] += 1

            for i in ackedSingles { acknowledged["r\(round)-s\(i)"] = i }
            if batchAcked { for i in 0..<batchSize { acknowledged["r\(round)-b\(i)"] = i } }

            // What the next round must find unchanged: everything before the torn tail and before an
            // interrupted request. Lines of that request may stay (until a write cuts them) but keep their text.
            ignored = [:]
            var settledEnd = data.count - log.tail.count
            var keptLines = log.lines
            if let incomplete {
                settledEnd = incomplete.start
                keptLines = log.lines.filter { $0.number < incomplete.number }
                for l in log.lines where l.number >= incomplete.number { ignored[l.seq] = l.text }
            }
            settled = data.prefix(settledEnd)
            settledLines += keptLines.count
            settledSeq = keptLines.last?.seq ?? settledSeq
            maxSeq = max(maxSeq, log.lines.map(\.seq).max() ?? 0)

            if round % 10 == 9 && !acknowledged.isEmpty {
                // Nothing acknowledged in any earlier round was lost.
                let all = try s.runCK(["record", "fetch"] + acknowledged.keys.sorted())
                #expect(all.status == 0, "after round \(round): fetch of all \(acknowledged.count) acknowledged records: exit \(all.status): \(all.stderr.prefix(400))")
                let values = Dictionary(all.stdout.split(separator: "\n").map { line -> (String, String) in
                    let cols = line.split(separator: "\t").map(String.init)
                    return (cols[0], cols.first { $0.hasPrefix("v=") } ?? "")
                }, uniquingKeysWith: { a, _ in a })
                for (name, v) in acknowledged where values[name] != "v=\(v)" {
                    Issue.record("after round \(round): \(name) was acknowledged with v=\(v), fetch shows \(values[name] ?? "nothing")")
                }
            }
        }
        // A last write cuts whatever the last kill left; then the log is all whole lines.
        let last = try s.serialCK("record", "save", "Note", "--name", "after", "v:int64=1")
        #expect(last.status == 0, "\(last.stderr)")
        let final = try ZoneLogFile(logPath)
        #expect(final.tail.isEmpty && final.badLines.isEmpty && final.incompleteRequest == nil && final.seqProblem == nil)
        print("CrashTests: 50 rounds; single saves acknowledged: \(acknowledged.keys.filter { $0.contains("-s") }.count); batches: \(batchOutcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")); torn last lines seen: \(tornSeen); interrupted requests seen: \(incompleteSeen); acknowledged saves: \(acknowledged.count)")
    }

    /// A crash in the middle of an append leaves a prefix of the appended bytes. Here the state is made by
    /// cutting the log at seeded points inside its last append (one line, or a batch of three), since a real
    /// kill rarely lands inside the `write` itself. Every case: the next command warns exactly as the file
    /// calls for, nothing acknowledged before is lost, and the next write cuts the interrupted part off.
    @Test func aCutAppendIsDroppedWithAWarningAndNothingElseIsLost() throws {
        let s = try Sandbox()
        let logPath = StorePaths.zoneLog(s, "_defaultZone")
        var rng = SeededRNG(seed: 0x7042_4E)
        let base = try s.runCK(["record", "save", "--batch", "-"], stdin: (0..<3).map {
            #"{"recordName":"base\#($0)","recordType":"Note","fields":{"v":{"value":\#($0),"type":"INT64"}}}"#
        }.joined(separator: "\n"))
        #expect(base.status == 0, "\(base.stderr)")
        var acknowledged = ["base0": 0, "base1": 1, "base2": 2]
        for c in 0..<16 {
            let before = try Data(contentsOf: URL(fileURLWithPath: logPath))
            let names = c % 2 == 0 ? ["x\(c)"] : ["y\(c)-0", "y\(c)-1", "y\(c)-2"]
            let w = try s.runCK(["record", "save", "--batch", "-"], stdin: names.map {
                #"{"recordName":"\#($0)","recordType":"Note","fields":{"v":{"value":\#(c),"type":"INT64"}}}"#
            }.joined(separator: "\n"))
            #expect(w.status == 0, "case \(c): \(w.stderr)")
            let full = try Data(contentsOf: URL(fileURLWithPath: logPath))
            // Cases 1 and 3 cut just before the newline of the first and second line of the batch (a whole line
            // without its newline: still a cut write); the others at a seeded byte.
            let appended = [UInt8](full[before.count...])
            let newlines = appended.indices.filter { appended[$0] == UInt8(ascii: "\n") }
            let cut = c == 1 ? newlines[0] : c == 3 ? newlines[1] : Int.random(in: 1..<(appended.count - 1), using: &rng)
            let cutData = Data(full.prefix(before.count + cut))
            try cutData.write(to: URL(fileURLWithPath: logPath))
            let log = ZoneLogFile(data: cutData)
            // Lines of the request left whole: those with their newline, plus a last line that still parses.
            let wholeLines = appended[..<cut].filter { $0 == UInt8(ascii: "\n") }.count
            let present = wholeLines + (log.tailLine == nil ? 0 : 1)
            #expect(present < names.count, "case \(c): the cut at \(cut) of \(appended.count) should interrupt the request")

            var expected: [String] = []
            if log.tailIsTorn {
                expected.append("ck: warning: \(logPath):\(log.newlineCount + 1): ignoring a torn last line (\(log.tail.count) bytes, an interrupted write); it was never acknowledged")
            }
            if names.count > 1 && present > 0 {
                expected.append("ck: warning: \(logPath):\(log.newlineCount - wholeLines + 1): ignoring an incomplete request of several lines (an interrupted write); it was never acknowledged")
            }
            #expect(log.incompleteRequest?.number == (names.count > 1 && present > 0 ? log.newlineCount - wholeLines + 1 : nil), "case \(c): the test's own reading of the cut log")
            let fetch = try s.runCK(["record", "fetch"] + acknowledged.keys.sorted())
            #expect(fetch.status == 0, "case \(c): fetch after the cut: exit \(fetch.status): \(fetch.stderr)")
            #expect(fetch.stderr.split(separator: "\n").map(String.init) == expected, "case \(c): cut at \(cut) of \(appended.count) bytes; stderr:\n\(fetch.stderr)")
            #expect(fetch.stdout.split(separator: "\n").count == acknowledged.count, "case \(c): \(fetch.stdout)")
            let gone = try s.runCK(["record", "fetch"] + names)
            #expect(gone.status == (names.count == 1 ? 3 : 10), "case \(c): the interrupted request's records must not be visible: \(gone.stdout)")

            // The next write drops the cut part, keeps everything before it byte for byte, and counts on from
            // the highest seq still readable in the log (a torn line's number can't be read, and was never acknowledged).
            let next = try s.serialCK("record", "save", "Note", "--name", "after\(c)", "v:int64=\(c)")
            #expect(next.status == 0, "case \(c): \(next.stderr)")
            let nextWarnings = next.stderr.split(separator: "\n").map(String.init)
            // Same warnings as the fetch, line numbers aside…
            let withoutLine = { (w: String) in w.replacingOccurrences(of: #"\.jsonl:[0-9]+:"#, with: ".jsonl:N:", options: .regularExpression) }
            #expect(Set(nextWarnings.map(withoutLine)) == Set(expected.map(withoutLine)), "case \(c): the next write should warn as the fetch did: \(next.stderr)")
            // …but each only once, and naming the right line.
            #expect(nextWarnings == expected, "case \(c): the next write should warn as the fetch did: \(next.stderr)")
            let repaired = try Data(contentsOf: URL(fileURLWithPath: logPath))
            let after = ZoneLogFile(data: repaired)
            #expect(repaired.prefix(before.count) == before, "case \(c): bytes before the interrupted append changed")
            #expect(after.lines.count == ZoneLogFile(data: before).lines.count + 1 && after.tail.isEmpty && after.badLines.isEmpty,
                    "case \(c): the log should be the old lines plus after\(c)")
            let newSeq = after.lines.last?.seq ?? 0
            #expect(after.lines.last?.recordName == "after\(c)" && newSeq > ZoneLogFile(data: before).lines.map(\.seq).max() ?? 0,
                    "case \(c): after\(c) took seq \(newSeq), not above the acknowledged lines")
            // docs/store.md §6: the numbers of an ignored request's lines are never used again.
            let readable = (log.lines + (log.tailLine.map { [$0] } ?? [])).map(\.seq).max() ?? 0
            #expect(newSeq == readable + 1, "case \(c): after\(c) took seq \(newSeq); the readable lines (an ignored request's included) used up to \(readable)")
            acknowledged["after\(c)"] = c
            let clean = try s.runCK(["record", "fetch"] + acknowledged.keys.sorted())
            #expect(clean.status == 0 && clean.stderr.isEmpty, "case \(c): after the repair: \(clean.stderr)")
        }
    }

    /// 24 rounds of two writers running at once, some of their processes killed at seeded points: one loops
    /// `ck zone create Zn` / `ck -z Zn record save …` / `ck zone delete Zn -y` (zones.json rewrites), the other
    /// saves records of new types as new users (schema.json and container.json rewrites). About half the
    /// processes are killed by strace on entry to a seeded n-th write, fsync, rename, unlink, mkdir or openat
    /// (so where they die does not depend on the machine's load); the rest run to the end. After each round
    /// every JSON file of the store parses, holds what was acknowledged, temporary files belong only to killed
    /// processes, a zone that zones.json no longer lists has no log left, and the next writes succeed.
    @Test(RequiredTool.needed("strace")) func zoneAndSchemaRewritesKilledAtRandomPointsLeaveOldOrNewFiles() throws {
        _ = try RequiredTool.require("strace")
        let s = try Sandbox()
        #expect(try s.serialCK("init").status == 0)
        let launch = CKLaunch(s)
        let env = StorePaths.env(s)
        var rng = SeededRNG(seed: 0x2E_3217E5)
        var killed = Set<Int32>()
        var zones = Set<String>()                 // the zones zones.json listed at the last check
        var ackedTypes: [(type: String, field: Int, user: String)] = []
        var zoneOpsAcked = 0, tmpSeen = Set<String>()
        var orphans = Set<String>()               // zones reported as deleted-but-logged, until created again

        let calls = ["write", "write", "fsync", "rename", "rename", "unlink", "mkdir", "openat"]
        for round in 0..<24 {
            // Zone jobs: toggle random zones Z0…Z3; a created zone gets a record, so a delete has a log to remove.
            var believed = zones
            var zoneJobs: [CKJob] = []
            for i in 0..<4 {
                let z = "Z\(Int.random(in: 0..<4, using: &rng))"
                if believed.contains(z) {
                    zoneJobs.append(CKJob("delete \(z)", ["zone", "delete", z, "-y"]))
                    believed.remove(z)
                } else {
                    zoneJobs.append(CKJob("create \(z)", ["zone", "create", z]))
                    zoneJobs.append(CKJob("save into \(z)", ["-z", z, "record", "save", "Note", "--name", "in-\(z)-\(round)-\(i)", "v:int64=\(i)"]))
                    believed.insert(z)
                }
            }
            var schemaJobs = (0..<4).map { i in
                CKJob("type T\(round)x\(i)", ["--as", "w\(round)x\(i)", "record", "save", "T\(round)x\(i)", "--name", "s\(i)", "f\(i):int64=\(i)"])
            }
            for i in zoneJobs.indices where Bool.random(using: &rng) {
                zoneJobs[i].killAt = (calls[Int.random(in: 0..<calls.count, using: &rng)], Int.random(in: 1...6, using: &rng))
            }
            for i in schemaJobs.indices where Bool.random(using: &rng) {
                schemaJobs[i].killAt = (calls[Int.random(in: 0..<calls.count, using: &rng)], Int.random(in: 1...6, using: &rng))
            }
            let zoneLoop = CKWriterLoop(launch, zoneJobs), schemaLoop = CKWriterLoop(launch, schemaJobs)
            defer { zoneLoop.stop(kill: true); schemaLoop.stop(kill: true) }
            zoneLoop.start()
            schemaLoop.start()
            zoneLoop.wait()
            schemaLoop.wait()

            // The zone each acknowledged op leaves, unless a later op on that zone was killed (then either).
            var expectZone: [String: Bool] = [:]
            var uncertain = Set<String>()
            for results in [zoneLoop.results, schemaLoop.results] {
                var afterKill = false
                for r in results {
                    if r.killed { killed.insert(r.pid); afterKill = true; continue }
                    // A kill may have stopped the `zone create` a later save or delete of that zone relied on.
                    if afterKill && r.status == 3 && r.stderr.hasPrefix("ck: zoneNotFound (26): Zone '") { continue }
                    #expect(r.status == 0, "round \(round): \(r.label) exited \(r.status) without being killed: \(r.stderr.prefix(300))")
                }
            }
            var liveSaves: [String: [String]] = [:]  // zone → records saved into it (exit 0) and not deleted since
            for r in zoneLoop.results {
                let z = String(r.label.split(separator: " ").last!)
                if r.label.hasPrefix("save") {
                    if !r.killed && r.status == 0 { liveSaves[z, default: []].append(r.stdout.split(separator: "\t").first.map(String.init) ?? "") }
                    continue
                }
                if r.label.hasPrefix("delete") { liveSaves[z] = nil }
                if r.killed { uncertain.insert(z) } else if r.status == 0 { uncertain.remove(z); expectZone[z] = r.label.hasPrefix("create"); zoneOpsAcked += 1 }
            }
            for r in schemaLoop.results where !r.killed && r.status == 0 {
                let i = Int(r.label.split(separator: "x").last!)!
                ackedTypes.append(("T\(round)x\(i)", i, "w\(round)x\(i)"))
            }

            // An operation on several files killed after its intent record was written is committed: the next
            // command finishes it before it reads anything (docs/reliability.md). Let one do so first, then the
            // files on disk are the store's state.
            #expect(try s.serialCK("zone", "list").status == 0, "round \(round): the next command could not recover the store")
            // Every JSON file parses, and is the old or the new version of itself.
            let zonesJSON = try #require(parseJSONFile(env + "/zones.json"), "round \(round): zones.json does not parse: \(head(env + "/zones.json"))")
            let schemaJSON = try #require(parseJSONFile(env + "/schema.json"), "round \(round): schema.json does not parse: \(head(env + "/schema.json"))")
            let containerJSON = try #require(parseJSONFile(s.dir + "/store/containers/iCloud.ck.default/container.json"), "round \(round): container.json does not parse")
            let ckJSON = try #require(parseJSONFile(s.dir + "/store/ck.json"), "round \(round): ck.json does not parse")
            #expect(ckJSON["format"] as? Int == 1 && ckJSON["currentContainer"] as? String == "iCloud.ck.default")
            #expect(zonesJSON["format"] as? Int == 1 && zonesJSON["lastSeq"] is NSNumber && zonesJSON["deletedZones"] is [Any],
                    "round \(round): zones.json lacks format, lastSeq or deletedZones")
            let listed = ((zonesJSON["zones"] as? [[String: Any]]) ?? []).compactMap { $0["zoneName"] as? String }
            #expect(Set(listed).count == listed.count, "round \(round): zones.json lists a zone twice: \(listed)")
            zones = Set(listed)
            for (z, present) in expectZone where !uncertain.contains(z) {
                #expect(zones.contains(z) == present, "round \(round): \(z) was acknowledged as \(present ? "created" : "deleted") but zones.json \(present ? "lacks" : "lists") it")
            }
            // Never a mix: a zone zones.json no longer lists must not keep its log, or a later `zone create` of
            // the same name brings the deleted records back (see knownIssueInterruptedZoneDeleteResurrectsRecords).
            for n in 0..<4 {
                let z = "Z\(n)"
                guard !zones.contains(z), FileManager.default.fileExists(atPath: StorePaths.zoneLog(s, z)) else { orphans.remove(z); continue }
                if orphans.insert(z).inserted {
                    // Only when a kill lands between the two steps of `zone delete` (a window of microseconds).
                    Issue.record("round \(round): \(z) is deleted in zones.json but \(z).jsonl is still there")
                }
            }
            for (z, names) in liveSaves where zones.contains(z) {
                let fetch = try s.runCK(["-z", z, "record", "fetch"] + names)
                #expect(fetch.status == 0, "round \(round): \(names) were saved into \(z) (exit 0) but: \(fetch.stderr)")
            }
            let types = schemaJSON["recordTypes"] as? [String: Any] ?? [:]
            #expect(schemaJSON["format"] as? Int == 1, "round \(round): schema.json has no format 1")
            let users = containerJSON["users"] as? [String: Any] ?? [:]
            for t in ackedTypes {
                let field = ((types[t.type] as? [String: Any])?["fields"] as? [String: Any])?["f\(t.field)"] as? [String: Any]
                #expect(field?["type"] as? String == "INT64", "round \(round): \(t.type) was saved (exit 0) but schema.json lacks \(t.type).f\(t.field)")
                #expect(users[t.user] != nil, "round \(round): \(t.user) saved a record (exit 0) but container.json does not list the user")
            }

            // Temporary files may remain, but only from killed processes; the real files were checked above.
            for f in s.files(under: s.dir + "/store") where f.contains(".tmp-") || f.contains(".deleting-") {
                tmpSeen.insert(f)
                let pid = Int32(f.split(whereSeparator: { $0 == "-" }).last ?? "") ?? -1
                #expect(killed.contains(pid), "round \(round): \(f) was left by pid \(pid), which was not killed")
            }

            // The store opens without help and agrees with zones.json.
            let list = try s.serialCK("zone", "list")
            #expect(list.status == 0, "round \(round): \(list.stderr)")
            #expect(list.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) } == ["_defaultZone"] + zones.sorted(),
                    "round \(round): zone list says \(list.stdout) but zones.json lists \(zones.sorted())")
            let probe = try s.serialCK("record", "fetch", "missing")
            #expect(probe.status == 3, "round \(round): \(probe.stderr)")
        }
        // The next writes succeed despite whatever the kills left, and rewrite both files.
        let create = try s.serialCK("zone", "create", "Final")
        #expect(create.status == 0, "\(create.stderr)")
        let save = try s.serialCK("record", "save", "FinalType", "--name", "final", "f:int64=1")
        #expect(save.status == 0, "\(save.stderr)")
        let zonesJSON = try #require(parseJSONFile(env + "/zones.json"))
        #expect(((zonesJSON["zones"] as? [[String: Any]]) ?? []).contains { $0["zoneName"] as? String == "Final" })
        let schemaJSON = try #require(parseJSONFile(env + "/schema.json"))
        #expect((schemaJSON["recordTypes"] as? [String: Any])?["FinalType"] != nil)
        // Half the jobs run unarmed, so these hold whatever the machine's load.
        #expect(ackedTypes.count > 0 && killed.count > 0 && zoneOpsAcked > 0)
        print("CrashTests: 24 rounds of rewrites; processes killed: \(killed.count); types saved: \(ackedTypes.count); zone ops acknowledged: \(zoneOpsAcked); temporary files left by kills: \(tmpSeen.count)")
    }

    /// A zone's log left behind by an interrupted delete (made here by putting the log back after a delete)
    /// must not bring the deleted zone's records back when a zone of the same name is created.
    @Test func anInterruptedZoneDeleteNeverResurrectsRecords() throws {
        let s = try Sandbox()
        #expect(try s.serialCK("zone", "create", "Z").status == 0)
        #expect(try s.serialCK("-z", "Z", "record", "save", "Note", "--name", "old", "t=deleted with its zone").status == 0)
        let log = StorePaths.zoneLog(s, "Z")
        let saved = try Data(contentsOf: URL(fileURLWithPath: log))
        #expect(try s.serialCK("zone", "delete", "Z", "-y").status == 0)
        try saved.write(to: URL(fileURLWithPath: log))  // the state a kill just after zones.json was written leaves
        #expect(try s.serialCK("zone", "create", "Z").status == 0)
        let r = try s.serialCK("-z", "Z", "record", "fetch", "old")
        #expect(r.status == 3, "a record of the deleted zone came back in the new zone: \(r.stdout)")
    }
}

private enum FileSize {
    static func of(_ path: String) -> Int {
        var st = stat()
        return stat(path, &st) == 0 ? Int(st.st_size) : 0
    }
}

/// A JSON object file parsed with Foundation, or nil if it is missing or not a JSON object.
private func parseJSONFile(_ path: String) -> [String: Any]? {
    guard let data = FileManager.default.contents(atPath: path) else { return nil }
    return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
}

private func head(_ path: String) -> String {
    String(decoding: (FileManager.default.contents(atPath: path) ?? Data()).prefix(200), as: UTF8.self)
}
