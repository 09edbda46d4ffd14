import Foundation
import Testing

/// `ck kv` through the binary: the server store, devices syncing it, the limits and the change events.
@Suite struct KeyValueEndToEndTests {
    static let user = "_38691fd977d484b8b25e1808632b7d11"
    static func kvFile(_ s: Sandbox) -> String { s.dir + "/store/containers/iCloud.ck.default/development/kv/\(user).json" }

    /// A fixtures document whose only content is the default user's key-value store.
    static func fixtures(_ keys: [String: String]) -> String {
        let entries = keys.keys.sorted().enumerated().map { i, k in
            #""\#(k)": {"type": "string", "value": "\#(keys[k] ?? "")", "modified": 1800000000000, "deviceID": "ck", "change": \#(i + 1)}"#
        }
        return #"{"format": "ck-fixtures/1", "schema": {}, "keyValueStores": [{"userRecordName": "\#(user)", "keys": {\#(entries.joined(separator: ", "))}}]}"#
    }

    @Test func twoDevicesSyncASettingAndTheReceiverIsTold() throws {
        let s = try Sandbox()
        // First syncs: nothing to download yet, so no event.
        #expect(try s.ck("kv", "sync", "phone").stdout == "")
        #expect(try s.ck("kv", "sync", "tablet").stdout == "")
        let set = try s.ck("kv", "set", "--device", "tablet", "theme", "light")
        #expect(set.status == 0 && set.stdout == "theme\tstring\t5\tpending\n", "\(set.stderr)")
        #expect(try s.ck("kv", "get", "theme").status == 3, "not on the server before a sync")
        let pushed = try s.ck("sync", "tablet")
        #expect(pushed.status == 0, "\(pushed.stderr)")
        #expect(pushed.stdout == "kv\tpushed\ttheme\n", "ck sync syncs the key-value store too")
        #expect(try s.ck("kv", "get", "theme").stdout == "light\n")
        let pulled = try s.ck("kv", "sync", "phone")
        #expect(pulled.stdout == "kv\tpulled\ttheme\nkv\tevent\t1\tserverChange\ttheme\n")
        #expect(try s.ck("kv", "get", "theme", "--device", "phone").stdout == "light\n")
        let events = try s.ck("kv", "events", "phone", "-o", "json")
        let doc = try JSONSerialization.jsonObject(with: Data(events.stdout.utf8)) as? [String: Any]
        let list = doc?["events"] as? [[String: Any]] ?? []
        #expect(list.count == 1)
        #expect(list.first?["name"] as? String == "NSUbiquitousKeyValueStoreDidChangeExternallyNotification")
        let info = list.first?["userInfo"] as? [String: Any]
        #expect(info?["NSUbiquitousKeyValueStoreChangeReasonKey"] as? Int == 0)
        #expect(info?["NSUbiquitousKeyValueStoreChangedKeysKey"] as? [String] == ["theme"])
        // The sender hears nothing of its own change; a later change reaches the phone after --since.
        #expect(try s.ck("kv", "events", "tablet").stdout == "")
        #expect(try s.ck("kv", "set", "volume", "7").stdout == "volume\tinteger\t8\n")
        #expect(try s.ck("kv", "sync", "phone").status == 0)
        let since = try s.ck("kv", "events", "phone", "--since", "1")
        #expect(since.stdout.hasPrefix("2\t") && since.stdout.hasSuffix("\tserverChange\tvolume\n"), "\(since.stdout)")
        #expect(try s.ck("kv", "list", "--device", "phone").stdout == "theme\tstring\t5\t-\nvolume\tinteger\t8\t-\n")
        #expect(try s.ck("__complete", "kvKey").stdout == "theme\nvolume\n")
    }

    @Test func theFirstSyncIsAnInitialSyncChange() throws {
        let s = try Sandbox()
        #expect(try s.ck("kv", "set", "theme", "dark").status == 0)
        #expect(try s.ck("kv", "set", "recent", "--json", #"["a", "b"]"#).status == 0)
        #expect(try s.ck("kv", "set", "--device", "mac", "theme", "offline").status == 0)
        let first = try s.ck("kv", "sync", "mac", "-o", "json")
        #expect(first.status == 0, "\(first.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any]
        #expect(doc?["overridden"] as? [String] == ["theme"], "a write before the first download is discarded")
        let event = (doc?["events"] as? [[String: Any]])?.first
        #expect(event?["reason"] as? String == "initialSyncChange")
        let info = event?["userInfo"] as? [String: Any]
        #expect(info?["NSUbiquitousKeyValueStoreChangeReasonKey"] as? Int == 1)
        #expect(info?["NSUbiquitousKeyValueStoreChangedKeysKey"] as? [String] == ["recent", "theme"])
        #expect(try s.ck("kv", "get", "theme", "--device", "mac").stdout == "dark\n")
        #expect(try s.ck("kv", "get", "recent", "--device", "mac").stdout == "[\"a\",\"b\"]\n")
    }

    @Test func theKeyAfterTheLastAndTheMegabyteAreQuotaViolations() throws {
        let s = try Sandbox()
        var keys: [String: String] = [:]
        for i in 0..<1024 { keys["k\(i)"] = "v" }
        try s.write(KeyValueEndToEndTests.fixtures(keys), to: "full.json")
        let imported = try s.ck("import", "full.json", "-o", "table")
        #expect(imported.status == 0 && imported.stdout.contains("Imported 0 records, 0 zones, 1 key-value store and 0 assets into"), "\(imported.stdout)\(imported.stderr)")
        #expect(try s.ck("kv", "show").stdout.contains("keys\t1024 of 1024\n"))
        // On the server directly, the 1025th key is refused at once.
        let direct = try s.ck("kv", "set", "k1024", "v")
        #expect(direct.status == 6 && direct.stderr.contains("the store already holds 1024 keys"), "\(direct.stderr)")
        // On a device it is kept, and refused at sync with a quotaViolationChange on that device.
        #expect(try s.ck("kv", "sync", "phone").status == 0)
        #expect(try s.ck("kv", "set", "--device", "phone", "k1024", "v").status == 0)
        let sync = try s.ck("kv", "sync", "phone")
        #expect(sync.status == 10, "\(sync.stderr)")
        #expect(sync.stdout.contains("kv\trefused\tk1024\tthe store already holds 1024 keys"))
        #expect(sync.stdout.hasSuffix("kv\tevent\t2\tquotaViolationChange\tk1024\n"), "\(sync.stdout)")
        #expect(sync.stderr.contains("quotaExceeded"))
        #expect(try s.ck("kv", "get", "k1024", "--device", "phone").stdout == "v\n", "kept on the device")
        #expect(try s.ck("kv", "get", "k1024").status == 3)
        let json = try s.ck("kv", "events", "phone", "-o", "jsonl")
        #expect(json.stdout.split(separator: "\n").last?.contains(#""NSUbiquitousKeyValueStoreChangeReasonKey":2"#) == true, "\(json.stdout)")

        // The megabyte: eleven values of 100,000 bytes; the eleventh does not fit.
        let t = try Sandbox()
        let big = String(repeating: "a", count: 100_000)
        for i in 1...11 { #expect(try t.ck("kv", "set", "--device", "ipad", String(format: "big%02d", i), big).status == 0) }
        let over = try t.ck("kv", "sync", "ipad")
        #expect(over.status == 10)
        #expect(over.stdout.contains("kv\trefused\tbig11\twith 'big11' the store would hold 1100055 bytes; all keys and values together may hold at most 1048576\n"), "\(over.stdout)")
        #expect(over.stdout.hasSuffix("kv\tevent\t1\tquotaViolationChange\tbig11\n"))
        #expect(try t.ck("kv", "show").stdout.contains("bytes\t1000050 of 1048576 (keys and values)\n"))
    }

    @Test func badInputIsRefusedAndChangesNothing() throws {
        let s = try Sandbox()
        #expect(try s.ck("kv", "set", "theme", "dark").status == 0)
        let before = try String(contentsOfFile: KeyValueEndToEndTests.kvFile(s), encoding: .utf8)
        let long = String(repeating: "k", count: 65)
        let cases: [([String], String)] = [
            (["kv", "set", long, "x"], "is 65 bytes of UTF-8; a key-value store key may have at most 64"),
            (["kv", "set", "--device", "phone", long, "x"], "is 65 bytes of UTF-8; a key-value store key may have at most 64"),
            (["kv", "set", "", "x"], "empty key: a key-value store key needs 1 to 64 bytes of UTF-8"),
            (["kv", "set", "pin", "x", "--type", "location"], "key 'pin': unsupported type 'location': the key-value store holds property-list values only"),
            (["kv", "set", "deep", "--json", String(repeating: "[", count: 17) + String(repeating: "]", count: 17)],
             "key 'deep': nested deeper than 16 levels of arrays and dictionaries"),
            (["kv", "set", "bad", "--json", "{\"a\": [1,}"], "key 'bad': --json is not valid JSON at line 1, column 10"),
            (["kv", "set", "nothing", "--json", "null"], "key 'nothing': null is not a property-list value"),
            (["kv", "set", "n", "x", "--type", "integer"], "key 'n': 'x' is not a 64-bit integer"),
        ]
        for (args, message) in cases {
            let r = try s.run(args)
            #expect(r.status == 8, "\(args): exit \(r.status)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
        }
        #expect(try String(contentsOfFile: KeyValueEndToEndTests.kvFile(s), encoding: .utf8) == before, "the store is unchanged")
        #expect(try s.ck("kv", "list").stdout == "theme\tstring\t4\n")
        #expect(try s.ck("kv", "remove", "missing").status == 3)
        // A damaged store file is named with its line, by the command and by ck doctor.
        try before.replacingOccurrences(of: "\"value\": \"dark\"", with: "\"value\": 12").write(toFile: KeyValueEndToEndTests.kvFile(s), atomically: true, encoding: .utf8)
        let broken = try s.ck("kv", "get", "theme")
        #expect(broken.status == 1 && broken.stderr.contains(KeyValueEndToEndTests.kvFile(s) + ":5: keys.theme: expected a string for type string"), "\(broken.stderr)")
        let doctor = try s.ck("doctor")
        #expect(doctor.stdout.contains("kv/\(KeyValueEndToEndTests.user).json:5\tkeys.theme: expected a string for type string\t"), "\(doctor.stdout)")
    }

    @Test func concurrentWritersLoseNothingAcknowledged() throws {
        let s = try Sandbox()
        #expect(try s.ck("kv", "set", "seed", "0").status == 0)
        let writers = (0..<8).map { p -> CKWriterLoop in
            var jobs = (0..<6).map { i in CKJob("p\(p)-\(i)", ["kv", "set", "p\(p)-\(i)", String(p * 100 + i)]) }
            jobs += (0..<3).map { i in CKJob("p\(p) device \(i)", ["kv", "set", "--device", "phone", "d\(p)-\(i)", "x"]) }
            return CKWriterLoop(CKLaunch(s), jobs)
        }
        defer { writers.forEach { $0.stop(kill: true) } }
        writers.forEach { $0.start() }
        writers.forEach { $0.wait() }
        for w in writers {
            #expect(w.results.count == 9)
            for r in w.results { #expect(r.status == 0 && r.unexpectedStderr.isEmpty, "\(r.label): exit \(r.status): \(r.stderr)") }
        }
        let list = try s.ck("kv", "list").stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        #expect(Set(list) == Set(["seed"] + (0..<8).flatMap { p in (0..<6).map { "p\(p)-\($0)" } }))
        let pushed = try s.ck("kv", "sync", "phone")
        #expect(pushed.status == 0)
        #expect(Set(pushed.stdout.split(separator: "\n").filter { $0.hasPrefix("kv\tpushed\t") }).count == 24, "\(pushed.stdout)")
        #expect(try s.ck("kv", "show").stdout.contains("keys\t73 of 1024\n"))
        // Every write took its own change number.
        let file = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: KeyValueEndToEndTests.kvFile(s)))) as? [String: Any]
        let changes = ((file?["keys"] as? [String: [String: Any]]) ?? [:]).values.compactMap { $0["change"] as? Int }
        #expect(changes.sorted() == Array(1...73))
    }

    @Test func withoutAnAccountWritesStayLocalAndSigningInIsAnAccountChange() throws {
        let s = try Sandbox()
        #expect(try s.ck("kv", "set", "theme", "dark").status == 0)
        #expect(try s.ck("kv", "sync", "phone").status == 0)
        #expect(try s.ck("account", "set", "noAccount").status == 0)
        #expect(try s.ck("kv", "set", "--device", "phone", "theme", "offline").status == 0)
        let skipped = try s.ck("kv", "sync", "phone")
        #expect(skipped.status == 0 && skipped.stdout == "kv\tskipped\tthe iCloud account of user 'default' is noAccount: key-value writes stay on the device\n")
        // The account's own store can't be reached without the account; the device's copy can.
        let signedOut = try s.ck("kv", "get", "theme")
        #expect(signedOut.status == 7 && signedOut.stderr.contains("so the key-value store can't be read"), "\(signedOut.stderr)")
        #expect(try s.ck("kv", "get", "theme", "--device", "phone").stdout == "offline\n")
        let records = try s.ck("sync", "phone")
        #expect(records.status == 7 && records.stdout.isEmpty, "ck sync stops at the records: \(records.stderr)")
        #expect(try s.ck("account", "set", "available").status == 0)
        let back = try s.ck("kv", "sync", "phone")
        #expect(back.stdout == "kv\tpulled\ttheme\nkv\tevent\t2\taccountChange\ttheme\n", "\(back.stdout)")
        #expect(try s.ck("kv", "get", "theme", "--device", "phone").stdout == "dark\n")
        #expect(try s.ck("kv", "get", "theme").stdout == "dark\n", "the server kept the account's value")
        let json = try s.ck("kv", "events", "phone", "-o", "jsonl")
        #expect(json.stdout.contains(#""NSUbiquitousKeyValueStoreChangeReasonKey":3"#))
    }

    @Test func fixturesCarryTheStore() throws {
        let s = try Sandbox()
        #expect(try s.ck("kv", "set", "when", "2026-12-01").stdout == "when\tdate\t8\n")
        #expect(try s.ck("--as", "ann", "kv", "set", "flags", "--json", #"{"on": true, "raw": {"$data": "AQI="}}"#).status == 0)
        #expect(!(try s.ck("export").stdout.contains("flags")), "an export holds the acting user's store only")
        let doc = try s.ck("export", "--all-users")
        #expect(doc.stdout.contains("\"keyValueStores\""))
        try s.write(doc.stdout, to: "fixtures.json")
        let other = try s.run(["--data-dir", s.dir + "/other", "import", "fixtures.json", "--all-users", "-o", "json"])
        #expect(other.status == 0 && other.stdout.contains("\"keyValueStores\": 2"), "\(other.stdout)\(other.stderr)")
        #expect(try s.run(["--data-dir", s.dir + "/other", "--as", "ann", "kv", "get", "flags"]).stdout == #"{"on":true,"raw":{"$data":"AQI="}}"# + "\n")
        #expect(try s.run(["--data-dir", s.dir + "/other", "kv", "get", "when"]).stdout == "2026-12-01T00:00:00.000Z\n")
    }
}
