import Foundation
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// Requests answered in place on the event loop (docs/serve.md, "Listening"): reads while their store lock is free,
/// and the control plane's health and request log; a read that finds the lock taken by the command line goes to a
/// worker that waits for it, and holds up nobody meanwhile. The request log says which way each went (`inPlace`).
@Suite struct ServeInPlaceTests {
    static let lookup = "/database/1/iCloud.ck.default/development/public/records/lookup"
    static let modify = "/database/1/iCloud.ck.default/development/public/records/modify"
    static let body = #"{"records":[{"recordName":"a"}]}"#

    /// The log's entries, oldest first.
    func log(_ s: ServeSession) throws -> [JSON] {
        let list = try s.server.get("/_ck/requests")
        try #require(list.status == 200, "\(list.text)")
        return list.json["requests"]?.arrayValue ?? []
    }

    /// How many flock waiters process `pid` has on `path`, from /proc/locks ("1: -> FLOCK  ADVISORY  READ 1234
    /// 08:01:56789 0 EOF": a line with "->" waits).
    func waiters(on path: String, pid: Int32) -> Int {
        var st = stat()
        guard stat(path, &st) == 0, let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8) else { return -1 }
        return table.split(separator: "\n").filter { line in
            let f = line.split(separator: " ")
            return f.count >= 7 && f[1] == "->" && f[2] == "FLOCK" && f[5] == Substring(String(pid))
                && f[6].split(separator: ":").last == Substring(String(st.st_ino))
        }.count
    }

    /// Polls for a condition (a wait for an event, not a speed check: 60 s is far beyond what any run needs, even
    /// with the whole suite running on 2 cores, where 15 s once ran out).
    func waitFor(_ what: String, _ condition: () -> Bool) throws {
        let deadline = Date().addingTimeInterval(60)
        while !condition() {
            guard Date() < deadline else { throw ServeError("timed out waiting for \(what)") }
            usleep(10_000)
        }
    }

    @Test func readsWaitOnAWorkerWhileTheCLIHoldsTheLockAndHealthStillAnswersOnTheLoop() throws {
        let s = try ServeSession(setup: [["--db", "public", "record", "save", "Note", "--name", "a", "title=one"]], serve: ["--no-auth"])
        let lock = s.sandbox.dir + "/store/containers/iCloud.ck.default/development/.lock"
        try #require(FileManager.default.fileExists(atPath: lock))

        // The lock free: a lookup and health are answered in place; a modify (a write, which waits for its fsync)
        // goes to a worker.
        let first = try s.server.post(Self.lookup, json: Self.body)
        try #require(first.status == 200, "\(first.text)")
        #expect(first.json["records"]?.arrayValue?.first?["recordName"] == .string("a"))
        #expect(try s.server.get("/_ck/health").status == 200)
        let save = #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"a","recordType":"Note","fields":{"title":{"value":"two"}}}}]}"#
        let saved = try s.server.post(Self.modify, json: save)
        try #require(saved.status == 200, "\(saved.text)")
        var entries = try log(s)
        try #require(entries.count == 3, "\(entries)")
        #expect(entries.map { $0["operation"]?.stringValue } == ["records/lookup", "control/health", "records/modify"])
        #expect(entries.map { $0["inPlace"] } == [.bool(true), .bool(true), nil])

        // The command line holds the lock (as a long import would): lookups wait, each on a worker.
        let holder = try FlockHolder(lock)
        let clients = 6
        let replies = Mutex<[Int: HTTPClientReply]>([:])
        let done = DispatchGroup()
        for i in 0..<clients {
            let port = s.server.port
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                if let r = try? HTTPClient.request(port: port, "POST", Self.lookup, headers: [("Content-Type", "application/json")],
                                                   body: Array(Self.body.utf8), timeout: 60) {
                    replies.withLock { $0[i] = r }
                }
            }
        }
        // Every lookup is queued on the lock (a waiter in /proc/locks) before anything else is checked.
        do {
            try waitFor("\(clients) lookups to wait for the lock") { waiters(on: lock, pid: s.server.process.processIdentifier) == clients }
        } catch {
            // What the server was doing instead, for the failure's message.
            var st = stat()
            _ = stat(lock, &st)
            let locks = ((try? String(contentsOfFile: "/proc/locks", encoding: .utf8)) ?? "").split(separator: "\n")
                .filter { $0.contains(":\(st.st_ino) ") }
            let pid = s.server.process.processIdentifier
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            let states = tasks.map { t in ((try? String(contentsOfFile: "/proc/\(pid)/task/\(t)/wchan", encoding: .utf8)) ?? "?") }
            let answered = replies.withLock { $0.map { "\($0.key): \($0.value.status) \($0.value.text.prefix(200))" } }
            Issue.record("\(error); holder pid \(holder.pid), server pid \(pid); locks on the inode: \(locks); server threads: \(states); answered: \(answered); log: \((try? log(s))?.map { "\($0["operation"] ?? .null) \($0["status"] ?? .null)" } ?? [])")
            throw error
        }
        // Meanwhile health and the log answer, many times over, on the loop the lookups arrived on.
        for _ in 0..<20 { #expect(try s.server.get("/_ck/health").status == 200) }
        entries = try log(s)
        #expect(entries.count == 3 + 20, "no lookup is logged while the lock is held")
        #expect(entries.dropFirst(3).allSatisfy { $0["operation"] == .string("control/health") && $0["inPlace"] == .bool(true) })
        #expect(replies.withLock { $0.isEmpty }, "no lookup is answered while the lock is held")

        holder.release()
        #expect(done.wait(timeout: .now() + 60) == .success)
        let got = replies.withLock { $0 }
        #expect(got.count == clients)
        for r in got.values {
            #expect(r.status == 200, "\(r.text)")
            #expect(r.json["records"]?.arrayValue?.first?["fields"]?["title"]?["value"] == .string("two"))
        }

        // The lookups that waited went to workers; once the lock is free again a lookup is answered in place.
        #expect(try s.server.post(Self.lookup, json: Self.body).status == 200)
        entries = try log(s)
        try #require(entries.count == 3 + 20 + clients + 1, "\(entries.count) entries")
        let waited = entries[(3 + 20)..<(3 + 20 + clients)]
        #expect(waited.allSatisfy { $0["operation"] == .string("records/lookup") && $0["inPlace"] == nil && $0["status"] == .int(200) })
        #expect(entries.last?["inPlace"] == .bool(true))
        // One entry each, in order, numbered from 1 with none skipped: the dropped first tries left no trace.
        #expect(entries.compactMap { $0["seq"]?.int64Value } == Array(1...Int64(entries.count)))
    }
}
