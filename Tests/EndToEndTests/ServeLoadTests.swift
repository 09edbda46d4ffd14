import Foundation
import Testing
import CKModel

/// A bounded load on `ck serve` over loopback: 8 client threads each create 50 records with records/modify while
/// the CLI saves 20 records into the same container and zone. Afterwards every acknowledged write (an HTTP 200
/// whose item is a saved record; a CLI exit 0) is there with the change tag it was acknowledged with, both as the
/// server answers records/lookup and as `ck export` reads the store, and the zone holds nothing else. A fixed request
/// count, no timing assertions.
@Suite(.serialized)
struct ServeLoadTests {
    static let container = "iCloud.ck.load"
    static let zone = "Load"
    static let threads = 8
    static let perThread = 50
    static let cliSaves = 20
    /// Answers a client under load may get and should retry (web-services.md §9.3); anything else is a failure.
    static let retryable: Set<String> = ["TRY_AGAIN_LATER", "ZONE_BUSY", "THROTTLED"]

    final class Acks: @unchecked Sendable {
        private let lock = NSLock()
        private(set) var tags: [String: String] = [:]
        private(set) var problems: [String] = []
        private(set) var retryable = 0
        func ack(_ name: String, _ tag: String) { lock.lock(); tags[name] = tag; lock.unlock() }
        func problem(_ p: String) { lock.lock(); problems.append(p); lock.unlock() }
        func retry() { lock.lock(); retryable += 1; lock.unlock() }
    }

    @Test(.timeLimit(.minutes(3)))
    func concurrentHTTPAndCLIWritesAreAllKept() throws {
        nonisolated(unsafe) let sandbox = try Sandbox()
        for args in [["container", "create", Self.container], ["-c", Self.container, "zone", "create", Self.zone]] {
            let r = try sandbox.run(args)
            try #require(r.status == 0, "ck \(args.joined(separator: " ")): \(r.stderr)")
        }
        nonisolated(unsafe) let server = try ServeProcess(sandbox, arguments: ["--no-auth"])
        defer { server.stop() }
        let modify = "/database/1/\(Self.container)/development/private/records/modify"
        let acks = Acks()

        DispatchQueue.concurrentPerform(iterations: Self.threads + 1) { t in
            if t == Self.threads {
                // The CLI, writing to the same store while the server runs.
                for i in 0..<Self.cliSaves {
                    let name = "cli-\(i)"
                    guard let r = try? sandbox.run(["-c", Self.container, "-z", Self.zone, "record", "save", "Item", "--name", name,
                                                    "n=\(i)", "origin=cli", "-o", "json"]) else { acks.problem("\(name): could not run ck"); continue }
                    guard r.status == 0 else { acks.problem("\(name): ck exited \(r.status): \(r.stderr)"); continue }
                    let json = (try? JSON.parse(r.stdout)) ?? .null
                    guard let tag = json["records"]?.arrayValue?.first?["recordChangeTag"]?.stringValue else {
                        acks.problem("\(name): exit 0 but no change tag in: \(r.stdout)")
                        continue
                    }
                    acks.ack(name, tag)
                }
                return
            }
            for i in 0..<Self.perThread {
                let name = "http-\(t)-\(i)"
                let body = #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Item","fields":{"n":{"value":\#(i),"type":"INT64"},"origin":{"value":"http \#(t)","type":"STRING"}}}}],"zoneID":{"zoneName":"\#(Self.zone)"}}"#
                guard let reply = try? server.post(modify, json: body) else { acks.problem("\(name): no HTTP answer"); continue }
                let item = reply.json["records"]?.arrayValue?.first
                if reply.status == 200, let item, item["serverErrorCode"] == nil {
                    guard item["recordName"]?.stringValue == name, let tag = item["recordChangeTag"]?.stringValue, !tag.isEmpty else {
                        acks.problem("\(name): 200 without the saved record: \(reply.text)")
                        continue
                    }
                    acks.ack(name, tag)
                } else {
                    let code = (item?["serverErrorCode"] ?? reply.json["serverErrorCode"])?.stringValue ?? ""
                    if Self.retryable.contains(code) { acks.retry() } else { acks.problem("\(name): HTTP \(reply.status) \(reply.text)") }
                }
            }
        }

        #expect(acks.problems.isEmpty, "\(acks.problems.count) writes failed: \(acks.problems.prefix(5))")
        #expect(server.process.isRunning, "ck serve exited under load")
        let expected = acks.tags
        #expect(expected.count + acks.retryable + acks.problems.count == Self.threads * Self.perThread + Self.cliSaves)

        // As the server answers: every acknowledged record with its acknowledged tag (lookups of at most 200 names).
        let names = expected.keys.sorted()
        var served: [String: String] = [:]
        for start in stride(from: 0, to: names.count, by: 200) {
            let chunk = names[start..<min(names.count, start + 200)]
            let list = chunk.map { #"{"recordName":"\#($0)"}"# }.joined(separator: ",")
            let reply = try server.post("/database/1/\(Self.container)/development/private/records/lookup",
                                        json: #"{"records":[\#(list)],"zoneID":{"zoneName":"\#(Self.zone)"}}"#)
            try #require(reply.status == 200, "records/lookup: \(reply.status) \(String(reply.text.prefix(500)))")
            for item in reply.json["records"]?.arrayValue ?? [] {
                if let n = item["recordName"]?.stringValue, let tag = item["recordChangeTag"]?.stringValue { served[n] = tag }
            }
        }
        let wrongServed = names.filter { served[$0] != expected[$0] }
        #expect(wrongServed.isEmpty, "records/lookup misses or has other tags for \(wrongServed.count) acknowledged writes: \(wrongServed.prefix(5).map { "\($0): acked \(expected[$0] ?? "") served \(served[$0] ?? "nothing")" })")

        // As the CLI reads the store: exactly the acknowledged records, nothing lost and nothing extra.
        let export = try sandbox.run(["-c", Self.container, "export"])
        #expect(export.status == 0, "ck export: \(export.stderr)")
        var stored: [String: String] = [:]
        for entry in (try? JSON.parse(export.stdout))?["records"]?.arrayValue ?? [] {
            let record = entry["record"]
            guard record?["zoneID"]?["zoneName"]?.stringValue == Self.zone, let n = record?["recordName"]?.stringValue else { continue }
            stored[n] = record?["recordChangeTag"]?.stringValue ?? ""
        }
        #expect(stored == expected, "the store differs from what was acknowledged: missing \(Set(expected.keys).subtracting(stored.keys).sorted().prefix(5)), extra \(Set(stored.keys).subtracting(expected.keys).sorted().prefix(5)), other tags \(expected.filter { stored[$0.key] != nil && stored[$0.key] != $0.value }.keys.sorted().prefix(5))")
    }
}
