import Foundation
import Testing

/// Injected faults through the built binary: rules, their counters across processes, batches and sync.
@Suite struct FaultsEndToEndTests {
    func notes() throws -> Sandbox {
        let s = try Sandbox()
        #expect(try s.ck("zone", "create", "Notes").status == 0)
        s.environment["CK_ZONE"] = "Notes"
        return s
    }

    @Test func aTimesTwoThrottleIsSeenTwiceThenGone() throws {
        let s = try notes()
        #expect(try s.ck("clock", "set", "2099-01-01T00:00:00Z").status == 0)
        #expect(try s.ck("fault", "add", "--error", "requestRateLimited", "--times", "2", "--retry-after", "1.5").stdout == "f1\n")
        let first = try s.ck("record", "save", "Note", "--name", "a", "t=1")
        #expect(first.status == 5)
        #expect(first.stderr == "ck: requestRateLimited (7): injected fault f1: the client is being rate limited\nretry after 1.5 seconds\n")
        // Each window lasts its retryAfter on the store's clock (StoreClockTests has the retries inside one).
        #expect(try s.ck("clock", "advance", "1.5s").status == 0)
        let second = try s.ck("record", "save", "Note", "--name", "a", "t=1", "-o", "json")
        #expect(second.status == 5)
        #expect(second.stderr.contains(#""retryAfter":1.5"#) && second.stderr.contains(#""serverErrorCode":"THROTTLED""#))
        #expect(try s.ck("clock", "advance", "1.5s").status == 0)
        #expect(try s.ck("record", "save", "Note", "--name", "a", "t=1", "-o", "plain").stdout == "a\tNote\t2\tNotes\tt=1\n")
        #expect(try s.ck("fault", "list").stdout == "No fault rules.\n" || s.ck("fault", "list").stdout.isEmpty)
    }

    @Test func aSeededProbabilisticRuleGivesTheSameSequenceTwice() throws {
        let s = try notes()
        #expect(try s.ck("record", "save", "Note", "--name", "a", "t=1").status == 0)
        func run() throws -> [Int32] {
            #expect(try s.ck("fault", "add", "--error", "zoneBusy", "--op", "fetch", "--probability", "0.5", "--seed", "42").status == 0)
            let out = try (0..<16).map { _ in try s.ck("record", "fetch", "a").status }
            #expect(try s.ck("fault", "clear").status == 0)
            return out
        }
        let one = try run(), two = try run()
        #expect(one == two)
        #expect(Set(one) == [0, 5], "a probability of 0.5 over 16 draws fired neither always nor never: \(one)")
    }

    @Test func aTimesOneRuleFiresOnceAcrossEightProcesses() throws {
        let s = try notes()
        // No wait: the rule's one throttling window ends at once, so the count is what is tested.
        #expect(try s.ck("fault", "add", "--error", "serviceUnavailable", "--times", "1", "--op", "save", "--retry-after", "0").status == 0)
        let launch = CKLaunch(s)
        let children = try (0..<8).map { i in try CKChild(launch, CKJob("save \(i)", ["record", "save", "Note", "--name", "n\(i)", "i=\(i)"])) }
        let statuses = children.map { $0.wait().status }
        #expect(statuses.filter { $0 == 5 }.count == 1, "\(statuses)")
        #expect(statuses.filter { $0 == 0 }.count == 7, "\(statuses)")
    }

    @Test func recordTargetsGivePartialFailureAndBatchRequestFailedInAnAtomicZone() throws {
        let s = try notes()
        #expect(try s.ck("fault", "add", "--error", "serverRejectedRequest", "--type", "Photo").status == 0)
        let batch = [#"{"recordName":"a","recordType":"Note","fields":{"n":{"value":1}}}"#,
                     #"{"recordName":"p1","recordType":"Photo","fields":{"n":{"value":2}}}"#,
                     #"{"recordName":"c","recordType":"Note","fields":{"n":{"value":3}}}"#].joined(separator: "\n") + "\n"
        let atomic = try s.ck("record", "save", "--batch", "-", stdin: batch)
        #expect(atomic.status == 10)
        #expect(atomic.stderr.hasPrefix("ck: partialFailure (2): Failed to modify some records: 1 of 3 operations were rejected, so the atomic request applied none\n"))
        #expect(atomic.stderr.contains("  a: batchRequestFailed (22)"))
        #expect(atomic.stderr.contains("  p1: serverRejectedRequest (15): injected fault f1"))
        #expect(atomic.stderr.contains("  c: batchRequestFailed (22)"))
        #expect(try s.ck("record", "fetch", "a").status == 3, "an atomic request that failed wrote nothing")
        let loose = try s.ck("record", "save", "--batch", "-", "--no-atomic", "-o", "plain", stdin: batch)
        #expect(loose.status == 10)
        #expect(loose.stdout == "a\tNote\t2\tNotes\tn=1\nc\tNote\t3\tNotes\tn=3\n")
        #expect(loose.stderr.hasPrefix("ck: partialFailure (2): Failed to save 1 of 3 records\n  p1: serverRejectedRequest (15)"))
    }

    @Test func modifiesInACustomZoneAreAtomicByDefault() throws {
        let s = try notes()
        // Valid input; creating b fails on the server, where b exists.
        try s.ck("record", "save", "Note", "--name", "b", "n=0")
        try s.ck("-z", "_defaultZone", "record", "save", "Note", "--name", "b", "n=0")
        let batch = #"{"recordName":"a","recordType":"Note","fields":{"n":{"value":1}}}"# + "\n" + #"{"recordName":"b","recordType":"Note","fields":{"n":{"value":2}}}"# + "\n"
        #expect(try s.ck("record", "save", "--batch", "-", stdin: batch).status == 10)
        #expect(try s.ck("record", "fetch", "a").status == 3)
        // The default zone has no atomic capability: the good record is saved.
        #expect(try s.run(["-z", "_defaultZone", "record", "save", "--batch", "-"], stdin: batch).status == 10)
        #expect(try s.ck("-z", "_defaultZone", "record", "fetch", "a").status == 0)
    }

    @Test func aLostResponseAppliesTheSaveAndReportsNetworkFailure() throws {
        let s = try notes()
        #expect(try s.ck("fault", "add", "--error", "networkFailure", "--after-commit", "--times", "1", "--op", "save").status == 0)
        let r = try s.ck("record", "save", "Note", "--name", "a", "t=1", "-o", "plain")
        #expect(r.status == 5)
        #expect(r.stdout.isEmpty, "the response was lost")
        #expect(r.stderr.hasPrefix("ck: networkFailure (4): the request was applied but its response was lost (injected fault f1)"))
        #expect(try s.ck("record", "fetch", "a", "-o", "plain").stdout == "a\tNote\t2\tNotes\tt=1\n")
    }

    @Test func badRulesAreRefusedWithTheAcceptedValues() throws {
        let s = try notes()
        let unknown = try s.ck("fault", "add", "--error", "tooBusy")
        #expect(unknown.status == 64 && unknown.stderr.contains("expected one of internalError, networkUnavailable"))
        let wait = try s.ck("fault", "add", "--error", "quotaExceeded", "--retry-after", "3")
        #expect(wait.status == 8 && wait.stderr.contains("only accountTemporarilyUnavailable, requestRateLimited, serviceUnavailable, zoneBusy carry retryAfter"))
        // Numbers out of range are usage errors from the parser, naming the option.
        let times = try s.ck("fault", "add", "--error", "zoneBusy", "--times", "0")
        #expect(times.status == 64 && times.stderr.hasPrefix("ck: usage: invalid value '0' for --times: expected a whole number of at least 1\n"))
        let p = try s.ck("fault", "add", "--error", "zoneBusy", "--probability", "1.5")
        #expect(p.status == 64 && p.stderr.contains("for --probability: expected a number from 0 to 1"))
        #expect(try s.ck("fault", "add", "--error", "zoneBusy", "--after-commit").status == 8)
        #expect(try s.ck("fault", "add", "--error", "badOp", "--op", "sav").status == 64)
        #expect(try s.ck("fault", "list", "-o", "plain").stdout.isEmpty, "nothing was added")
    }

    @Test func aDamagedFaultsFileIsReportedWithPathAndLine() throws {
        let s = try notes()
        #expect(try s.ck("fault", "add", "--error", "zoneBusy", "--id", "busy").status == 0)
        let path = StorePaths.env(s) + "/faults.json"
        let text = try String(contentsOfFile: path, encoding: .utf8).replacingOccurrences(of: "\"zoneBusy\"", with: "\"zoneBusyy\"")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let line = text.components(separatedBy: "\n").firstIndex { $0.contains("\"busy\"") }.map { $0 + 1 } ?? 0
        // Other commands go on without fault rules and warn (docs/faults.md); ck fault itself refuses.
        let r = try s.ck("zone", "list")
        #expect(r.status == 0)
        #expect(r.stderr.hasPrefix("ck: warning: \(path):\(line): rules[0] (busy): \"error\" must name a CloudKit error; no fault rule was applied"), "\(r.stderr)")
        let list = try s.ck("fault", "list")
        #expect(list.status == 1)
        #expect(list.stderr.hasPrefix("ck: internalError (1): \(path):\(line): rules[0] (busy): \"error\" must name a CloudKit error"), "\(list.stderr)")
        try "{\n  \"rules\": [\n    {,\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(try s.ck("zone", "list").stderr.hasPrefix("ck: warning: \(path):3:"))
        #expect(try s.ck("fault", "clear").stderr.hasPrefix("ck: internalError (1): \(path):3:"))
    }

    @Test func aPurgedZoneAnswersUserDeletedZoneAndTheFeedSaysPurged() throws {
        let s = try notes()
        #expect(try s.ck("record", "save", "Note", "--name", "a", "t=1").status == 0)
        #expect(try s.ck("zone", "purge", "Notes", "-y").stdout == "Notes\tpurged\t1\n")
        let fetch = try s.ck("record", "fetch", "a")
        #expect(fetch.status == 3 && fetch.stderr.hasPrefix("ck: userDeletedZone (28): Zone 'Notes' was deleted by the user"))
        #expect(try s.ck("changes", "database", "-o", "plain").stdout.hasPrefix("purged\tNotes\n"))
    }

    // MARK: Sync under adversity

    func twoDevices() throws -> Sandbox {
        let s = try notes()
        #expect(try s.ck("record", "save", "Note", "--name", "n1", "t=hello").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("sync", "ipad").status == 0)
        return s
    }

    @Test func aThrottledSyncIsRetriedAfterRetryAfter() throws {
        let s = try twoDevices()
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n2", "t=two").status == 0)
        #expect(try s.ck("fault", "add", "--error", "requestRateLimited", "--times", "1", "--op", "save", "--retry-after", "0.2").status == 0)
        let r = try s.ck("sync", "phone", "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains(#""wait" : 0.2"#) || r.stdout.contains(#""wait": 0.2"#), "\(r.stdout)")
        #expect(r.stdout.contains("\"ckErrorCode\": \"requestRateLimited\""))
        #expect(try s.ck("sync", "ipad", "-o", "plain").stdout.contains("pulled\tNotes\t1\t0"))
        // --no-retry stops at once, with the wait and when to retry on the store's clock (fixed from here on).
        #expect(try s.ck("clock", "set", "2099-01-01T00:00:00Z").status == 0)
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n3", "t=three").status == 0)
        #expect(try s.ck("fault", "add", "--error", "zoneBusy", "--times", "1", "--retry-after", "4").status == 0)
        let stopped = try s.ck("sync", "phone", "--no-retry")
        #expect(stopped.status == 5)
        #expect(stopped.stderr.contains("sync of phone stopped (--no-retry; retry at 2099-01-01T00:00:04.000Z on the store's clock); its 1 pending edit is kept")
                && stopped.stderr.contains("retry after 4.0 seconds"), "\(stopped.stderr)")
        #expect(try s.ck("clock", "advance", "4s").status == 0)
        // A wait beyond --max-wait stops too.
        #expect(try s.ck("fault", "add", "--error", "zoneBusy", "--times", "1", "--retry-after", "30").status == 0)
        #expect(try s.ck("sync", "phone", "--max-wait", "1").stderr.contains("would pass --max-wait 1.0; retry at 2099-01-01T00:00:34.000Z on the store's clock"))
        #expect(try s.ck("clock", "advance", "30s").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("record", "fetch", "n3").status == 0)
    }

    @Test func quotaReachedMidSyncKeepsSavesPendingAndStillPushesDeletes() throws {
        let s = try twoDevices()
        #expect(try s.ck("quota", "set", "500B").status == 0)
        #expect(try s.ck("device", "remove", "phone", "n1").status == 0)
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "big", "t=" + String(repeating: "x", count: 600)).status == 0)
        let r = try s.ck("sync", "phone", "-o", "json")
        #expect(r.status == 10)
        #expect(r.stdout.contains("\"quotaExceeded\": true"))
        #expect(try s.ck("record", "fetch", "n1").status == 3, "the deletion reached the server")
        #expect(try s.ck("record", "fetch", "big").status == 3)
        #expect(try s.ck("device", "show", "phone", "-o", "json").stdout.contains("\"pendingSaves\": 1"))
        #expect(try s.ck("quota", "set", "1MB").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("record", "fetch", "big").status == 0)
    }

    @Test func anAccountLostAndBackKeepsTheEdits() throws {
        let s = try twoDevices()
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n2", "t=two").status == 0)
        #expect(try s.ck("account", "set", "temporarilyUnavailable").status == 0)
        let lost = try s.ck("sync", "phone")
        #expect(lost.status == 5 && lost.stderr.contains("its 1 pending edit is kept"))
        #expect(try s.ck("account", "set", "available").status == 0)
        #expect(try s.ck("sync", "phone").status == 0)
        // An injected notAuthenticated from the server stops the sync the same way.
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n3", "t=three").status == 0)
        #expect(try s.ck("fault", "add", "--error", "notAuthenticated", "--times", "1", "--op", "save").status == 0)
        let refused = try s.ck("sync", "phone")
        #expect(refused.status == 7 && refused.stderr.contains("the account can't sync"))
        #expect(try s.ck("sync", "phone").status == 0)
        #expect(try s.ck("record", "fetch", "n2").status == 0 && s.ck("record", "fetch", "n3").status == 0)
    }

    @Test func aZoneGoneInAnEncryptedDataResetIsRecreatedAndUploadedAgain() throws {
        let s = try twoDevices()
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n2", "t=two").status == 0)
        #expect(try s.ck("zone", "reset-encrypted", "Notes", "-y").status == 0)
        let r = try s.ck("sync", "phone", "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"recreated\": [\n    \"Notes\""), "\(r.stdout)")
        #expect(try s.ck("record", "fetch", "n1", "-o", "plain").stdout == "n1\tNote\t5\tNotes\tt=hello\n" || s.ck("record", "fetch", "n1").status == 0)
        #expect(try s.ck("record", "fetch", "n2").status == 0)
        let ipad = try s.ck("sync", "ipad")
        #expect(ipad.status == 0, "\(ipad.stderr)")
        #expect(try s.ck("device", "records", "ipad", "-o", "plain").stdout.split(separator: "\n").count == 2)
        #expect(try s.ck("changes", "zone", "-o", "plain").stdout.split(separator: "\n").count == 3, "two records and the token, no duplicates")
    }

    @Test func aLostResponseDuringSyncNeitherDuplicatesNorLosesAnEdit() throws {
        let s = try twoDevices()
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n2", "t=two").status == 0)
        #expect(try s.ck("device", "save", "phone", "Note", "--name", "n1", "t=changed").status == 0)
        #expect(try s.ck("fault", "add", "--error", "networkFailure", "--after-commit", "--times", "1", "--op", "save", "--retry-after", "0").status == 8,
                "networkFailure carries no retryAfter")
        #expect(try s.ck("fault", "add", "--error", "networkFailure", "--after-commit", "--times", "1", "--op", "save").status == 0)
        let r = try s.ck("sync", "phone", "-o", "json")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"ckErrorCode\": \"networkFailure\""))
        let feed = try s.ck("changes", "zone", "-o", "plain").stdout.split(separator: "\n")
        #expect(feed.filter { $0.hasPrefix("saved\tn2\t") }.count == 1, "\(feed)")
        #expect(try s.ck("record", "fetch", "n1", "-o", "plain").stdout.hasSuffix("\tt=changed\n"))
        #expect(try s.ck("device", "show", "phone", "-o", "json").stdout.contains("\"pendingSaves\": 0"))
    }
}
