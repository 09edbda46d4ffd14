import Foundation
import Testing
import CKModel

/// The store's clock through the built binary: CK_NOW, `ck clock`, fault rules that throttle by time, query cursors
/// that expire, and `ck serve` following the clock. Expected instants are written by hand (ms since 1970).
@Suite struct StoreClockTests {
    // Instants are in 2099 so that setting the clock to them moves it forward from the real time:
    // 2099-01-01T00:00:00Z is 4_070_908_800_000 ms since 1970 (47_117 days).

    /// A record's `created` and `modified` timestamps as `ck record fetch -o json` prints them.
    func stamps(_ s: Sandbox, _ name: String, _ extra: [String] = []) throws -> (created: Int64?, modified: Int64?) {
        let r = try s.run(extra + ["record", "fetch", name, "-o", "json"])
        let record = (try JSON.parse(r.stdout))["records"]?.arrayValue?.first
        return (record?["created"]?["timestamp"]?.int64Value, record?["modified"]?["timestamp"]?.int64Value)
    }

    @Test func ckNowPinsTheTimesOfOneCommand() throws {
        let s = try Sandbox()
        #expect(try s.run(["record", "save", "Note", "--name", "a", "t=1"], env: ["CK_NOW": "2099-01-01T00:00:00Z"]).status == 0)
        #expect(try stamps(s, "a") == (4_070_908_800_000, 4_070_908_800_000))
        // Milliseconds work too, and only for the command that has them.
        #expect(try s.run(["record", "save", "Note", "--name", "a", "t=2", "--policy", "changed-keys"], env: ["CK_NOW": "4070908800123"]).status == 0)
        #expect(try stamps(s, "a") == (4_070_908_800_000, 4_070_908_800_123))
        // A TIMESTAMP written `now` is the same instant, on the server and in a device's edit.
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        #expect(try s.run(["-z", "Notes", "device", "save", "phone", "Note", "--name", "e", "when:timestamp=now"], env: ["CK_NOW": "4070908800000"]).status == 0)
        let edit = try s.ck("device", "records", "phone", "-o", "json")
        #expect((try JSON.parse(edit.stdout))["records"]?.arrayValue?.first?["fields"]?["when"]?["value"] == .int(4_070_908_800_000), "\(edit.stdout)")
        let when = try s.run(["record", "save", "Note", "--name", "d", "when:timestamp=now", "-o", "json"], env: ["CK_NOW": "2099-01-01T00:00:00Z"])
        #expect((try JSON.parse(when.stdout))["records"]?.arrayValue?.first?["fields"]?["when"]?["value"] == .int(4_070_908_800_000), "\(when.stdout)")
        #expect(try s.ck("record", "save", "Note", "--name", "b", "t=1").status == 0)
        let real = try #require(try stamps(s, "b").created)
        #expect(real > 1_700_000_000_000 && real < 4_070_908_800_000, "without CK_NOW the real time: \(real)")
        let bad = try s.run(["record", "save", "Note", "--name", "c", "t=1"], env: ["CK_NOW": "yesterday"])
        #expect(bad.status == 8)
        #expect(bad.stderr.hasPrefix("ck: invalidArguments (12): CK_NOW: 'yesterday' is not an instant\n"))
    }

    @Test func clockSetAndAdvanceMoveRecordTimes() throws {
        let s = try Sandbox()
        #expect(try s.ck("clock", "set", "2099-01-01T00:00:00Z").stdout == "2099-01-01T00:00:00.000Z\n")
        #expect(try s.ck("record", "save", "Note", "--name", "a", "t=1").status == 0)
        #expect(try s.ck("clock", "advance", "1h30m").stdout == "2099-01-01T01:30:00.000Z\n")
        #expect(try s.ck("record", "save", "Note", "--name", "a", "t=2", "--policy", "changed-keys").status == 0)
        #expect(try stamps(s, "a") == (4_070_908_800_000, 4_070_914_200_000))
        #expect(try s.ck("clock", "show", "-o", "plain").stdout == "2099-01-01T01:30:00.000Z\t4070914200000\tfixed\n")
        let json = try JSON.parse(try s.ck("clock", "show", "-o", "json").stdout)
        #expect(json == .object(["now": .int(4_070_914_200_000), "time": .string("2099-01-01T01:30:00.000Z"),
                                 "mode": .string("fixed"), "fixed": .int(4_070_914_200_000)]))
        // The file is the store's, beside ck.json.
        let file = try String(contentsOfFile: s.dir + "/store/clock.json", encoding: .utf8)
        #expect(file.contains("\"fixed\" : 4070914200000") || file.contains("\"fixed\": 4070914200000"), "\(file)")
        #expect(try s.ck("clock", "advance", "soon").status == 64)
    }

    @Test func movingTheClockBackIsRefusedUnlessAsked() throws {
        let s = try Sandbox()
        #expect(try s.ck("clock", "set", "2099-01-01T00:00:00Z").status == 0)
        let back = try s.ck("clock", "set", "2098-12-31T23:00:00Z")
        #expect(back.status == 8)
        #expect(back.stderr.hasPrefix("ck: invalidArguments (12): setting the clock to 2098-12-31T23:00:00.000Z would move the store's clock back by 1h, from 2099-01-01T00:00:00.000Z to 2098-12-31T23:00:00.000Z: records saved from now on would be older than those already saved, and modification times would go back\n"))
        #expect(back.stderr.contains("hint: add --backwards"))
        #expect(try s.ck("clock", "show", "-o", "plain").stdout.hasPrefix("2099-01-01T00:00:00.000Z\t"), "nothing changed")
        // Resetting to the real time from a clock ahead of it goes back too.
        #expect(try s.ck("clock", "reset").status == 8)
        #expect(try s.ck("clock", "set", "2098-12-31T23:00:00Z", "--backwards").status == 0)
        #expect(try s.ck("clock", "show", "-o", "plain").stdout.hasPrefix("2098-12-31T23:00:00.000Z\t"))
        #expect(try s.ck("clock", "reset", "--backwards").status == 0)
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/store/clock.json"), "the real time needs no file")
        #expect(try s.ck("clock", "show", "-o", "plain").stdout.hasSuffix("\treal\n"))
    }

    /// A store with zone Notes and the clock fixed at New Year 2099.
    func throttled() throws -> Sandbox {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        s.environment["CK_ZONE"] = "Notes"
        #expect(try s.ck("clock", "set", "2099-01-01T00:00:00Z").status == 0)
        return s
    }

    @Test func aThrottleRefusesAgainUntilTheClockPassesRetryAfter() throws {
        let s = try throttled()
        #expect(try s.ck("fault", "add", "--error", "requestRateLimited", "--times", "1", "--retry-after", "30").stdout == "f1\n")
        let first = try s.ck("record", "save", "Note", "--name", "a", "t=1")
        #expect(first.status == 5)
        #expect(first.stderr == "ck: requestRateLimited (7): injected fault f1: the client is being rate limited\nretry after 30.0 seconds\n")
        // An app that retries at once is refused again: the window lasts until the retryAfter has passed.
        let again = try s.ck("record", "save", "Note", "--name", "a", "t=1")
        #expect(again.status == 5)
        #expect(again.stderr.hasSuffix("retry after 30.0 seconds\n"))
        #expect(try s.ck("clock", "advance", "10s").status == 0)
        let later = try s.ck("record", "save", "Note", "--name", "a", "t=1", "-o", "json")
        #expect(later.status == 5)
        #expect(later.stderr.contains(#""retryAfter":20"#), "the time left: \(later.stderr)")
        #expect(try s.ck("fault", "list", "-o", "plain").stdout == "f1\trequestRateLimited\tany operation\t1 more window, throttling until 2099-01-01T00:00:30.000Z\t3\n")
        #expect(try s.ck("clock", "advance", "19999ms").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "a", "t=1").status == 5, "1 ms left")
        #expect(try s.ck("clock", "advance", "1ms").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "a", "t=1", "-o", "plain").stdout == "a\tNote\t2\tNotes\tt=1\n")
        #expect(try s.ck("fault", "list", "-o", "plain").stdout.isEmpty, "one window, then the rule is gone")
    }

    @Test func timesTwoGivesTwoWindows() throws {
        let s = try throttled()
        #expect(try s.ck("fault", "add", "--error", "zoneBusy", "--times", "2", "--retry-after", "60", "--op", "fetch").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "a", "t=1").status == 0, "--op fetch: saves pass")
        var statuses: [Int32] = []
        for step in ["0s", "59s", "1s", "30s", "30s", "0s"] {
            #expect(try s.ck("clock", "advance", step).status == 0)
            statuses.append(try s.ck("record", "fetch", "a").status)
        }
        // 0s opens the first window, 59s is inside it, 1m ends it and opens the second, 1m30s is inside it,
        // 2m ends it: the rule is spent, and the fetches that follow pass.
        #expect(statuses == [5, 5, 5, 5, 0, 0])
    }

    @Test func aSyncAgainstAFixedClockSaysWhenToRetry() throws {
        let s = try throttled()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "t=hello").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n2", "t=two").status == 0)
        #expect(try s.ck("fault", "add", "--error", "zoneBusy", "--times", "1", "--retry-after", "3", "--op", "save").status == 0)
        let stopped = try s.ck("sync", "phone")
        #expect(stopped.status == 5)
        #expect(stopped.stderr.contains("sync of phone stopped (the store's clock is fixed, so waiting would not pass retryAfter; retry at 2099-01-01T00:00:03.000Z on the store's clock, after 'ck clock advance'); its 1 pending edit is kept"),
                "\(stopped.stderr)")
        #expect(try s.ck("clock", "advance", "3s").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("record", "fetch", "n2").status == 0)
    }

    @Test func aQueryCursorExpiresAfterAnHourOnTheStoresClock() throws {
        let s = try Sandbox()
        #expect(try s.ck("clock", "set", "2099-01-01T00:00:00Z").status == 0)
        for n in ["a", "b", "c"] { #expect(try s.ck("record", "save", "Note", "--name", n, "t=1").status == 0) }
        let first = try s.ck("query", "Note", "t == 1", "--limit", "2", "-o", "json")
        let cursor = try #require((try JSON.parse(first.stdout))["continuationMarker"]?.stringValue)
        #expect(try s.ck("clock", "advance", "1h").status == 0)
        #expect(try s.ck("query", "Note", "t == 1", "--cursor", cursor, "-o", "name").stdout == "c\n", "an hour old: still good")
        #expect(try s.ck("clock", "advance", "1ms").status == 0)
        let stale = try s.ck("query", "Note", "t == 1", "--cursor", cursor, "-o", "name")
        #expect(stale.status == 8)
        #expect(stale.stderr.hasPrefix("ck: invalidArguments (12): this cursor expired (issued 2099-01-01T00:00:00.000Z, now 2099-01-01T01:00:00.001Z on the store's clock): a query cursor continues its query for 1 hour; start the query again\n"))
        // Starting again gives a fresh cursor that works.
        let again = try s.ck("query", "Note", "t == 1", "--limit", "2", "-o", "json")
        let fresh = try #require((try JSON.parse(again.stdout))["continuationMarker"]?.stringValue)
        #expect(try s.ck("query", "Note", "t == 1", "--cursor", fresh, "-o", "name").stdout == "c\n")
    }

    @Test func aDamagedClockIsReportedAndTheRealTimeUsed() throws {
        let s = try Sandbox()
        #expect(try s.ck("clock", "set", "2099-01-01T00:00:00Z").status == 0)
        try "{\"fixed\": \"soon\"}\n".write(toFile: s.dir + "/store/clock.json", atomically: true, encoding: .utf8)
        let saved = try s.ck("record", "save", "Note", "--name", "a", "t=1")
        #expect(saved.status == 0)
        #expect(saved.stderr.contains("clock.json: \"fixed\" must be an instant in milliseconds since 1970 (years 1 to 9999) (ck goes on with the real time"), "\(saved.stderr)")
        let created = try #require(try stamps(s, "a").created)
        #expect(created < 4_070_908_800_000)
        let doctor = try s.ck("doctor", "-o", "plain")
        #expect(doctor.status == 1)
        #expect(doctor.stdout.hasPrefix("problem\t\(s.dir)/store/clock.json\t\"fixed\" must be an instant"), "\(doctor.stdout)")
        let show = try s.ck("clock", "show")
        #expect(show.status == 1 && show.stderr.contains("clock.json: \"fixed\" must be an instant"), "\(show.stderr)")
        #expect(try s.ck("clock", "advance", "1s").status == 1, "nothing to advance from")
        // What the warning says to do: reset replaces the damaged file (ck has been on the real time).
        #expect(try s.ck("clock", "reset").status == 0)
        #expect(!FileManager.default.fileExists(atPath: s.dir + "/store/clock.json"))
        #expect(try s.ck("doctor").status == 0)
    }
}

extension StoreClockTests {
    /// A query's now — now() in the predicate, an argument `now` — is the store's clock.
    @Test func aQuerysNowIsTheStoresClock() throws {
        let s = try Sandbox()
        #expect(try s.ck("record", "save", "Note", "--name", "past", "when:timestamp=2098-12-31T00:00:00Z").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "future", "when:timestamp=2099-01-02T00:00:00Z").status == 0)
        #expect(try s.ck("clock", "set", "2099-01-01T00:00:00Z").status == 0)
        #expect(try s.ck("query", "Note", "when < now()", "-o", "name").stdout == "past\n")
        #expect(try s.ck("query", "Note", "when < %@", "--arg", "now", "-o", "name").stdout == "past\n")
        #expect(try s.ck("clock", "advance", "2d").status == 0)
        #expect(try s.ck("query", "Note", "when < now()", "-o", "name").stdout.split(separator: "\n").sorted() == ["future", "past"])
    }

    /// lost+found is named by the real time: under a fixed clock two repairs must not share a directory, where the
    /// second move would replace what the first kept.
    @Test func repairsUnderAFixedClockKeepEveryCopy() throws {
        let s = try Sandbox()
        #expect(try s.ck("clock", "set", "2099-01-01T00:00:00Z").status == 0)
        #expect(try s.ck("fault", "add", "--error", "zoneBusy").status == 0)
        let faults = s.dir + "/store/containers/iCloud.ck.default/development/faults.json"
        for damage in ["{ first", "{ second"] {
            try damage.write(toFile: faults, atomically: true, encoding: .utf8)
            #expect(try s.ck("doctor", "--repair").status == 0)
        }
        let kept = s.files(under: s.dir + "/store/lost+found").filter { $0.hasSuffix("faults.json") }
        let texts = try kept.map { try String(contentsOfFile: s.dir + "/store/lost+found/" + $0, encoding: .utf8) }
        #expect(texts.sorted() == ["{ first", "{ second"], "\(kept)")
    }
}

/// The clock as `ck serve` reads it: it follows `ck clock` run from another process, and a continuationMarker
/// expires on it.
@Suite struct ServeClockTests {
    @Test func serveFollowsTheClockAndAContinuationMarkerExpires() throws {
        let f = try WireFixture(setup: [["clock", "set", "2099-01-01T00:00:00Z"]])
        let ops = (1...3).map { #"{"operationType":"create","record":{"recordName":"i\#($0)","recordType":"Item","fields":{"n":{"value":\#($0)}}}}"# }
        let saved = WireFixture.records(try f.ok("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[\#(ops.joined(separator: ","))]}"#))
        #expect(saved.map { $0["created"]?["timestamp"]?.int64Value } == [4_070_908_800_000, 4_070_908_800_000, 4_070_908_800_000])
        try f.cli("schema", "index", "Item", "___recordID", "--queryable")
        let query = #""resultsLimit":2,"query":{"recordType":"Item","sortBy":[{"fieldName":"n"}]}}"#
        let page = try f.ok("records/query", #"{"zoneID":{"zoneName":"Z"},\#(query)"#)
        let marker = try #require(page["continuationMarker"]?.stringValue)
        // Moved by another process: the server reads the new time at its next request.
        try f.cli("clock", "advance", "2h")
        let later = try WireFixture.only(try f.ok("records/modify", #"""
            {"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"create","record":{"recordName":"late","recordType":"Other","fields":{"n":{"value":9}}}}]}
            """#))
        #expect(later["created"]?["timestamp"]?.int64Value == 4_070_916_000_000)
        let reason = try f.refused("records/query", #"{"zoneID":{"zoneName":"Z"},"continuationMarker":"\#(marker)",\#(query)"#,
                                   status: 400, code: "BAD_REQUEST")
        #expect(reason == "this cursor expired (issued 2099-01-01T00:00:00.000Z, now 2099-01-01T02:00:00.000Z on the store's clock): a query cursor continues its query for 1 hour; start the query again")
        let fresh = try #require(try f.ok("records/query", #"{"zoneID":{"zoneName":"Z"},\#(query)"#)["continuationMarker"]?.stringValue)
        let rest = try f.ok("records/query", #"{"zoneID":{"zoneName":"Z"},"continuationMarker":"\#(fresh)",\#(query)"#)
        #expect(WireFixture.records(rest).compactMap { $0["recordName"]?.stringValue } == ["i3"])
    }
}
