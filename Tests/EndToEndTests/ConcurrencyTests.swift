import Foundation
import Testing
import CKTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Many `ck` processes against one store at once (docs/store.md §6 and §7): every acknowledged save is in
/// the zone log exactly once, sequence numbers and change tags are unique and increasing, atomic batches
/// are all or nothing, and readers running next to writers only ever see whole records.
@Suite(.serialized) struct ConcurrencyTests {
    /// 8 writers × 250 saves into the default zone. Each writer is one thread that runs `ck` 70 times,
    /// one invocation after the other: 50 single saves (`ck record save Note --name p3-7 …`), then 20
    /// batches of 10 records (`ck record save --batch -`), so 250 saves per writer and 2,000 in all, in
    /// 560 invocations. (2,000 single invocations take about 40 s on 2 cores in a debug build.)
    @Test func eightWritersSaveIntoTheDefaultZone() throws {
        let s = try Sandbox()
        // No store yet: the 8 writers also race to create it.
        let writers = (0..<8).map { p -> CKWriterLoop in
            var jobs: [CKJob] = (0..<50).map { i in
                CKJob("p\(p)-\(i)", ["record", "save", "Note", "--name", "p\(p)-\(i)", "v:int64=\(p * 1000 + i)", "w=p\(p)"])
            }
            for b in 0..<20 {
                let lines = (50 + b * 10 ..< 60 + b * 10).map { i in
                    #"{"recordName":"p\#(p)-\#(i)","recordType":"Note","fields":{"v":{"value":\#(p * 1000 + i),"type":"INT64"},"w":{"value":"p\#(p)","type":"STRING"}}}"#
                }
                jobs.append(CKJob("p\(p) batch \(b)", ["record", "save", "--batch", "-"], stdin: lines.joined(separator: "\n") + "\n"))
            }
            return CKWriterLoop(CKLaunch(s), jobs)
        }
        defer { writers.forEach { $0.stop(kill: true) } }  // if anything below throws early
        writers.forEach { $0.start() }
        writers.forEach { $0.wait() }

        // Every invocation succeeded, quietly, and reported each of its records once with a change tag.
        var reportedTag: [String: String] = [:]
        for (p, w) in writers.enumerated() {
            #expect(w.results.count == 70, "writer p\(p) ran \(w.results.count) of 70 invocations")
            for r in w.results {
                #expect(r.status == 0 && r.unexpectedStderr.isEmpty, "\(r.label): exit \(r.status), stderr: \(r.stderr)")
                for line in r.stdout.split(separator: "\n") {
                    let cols = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                    guard cols.count >= 3 else { Issue.record("\(r.label): unexpected output line '\(line)'"); continue }
                    #expect(reportedTag[cols[0]] == nil, "\(cols[0]) was reported twice")
                    reportedTag[cols[0]] = cols[2]
                }
            }
        }
        #expect(reportedTag.count == 2000, "2,000 saves reported, got \(reportedTag.count)")
        #expect(Set(reportedTag.values).count == reportedTag.count, "change tags reported on stdout are not unique")

        // The zone log: one line per acknowledged save, all valid JSON, seq 1…2,000 in order.
        let log = try ZoneLogFile(StorePaths.zoneLog(s, "_defaultZone"))
        #expect(log.badLines.isEmpty, "lines that are not valid log entries: \(log.badLines.prefix(3))")
        #expect(log.tail.isEmpty, "the log ends without a final newline: \(log.tailText)")
        #expect(log.lines.count == 2000, "the log has \(log.lines.count) lines for 2,000 saves")
        #expect(log.lines.map(\.seq) == Array(1...2000), "seq is not 1…2,000 in order: \(log.seqProblem ?? "")")
        var logged: [String: LogLine] = [:]
        for l in log.lines {
            #expect(l.op == "save", "line \(l.number): op \(l.op)")
            #expect(l.changeTag == String(l.seq, radix: 36), "line \(l.number): tag \(l.changeTag ?? "none") for seq \(l.seq)")
            #expect(logged[l.recordName] == nil, "\(l.recordName) is in the log twice (lines \(logged[l.recordName]?.number ?? 0) and \(l.number))")
            logged[l.recordName] = l
        }
        for p in 0..<8 {
            for i in 0..<250 {
                let name = "p\(p)-\(i)"
                guard let l = logged[name] else { Issue.record("\(name) is missing from the log"); continue }
                #expect(l.int("v") == p * 1000 + i && l.string("w") == "p\(p)", "\(name): v=\(l.int("v") ?? -1) w=\(l.string("w") ?? "nil")")
                #expect(reportedTag[name] == l.changeTag, "\(name): stdout said tag \(reportedTag[name] ?? "nil"), the log has \(l.changeTag ?? "nil")")
            }
        }
        // Each batch is one request: a first line with "batch": 10 and the 9 other records of that batch right after it.
        let batchStarts = log.lines.indices.filter { log.lines[$0].batch != nil }
        #expect(batchStarts.count == 8 * 20, "\(batchStarts.count) lines carry \"batch\", expected 160")
        for start in batchStarts {
            let first = log.lines[start]
            #expect(first.batch == 10, "line \(first.number): batch \(first.batch ?? 0)")
            let group = log.lines[start ..< min(start + 10, log.lines.count)].map(\.recordName)
            let writer = first.recordName.split(separator: "-")[0]
            #expect(group.count == 10 && group.allSatisfy { $0.split(separator: "-")[0] == writer } && Set(group).count == 10,
                    "line \(first.number): the batch's lines are interleaved with other writes: \(group)")
        }

        // ck itself reads back all 2,000, and a sample of them as JSON.
        let all = try s.runCK(["record", "fetch"] + (0..<8).flatMap { p in (0..<250).map { "p\(p)-\($0)" } })
        #expect(all.status == 0, "fetch of all 2,000: exit \(all.status): \(all.stderr.prefix(500))")
        #expect(all.stdout.split(separator: "\n").count == 2000)
        var rng = SeededRNG(seed: 0x00C0_FFEE)
        let sample = (0..<16).map { _ in (Int.random(in: 0..<8, using: &rng), Int.random(in: 0..<250, using: &rng)) }
        let json = try s.runCK(["record", "fetch", "-o", "json"] + sample.map { "p\($0.0)-\($0.1)" })
        #expect(json.status == 0, "\(json.stderr)")
        let records = try JSONRecords(json.stdout)
        #expect(records.count == sample.count)
        for ((p, i), r) in zip(sample, records.list) {
            #expect(r.name == "p\(p)-\(i)" && r.int("v") == p * 1000 + i && r.string("w") == "p\(p)",
                    "sample p\(p)-\(i): got \(r.name) v=\(r.int("v") ?? -1)")
            #expect(r.changeTag == reportedTag["p\(p)-\(i)"], "p\(p)-\(i): fetched tag \(r.changeTag ?? "nil")")
        }
    }

    /// 8 writers × 12 atomic batches of 25 into a custom zone. Two batches of each writer (chosen by a seeded
    /// generator) hold one bad line: either a VALIDATE reference to a record that doesn't exist, which only
    /// the server can judge and which makes the atomic request fail as a whole (exit 10), or a line that is
    /// not JSON, which makes ck refuse the input before writing (exit 8).
    /// So each writer gets 250 saves acknowledged, in 12 invocations.
    @Test func eightWritersSaveAtomicBatchesIntoACustomZone() throws {
        let s = try Sandbox()
        let zone = try s.serialCK("zone", "create", "Z")
        #expect(zone.status == 0, "\(zone.stderr)")
        var rng = SeededRNG(seed: 0xA70_31C)
        var bad: [Int: [Int: (line: Int, kind: Int)]] = [:]  // writer → batch → the bad line and its kind
        for p in 0..<8 {
            var picks = Set<Int>()
            while picks.count < 2 { picks.insert(Int.random(in: 0..<12, using: &rng)) }
            for (k, b) in picks.sorted().enumerated() { bad[p, default: [:]][b] = (Int.random(in: 0..<25, using: &rng), (p + k) % 2) }
        }
        let writers = (0..<8).map { p -> CKWriterLoop in
            let jobs = (0..<12).map { b -> CKJob in
                let lines = (0..<25).map { i -> String in
                    if let bl = bad[p]?[b], bl.line == i {
                        return bl.kind == 0
                            ? #"{"recordName":"q\#(p)-\#(b)-\#(i)","recordType":"Note","fields":{"r":{"value":{"recordName":"missing","action":"VALIDATE"},"type":"REFERENCE"}}}"#
                            : #"{"recordName":"q\#(p)-\#(b)-\#(i)","recordType":"Note","fields":{"v":"#
                    }
                    return #"{"recordName":"q\#(p)-\#(b)-\#(i)","recordType":"Note","fields":{"v":{"value":\#(p * 1000 + b * 25 + i),"type":"INT64"}}}"#
                }
                return CKJob("q\(p) batch \(b)", ["-z", "Z", "record", "save", "--batch", "-", "--atomic"], stdin: lines.joined(separator: "\n") + "\n")
            }
            return CKWriterLoop(CKLaunch(s), jobs)
        }
        defer { writers.forEach { $0.stop(kill: true) } }  // if anything below throws early
        writers.forEach { $0.start() }
        writers.forEach { $0.wait() }

        var goodNames: [String] = [], badNames: [String] = []
        for (p, w) in writers.enumerated() {
            #expect(w.results.count == 12, "writer q\(p) ran \(w.results.count) of 12 batches")
            for (b, r) in w.results.enumerated() {
                let names = (0..<25).map { "q\(p)-\(b)-\($0)" }
                if let bl = bad[p]?[b] {
                    badNames += names
                    #expect(r.stdout.isEmpty, "\(r.label) failed but printed records: \(r.stdout.prefix(200))")
                    if bl.kind == 0 {
                        #expect(r.status == 10, "\(r.label) (a reference to a missing record on line \(bl.line + 1)): exit \(r.status)")
                        #expect(r.unexpectedStderr.hasPrefix("ck: partialFailure (2): Failed to modify some records: 1 of 25 operations were rejected, so the atomic request applied none"),
                                "\(r.label): \(r.stderr.prefix(300))")
                        #expect(r.stderr.contains("  q\(p)-\(b)-\(bl.line): referenceViolation ("), "\(r.label): \(r.stderr.prefix(300))")
                    } else {
                        #expect(r.status == 8, "\(r.label) (line \(bl.line + 1) is not JSON): exit \(r.status)")
                        #expect(r.unexpectedStderr.hasPrefix("ck: invalidArguments (12): <stdin>:\(bl.line + 1):"), "\(r.label): \(r.stderr.prefix(300))")
                    }
                } else {
                    goodNames += names
                    #expect(r.status == 0 && r.unexpectedStderr.isEmpty, "\(r.label): exit \(r.status), stderr: \(r.stderr.prefix(300))")
                    #expect(r.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) } == names,
                            "\(r.label): stdout does not list its 25 records in order")
                }
            }
        }
        #expect(goodNames.count == 2000 && badNames.count == 400)

        // The zone log: seq 1 was the zone's creation; the 80 good batches took 2…2,001, 25 lines each.
        let log = try ZoneLogFile(StorePaths.zoneLog(s, "Z"))
        #expect(log.badLines.isEmpty, "lines that are not valid log entries: \(log.badLines.prefix(3))")
        #expect(log.tail.isEmpty, "the log ends without a final newline: \(log.tailText)")
        #expect(log.lines.count == 2000, "the log has \(log.lines.count) lines for 2,000 acknowledged saves")
        #expect(log.lines.map(\.seq) == Array(2...2001), "seq is not 2…2,001 in order: \(log.seqProblem ?? "")")
        #expect(Set(log.lines.compactMap(\.changeTag)).count == 2000, "change tags in the log are not unique")
        let badSet = Set(badNames)
        let leaked = log.lines.filter { badSet.contains($0.recordName) }.map(\.recordName)
        #expect(leaked.isEmpty, "records of failed atomic batches are in the log: \(leaked.prefix(5))")
        for start in stride(from: 0, to: log.lines.count, by: 25) {
            let group = log.lines[start ..< min(start + 25, log.lines.count)]
            let prefix = group.first.map { $0.recordName.split(separator: "-").prefix(2).joined(separator: "-") } ?? ""
            #expect(group.first?.batch == 25 && group.dropFirst().allSatisfy { $0.batch == nil },
                    "line \(start + 1): a request of 25 should start here with \"batch\": 25")
            #expect(group.map(\.recordName) == (0..<25).map { "\(prefix)-\($0)" },
                    "lines \(start + 1)…\(start + 25) are not one whole batch in order: \(group.map(\.recordName).prefix(4))…")
        }

        // ck reads back every good record and none of the bad batches' records.
        let all = try s.runCK(["-z", "Z", "record", "fetch"] + goodNames)
        #expect(all.status == 0, "fetch of all 2,000: exit \(all.status): \(all.stderr.prefix(500))")
        let fetched = all.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
        #expect(fetched.map { $0[0] } == goodNames)
        for cols in fetched {
            let parts = cols[0].dropFirst().split(separator: "-").compactMap { Int($0) }  // q<p>-<b>-<i>
            #expect(cols.last == "v=\(parts[0] * 1000 + parts[1] * 25 + parts[2])", "\(cols[0]): \(cols.joined(separator: " "))")
        }
        let none = try s.runCK(["-z", "Z", "record", "fetch", "-o", "json"] + badNames)
        #expect(none.status == 10)
        #expect(none.stderr.contains("\"reason\":\"Failed to fetch 400 of 400 records\""), "\(none.stderr.prefix(300))")
    }

    /// While two writers update four records (every update sets a and b to the same number), three readers
    /// fetch all four as JSON over and over, one of them with the index off (a fold of the whole log). Every
    /// read must succeed, parse, and show a == b; per reader and record, change tags and each writer's counter
    /// never go backwards.
    @Test func readersNextToWritersSeeOnlyWholeRecords() throws {
        let s = try Sandbox()
        let names = (0..<4).map { "m\($0)" }
        let seed = names.map { #"{"recordName":"\#($0)","recordType":"Pair","fields":{"a":{"value":0,"type":"INT64"},"b":{"value":0,"type":"INT64"}}}"# }
        let created = try s.runCK(["record", "save", "--batch", "-"], stdin: seed.joined(separator: "\n"))
        #expect(created.status == 0, "\(created.stderr)")
        // Writer 1: 40 single saves, one record each, values 1000+i. Writer 2: 24 batches updating all four, values 2000+i.
        let single = CKWriterLoop(CKLaunch(s), (0..<40).map { i in
            CKJob("single \(i)", ["record", "save", "Pair", "--name", names[i % 4], "--policy", "all-keys", "a:int64=\(1000 + i)", "b:int64=\(1000 + i)"])
        })
        let batch = CKWriterLoop(CKLaunch(s), (0..<24).map { i in
            let lines = names.map { #"{"operationType":"forceUpdate","record":{"recordName":"\#($0)","recordType":"Pair","fields":{"a":{"value":\#(2000 + i)},"b":{"value":\#(2000 + i)}}}}"# }
            return CKJob("batch \(i)", ["record", "save", "--batch", "-"], stdin: lines.joined(separator: "\n") + "\n")
        })
        let writing = CKFlag()
        writing.set(true)
        let readers = (0..<3).map { k in
            CKWriterLoop(CKLaunch(s), repeating: CKJob("reader \(k)", ["record", "fetch", "-o", "json"] + names, env: k == 2 ? ["CK_INDEX": "off"] : [:]),
                         while: writing, atLeast: 5)
        }
        defer { (readers + [single, batch]).forEach { $0.stop(kill: true) } }
        readers.forEach { $0.start() }
        single.start(); batch.start()
        single.wait(); batch.wait()
        writing.set(false)
        readers.forEach { $0.wait() }

        for w in [single, batch] {
            for r in w.results { #expect(r.status == 0 && r.unexpectedStderr.isEmpty, "\(r.label): exit \(r.status): \(r.stderr)") }
        }
        #expect(single.results.count == 40 && batch.results.count == 24)
        var reads = 0
        for reader in readers {
            var lastTag: [String: Int] = [:], lastCount: [String: Int] = [:]  // record → tag; "record/writer" → counter
            for r in reader.results {
                guard r.status == 0, r.unexpectedStderr.isEmpty else { Issue.record("\(r.label): exit \(r.status): \(r.stderr)"); continue }
                guard let got = try? JSONRecords(r.stdout) else { Issue.record("\(r.label): not JSON: \(r.stdout.prefix(300))"); continue }
                reads += 1
                #expect(got.list.map(\.name) == names, "\(r.label): fetched \(got.list.map(\.name))")
                for rec in got.list {
                    let a = rec.int("a"), b = rec.int("b")
                    #expect(a != nil && a == b, "\(r.label): \(rec.name) is not whole: a=\(a ?? -1) b=\(b ?? -1)")
                    guard let a, let tag = rec.changeTag.flatMap({ Int($0, radix: 36) }) else { continue }
                    #expect(a == 0 || (1000..<1040).contains(a) || (2000..<2024).contains(a), "\(r.label): \(rec.name) has a value no writer wrote: \(a)")
                    #expect(tag >= lastTag[rec.name, default: 0], "\(r.label): \(rec.name)'s change tag went back from \(lastTag[rec.name] ?? 0) to \(tag)")
                    lastTag[rec.name] = tag
                    let key = "\(rec.name)/\(a / 1000)"
                    #expect(a >= lastCount[key, default: 0], "\(r.label): \(rec.name) went back from \(lastCount[key] ?? 0) to \(a)")
                    lastCount[key] = a
                }
            }
        }
        #expect(reads >= 15, "only \(reads) successful reads")
        // Afterwards each record holds its last update, whole.
        let final = try JSONRecords(try s.runCK(["record", "fetch", "-o", "json"] + names).stdout)
        let log = try ZoneLogFile(StorePaths.zoneLog(s, "_defaultZone"))
        #expect(log.badLines.isEmpty && log.tail.isEmpty)
        #expect(log.lines.count == 4 + 40 + 24 * 4, "one log line per save: \(log.lines.count)")
        #expect(log.lines.map(\.seq) == Array(1...(4 + 40 + 96)), "seq problem: \(log.seqProblem ?? "")")
        for rec in final.list {
            let last = log.lines.last { $0.recordName == rec.name }
            #expect(rec.int("a") == rec.int("b") && rec.int("a") == last?.int("a"), "\(rec.name): a=\(rec.int("a") ?? -1) b=\(rec.int("b") ?? -1), last logged \(last?.int("a") ?? -1)")
            #expect(rec.changeTag == last?.changeTag)
        }
    }
}

// MARK: - Helpers for ConcurrencyTests and CrashTests

enum StorePaths {
    /// The user record name of the user `default` (docs/store.md §4).
    static let defaultUser = "_38691fd977d484b8b25e1808632b7d11"
    static func env(_ s: Sandbox) -> String { s.dir + "/store/containers/iCloud.ck.default/development" }
    static func zoneLog(_ s: Sandbox, _ zone: String) -> String { env(s) + "/private/\(defaultUser)/\(zone).jsonl" }
}

/// What a thread needs to start `ck` in a sandbox (the sandbox itself is not Sendable).
struct CKLaunch: Sendable {
    let dir: String
    let environment: [String: String]
    init(_ s: Sandbox) { dir = s.dir; environment = s.environment }
}

/// One `ck` invocation to run.
struct CKJob: Sendable {
    let label: String
    let args: [String]
    let stdin: String?
    let env: [String: String]
    /// Run under strace, killed (SIGKILL) on entry to the `occurrence`-th call named `call` (it completes if it
    /// makes fewer): a kill point that does not depend on timing.
    var killAt: (call: String, occurrence: Int)? = nil
    init(_ label: String, _ args: [String], stdin: String? = nil, env: [String: String] = [:]) {
        self.label = label; self.args = args; self.stdin = stdin; self.env = env
    }
}

struct CKOutcome: Sendable {
    let label: String
    let pid: Int32
    let status: Int32
    /// Ended by SIGKILL (sent by the test).
    let killed: Bool
    let stdout: String
    let stderr: String
}

extension CKOutcome {
    /// stderr without the notice of a writer that waited over a second for the lock: how long a writer waits
    /// depends on the machine's load, so tests of many writers at once don't count it.
    var unexpectedStderr: String {
        stderr.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("ck: waiting for another ck to finish with the store (") }.joined(separator: "\n")
    }
}

/// A `ck` process started without waiting for it, so that a test can run many at once and kill one.
final class CKChild: @unchecked Sendable {
    private static let ignoreSIGPIPE: Void = { signal(SIGPIPE, SIG_IGN); return () }()
    let job: CKJob
    let process = Process()
    /// Signalled once all of stdin is in the pipe (the child has read all but the last pipe buffer of it).
    let inputWritten = DispatchSemaphore(value: 0)
    private static let spawnLock = NSLock()
    private let streams = DispatchGroup()
    private var out = Data(), err = Data()

    init(_ launch: CKLaunch, _ job: CKJob) throws {
        _ = Self.ignoreSIGPIPE  // a child killed before reading its stdin must not take the test down
        self.job = job
        if let (call, occurrence) = job.killAt, let strace = RequiredTool.path("strace") {
            // -D: strace runs as a detached grandchild, so ck keeps this process's pid and its exit status.
            process.executableURL = URL(fileURLWithPath: strace)
            process.arguments = ["-D", "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + call,
                                 "-e", "inject=\(call):signal=KILL:when=\(occurrence)", "--", Sandbox.binary] + job.args
        } else {
            process.executableURL = URL(fileURLWithPath: Sandbox.binary)
            process.arguments = job.args
        }
        process.environment = launch.environment.merging(job.env) { $1 }
        process.currentDirectoryURL = URL(fileURLWithPath: launch.dir)
        // Foundation's Process.run() on Linux can crash when other threads open file descriptors while it
        // runs (seen here as a memcpy fault inside run()), so the pipes and the spawn of every child of these
        // suites happen one at a time.
        Self.spawnLock.lock()
        defer { Self.spawnLock.unlock() }
        let outPipe = Pipe(), errPipe = Pipe()
        let inPipe: Pipe? = job.stdin == nil ? nil : Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = inPipe ?? FileHandle.nullDevice
        try process.run()
        streams.enter()
        Thread.detachNewThread { self.out = outPipe.fileHandleForReading.readDataToEndOfFile(); self.streams.leave() }
        streams.enter()
        Thread.detachNewThread { self.err = errPipe.fileHandleForReading.readDataToEndOfFile(); self.streams.leave() }
        if let inPipe, let text = job.stdin {
            streams.enter()
            Thread.detachNewThread {
                let fd = inPipe.fileHandleForWriting.fileDescriptor
                let bytes = Array(text.utf8)
                var done = 0
                while done < bytes.count {
                    let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, bytes.count - done) }
                    if n < 0 && errno == EINTR { continue }
                    if n <= 0 { break }  // EPIPE: the child is gone
                    done += n
                }
                try? inPipe.fileHandleForWriting.close()
                self.inputWritten.signal()
                self.streams.leave()
            }
        } else {
            inputWritten.signal()
        }
    }

    var pid: Int32 { process.processIdentifier }

    /// SIGKILL, if the process has not ended yet.
    func kill() {
        if process.isRunning { _ = Glibc.kill(process.processIdentifier, SIGKILL) }
    }

    func wait() -> CKOutcome {
        streams.wait()
        // Not a terminationHandler, and waitUntilExit() at the end: without it Foundation keeps the Process
        // and its pipes (two file descriptors per child) until the test process ends.
        while process.isRunning { usleep(500) }
        process.waitUntilExit()
        let killed = process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL
        return CKOutcome(label: job.label, pid: process.processIdentifier, status: process.terminationStatus, killed: killed,
                         stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}

extension Sandbox {
    /// Runs ck like `run(_:stdin:)`, but as a `CKChild`, so that its spawn is serialised with the other
    /// children of these suites.
    func runCK(_ args: [String], stdin: String? = nil) throws -> Result {
        let o = try CKChild(CKLaunch(self), CKJob(args.joined(separator: " "), args, stdin: stdin)).wait()
        return Result(status: o.status, stdout: o.stdout, stderr: o.stderr)
    }

    func serialCK(_ args: String..., stdin: String? = nil) throws -> Result { try runCK(args, stdin: stdin) }
}

/// A thread-safe boolean.
final class CKFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set(_ v: Bool) { lock.lock(); value = v; lock.unlock() }
    func get() -> Bool { lock.lock(); defer { lock.unlock() }; return value }
}

/// One writer (or reader): a thread that runs its jobs one after the other, each as its own `ck` process,
/// until they are done or `stop(kill:)` is called.
final class CKWriterLoop: @unchecked Sendable {
    private let launch: CKLaunch
    private let jobs: [CKJob]
    private let repeating: (flag: CKFlag, atLeast: Int)?
    private let lock = NSLock()
    private var stopped = false
    private var current: CKChild?
    private var outcomes: [CKOutcome] = []
    private let finished = DispatchSemaphore(value: 0)

    init(_ launch: CKLaunch, _ jobs: [CKJob]) {
        self.launch = launch; self.jobs = jobs; repeating = nil
    }

    /// Runs `job` again and again while `flag` is set, and at least `atLeast` times.
    init(_ launch: CKLaunch, repeating job: CKJob, while flag: CKFlag, atLeast: Int) {
        self.launch = launch; jobs = [job]; repeating = (flag, atLeast)
    }

    func start() {
        Thread.detachNewThread { [self] in
            var n = 0
            while true {
                let job: CKJob
                if let repeating {
                    if n >= repeating.atLeast && !repeating.flag.get() { break }
                    job = jobs[0]
                } else {
                    if n >= jobs.count { break }
                    job = jobs[n]
                }
                n += 1
                lock.lock()
                if stopped { lock.unlock(); break }
                let child: CKChild
                do { child = try CKChild(launch, job) } catch {
                    outcomes.append(CKOutcome(label: job.label, pid: 0, status: -1, killed: false, stdout: "", stderr: "could not start ck: \(error)"))
                    lock.unlock()
                    break
                }
                current = child
                lock.unlock()
                let outcome = child.wait()
                lock.lock()
                current = nil
                outcomes.append(outcome)
                lock.unlock()
            }
            finished.signal()
        }
    }

    /// Starts no further job; with `kill`, SIGKILLs the one running now.
    func stop(kill: Bool) {
        lock.lock()
        stopped = true
        if kill { current?.kill() }
        lock.unlock()
    }

    /// Waits for the loop to end. A loop still running after `timeout` seconds (a hung ck) is killed and reported.
    func wait(timeout: Double = 120) {
        if finished.wait(timeout: .now() + timeout) == .timedOut {
            lock.lock()
            let label = current?.job.label ?? "?"
            lock.unlock()
            Issue.record("a ck process was still running after \(Int(timeout)) s: \(label); killed")
            stop(kill: true)
            finished.wait()
        }
        finished.signal()
    }

    /// The outcome of each job started, in order (call after `wait()`).
    var results: [CKOutcome] { lock.lock(); defer { lock.unlock() }; return outcomes }
}

/// One complete line of a zone log.
struct LogLine {
    let number: Int
    let seq: Int
    let op: String
    let batch: Int?
    let recordName: String
    let changeTag: String?
    let fields: [String: Any]
    /// The line's text, without its newline.
    let text: String
    /// Byte offsets of the line in the file: where it starts, and where its newline is.
    let start: Int
    let end: Int
    func int(_ field: String) -> Int? { ((fields[field] as? [String: Any])?["value"] as? NSNumber)?.intValue }
    func string(_ field: String) -> String? { (fields[field] as? [String: Any])?["value"] as? String }
}

/// A zone log read with the test's own JSON parsing (Foundation's), not ck's.
struct ZoneLogFile {
    /// Complete lines (ending in a newline) that parse as log entries, in file order.
    var lines: [LogLine] = []
    /// Complete lines that are not valid JSON or lack seq/op: (line number, text).
    var badLines: [(Int, String)] = []
    /// The bytes after the last newline (empty when the file ends with one).
    var tail = Data()
    /// The number of newlines in the part read.
    var newlineCount = 0

    init(_ path: String) throws {
        self.init(data: try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Reads `data` from byte `from` on (a line boundary); the first line there is line `firstLine`.
    init(data: Data, from: Int = 0, firstLine: Int = 1) {
        var starts: [(Int, Int)] = []  // (start, newline)
        data.withUnsafeBytes { (buf: UnsafeRawBufferPointer) in
            guard let base = buf.baseAddress else { return }
            var i = from
            while i < buf.count, let nl = memchr(base + i, 0x0A, buf.count - i) {
                let at = base.distance(to: UnsafeRawPointer(nl))
                starts.append((i, at))
                i = at + 1
            }
        }
        newlineCount = starts.count
        for (k, (start, end)) in starts.enumerated() where end > start {
            let slice = data.subdata(in: start..<end)
            if let line = Self.parse(slice, number: firstLine + k, start: start, end: end) { lines.append(line) } else {
                badLines.append((firstLine + k, String(decoding: slice.prefix(200), as: UTF8.self)))
            }
        }
        tail = data.subdata(in: (starts.last.map { $0.1 + 1 } ?? from)..<data.count)
    }

    static func parse(_ bytes: Data, number: Int, start: Int = 0, end: Int = 0) -> LogLine? {
        guard let obj = (try? JSONSerialization.jsonObject(with: bytes)) as? [String: Any],
              let seq = (obj["seq"] as? NSNumber)?.intValue, let op = obj["op"] as? String else { return nil }
        let record = obj["record"] as? [String: Any]
        guard let name = (record?["recordName"] ?? obj["recordName"]) as? String else { return nil }
        return LogLine(number: number, seq: seq, op: op, batch: (obj["batch"] as? NSNumber)?.intValue, recordName: name,
                       changeTag: record?["recordChangeTag"] as? String, fields: record?["fields"] as? [String: Any] ?? [:],
                       text: String(decoding: bytes, as: UTF8.self), start: start, end: end)
    }

    /// A last line without its newline that is not valid JSON: what a crash in the middle of an append leaves.
    var tailIsTorn: Bool { !tail.isEmpty && (try? JSONSerialization.jsonObject(with: tail)) == nil }
    var tailText: String { String(decoding: tail.prefix(120), as: UTF8.self) }
    /// The last line without newline, when it parses as a log entry (ck keeps such a line).
    var tailLine: LogLine? { tail.isEmpty || tailIsTorn ? nil : Self.parse(tail, number: lines.last.map { $0.number + 1 } ?? 1) }

    /// The first place where seq does not increase, if any.
    var seqProblem: String? {
        for (a, b) in zip(lines, lines.dropFirst()) where b.seq <= a.seq {
            return "line \(b.number) has seq \(b.seq) after \(a.seq)"
        }
        return nil
    }

    /// The first line of a request of several lines that the file ends before finishing (docs/store.md §7),
    /// counting a last line without newline that parses as whole.
    var incompleteRequest: LogLine? {
        // Only a last line without its newline marks a cut write; a log ending with a whole line is all data.
        guard !tail.isEmpty else { return nil }
        let all = lines + (tailLine.map { [$0] } ?? [])
        guard let start = all.lastIndex(where: { $0.batch != nil }), let n = all[start].batch else { return nil }
        return all.count - start < n ? all[start] : nil
    }
}

/// The `records` of `ck record fetch -o json`.
struct JSONRecords {
    struct Record {
        let name: String
        let changeTag: String?
        let fields: [String: Any]
        func int(_ field: String) -> Int? { ((fields[field] as? [String: Any])?["value"] as? NSNumber)?.intValue }
        func string(_ field: String) -> String? { (fields[field] as? [String: Any])?["value"] as? String }
    }
    let list: [Record]
    var count: Int { list.count }

    struct NotRecords: Error { let text: String }

    init(_ text: String) throws {
        guard let obj = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let records = obj["records"] as? [[String: Any]] else { throw NotRecords(text: String(text.prefix(300))) }
        list = try records.map { r in
            guard let name = r["recordName"] as? String else { throw NotRecords(text: "\(r)") }
            return Record(name: name, changeTag: r["recordChangeTag"] as? String, fields: r["fields"] as? [String: Any] ?? [:])
        }
    }
}
