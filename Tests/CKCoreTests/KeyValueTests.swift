import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKServer
@testable import CKStorage
@testable import CKSync

/// The iCloud key-value store: values, limits, the server store, device copies and their sync.
@Suite struct KeyValueTests {
    /// A store whose clock the test moves by hand (ms), so "newest" is the test's to decide.
    final class Clock: @unchecked Sendable { var ms: Int64 = 1_800_000_000_000 }

    func setUp() throws -> (TempStore, Clock) {
        let t = try TempStore()
        let clock = Clock()
        t.store.now = { clock.ms }
        return (t, clock)
    }

    func device(_ t: TempStore, _ name: String) throws -> Device { try Device.open(name, database: try t.db()) }
    func server(_ t: TempStore, user: String = "default") throws -> KeyValueStore { KeyValueStore(database: try t.db(user: user)) }
    func sync(_ d: Device) throws -> KVSyncReport { try KeyValueSync(device: d).sync() }
    func local(_ d: Device, _ key: String) throws -> KVValue? { try d.keyValueEntries().first { $0.key == key }?.value }

    // MARK: Values

    @Test func sizesFollowTheDocumentedRule() {
        #expect(KVValue.string("héllo").size == 6)
        #expect(KVValue.integer(1).size == 8 && KVValue.double(1).size == 8 && KVValue.date(0).size == 8)
        #expect(KVValue.bool(true).size == 1)
        #expect(KVValue.data([1, 2, 3]).size == 3)
        #expect(KVValue.array([.string("ab"), .bool(false)]).size == 3)
        #expect(KVValue.dictionary(["key": .string("v")]).size == 4)
        #expect(KVLimits.pairSize("theme", .string("dark")) == 9)
    }

    @Test func textIsTypedAsRecordSaveTypesIt() throws {
        func p(_ s: String, _ type: String? = nil) throws -> KVValue { try KVValue.parse(s, type: type, key: "k", files: .directory("/")) }
        #expect(try p("7") == .integer(7))
        #expect(try p("-2.5") == .double(-2.5))
        #expect(try p("2026-12-01") == .date(1_796_083_200_000))
        #expect(try p("dark") == .string("dark"))
        #expect(try p("true") == .bool(true), "true/false/yes/no are a bool without --type")
        #expect(try p("NO") == .bool(false))
        #expect(try p("true", "string") == .string("true"))
        #expect(try p("true", "bool") == .bool(true))
        #expect(try p("no", "bool") == .bool(false))
        #expect(try p("7", "string") == .string("7"))
        #expect(try p("AQID", "data") == .data([1, 2, 3]))
        #expect(try p("3", "int64") == .integer(3))
        #expect(try p("[1, \"a\"]", "array") == .array([.integer(1), .string("a")]))
        let unsupported = ckError { _ = try p("x", "reference") }
        #expect(unsupported?.code == .invalidArguments)
        #expect(unsupported?.reason == "key 'k': unsupported type 'reference': the key-value store holds property-list values only")
        #expect(ckError { _ = try p("maybe", "bool") }?.reason == "key 'k': 'maybe' is not a bool")
        #expect(ckError { _ = try p("{}", "array") }?.reason == "key 'k': the JSON is a dictionary, not an array")
    }

    @Test func plainJSONMapsToPropertyListTypes() throws {
        let v = try KVValue.parse(json: #"{"n": 1, "d": 1.5, "b": true, "s": "x", "when": {"$date": "2026-12-01T00:00:00Z"}, "raw": {"$data": "AQI="}, "l": []}"#, key: "k")
        #expect(v == .dictionary(["n": .integer(1), "d": .double(1.5), "b": .bool(true), "s": .string("x"),
                                  "when": .date(1_796_083_200_000), "raw": .data([1, 2]), "l": .array([])]))
        // Plain JSON and the typed form both round-trip.
        #expect(try KVValue(plainJSON: v.plainJSON, key: "k") == v)
        #expect(try KVValue(json: v.json, path: "p") == v)
        #expect(ckError { _ = try KVValue.parse(json: "[1, null]", key: "k") }?.reason == "key 'k': null is not a property-list value")
        let malformed = ckError { _ = try KVValue.parse(json: "{\"a\": }", key: "k") }
        #expect(malformed?.reason == "key 'k': --json is not valid JSON at line 1, column 7: unexpected character '}', expected a value")
    }

    @Test func nestingStopsAtSixteenLevels() throws {
        let sixteen = String(repeating: "[", count: 16) + String(repeating: "]", count: 16)
        #expect(try KVValue.parse(json: sixteen, key: "k").depth == 16)
        let deeper = "[" + sixteen + "]"
        #expect(ckError { _ = try KVValue.parse(json: deeper, key: "k") }?.reason == "key 'k': nested deeper than 16 levels of arrays and dictionaries")
    }

    // MARK: Limits

    @Test func keysAreOneToSixtyFourBytesOfUTF8() throws {
        try KVLimits.validateKey(String(repeating: "a", count: 64))
        try KVLimits.validateKey(String(repeating: "é", count: 32))
        #expect(ckError { try KVLimits.validateKey(String(repeating: "é", count: 33)) }?.code == .invalidArguments)
        #expect(ckError { try KVLimits.validateKey(String(repeating: "a", count: 65)) }?.reason.hasSuffix("is 65 bytes of UTF-8; a key-value store key may have at most 64") == true)
        #expect(ckError { try KVLimits.validateKey("") }?.reason == "empty key: a key-value store key needs 1 to 64 bytes of UTF-8")
    }

    @Test func quotasCountKeysTotalAndOneValue() {
        var live: [String: KVValue] = [:]
        for i in 0..<1024 { live["k\(i)"] = .bool(true) }
        #expect(KVLimits.violation(key: "k1024", value: .bool(true), live: live) == "the store already holds 1024 keys, the most it may hold; 'k1024' would be key 1025")
        #expect(KVLimits.violation(key: "k5", value: .bool(false), live: live) == nil, "replacing a key adds none")
        let big = KVValue.data([UInt8](repeating: 0, count: 1_048_577))
        #expect(KVLimits.violation(key: "x", value: big, live: [:]) == "the value of 'x' is 1048577 bytes; one value may hold at most 1048576")
        // 1048575 bytes of value plus the key "x" is exactly 1 MB: it fits; one more key byte does not.
        let edge = KVValue.data([UInt8](repeating: 0, count: 1_048_575))
        #expect(KVLimits.violation(key: "x", value: edge, live: [:]) == nil)
        #expect(KVLimits.violation(key: "xy", value: edge, live: [:]) == "with 'xy' the store would hold 1048577 bytes; all keys and values together may hold at most 1048576")
    }

    // MARK: The server store

    @Test func serverWritesAreCheckedAndLeaveNothingWhenRefused() throws {
        let (t, _) = try setUp()
        let kv = try server(t)
        try kv.set("theme", .string("dark"))
        #expect(try kv.entry("theme").value == .string("dark"))
        #expect(FileManager.default.fileExists(atPath: t.envDir + "/kv/" + CKContainer.userRecordName(for: "default") + ".json"))
        let before = t.read(kv.path)
        let refused = ckError { try kv.set("huge", .data([UInt8](repeating: 1, count: 1_048_577))) }
        #expect(refused?.code == .quotaExceeded)
        #expect(ckError { try kv.set(String(repeating: "k", count: 65), .bool(true)) }?.code == .invalidArguments)
        #expect(t.read(kv.path) == before, "a refused write changes nothing")
        try kv.remove("theme")
        #expect(ckError { _ = try kv.entry("theme") }?.code == .unknownItem)
        #expect(ckError { try kv.remove("theme") }?.code == .unknownItem)
        #expect(try t.store.container().users().map(\.name) == ["default"], "a write lists the user")
        // Users have separate stores.
        #expect(try server(t, user: "ann").entries().isEmpty)
    }

    @Test func aBrokenFileIsReportedWithPathAndLine() throws {
        let (t, _) = try setUp()
        let kv = try server(t)
        try kv.set("a", .integer(1))
        try kv.set("b", .integer(2))
        let text = t.read(kv.path).replacingOccurrences(of: "\"value\": 2,", with: "\"value\": \"two\",")
        try text.write(toFile: kv.path, atomically: true, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let line = (lines.firstIndex { $0 == "    \"b\": {" } ?? -1) + 1
        let e = ckError { _ = try kv.entries() }
        #expect(e?.reason == "\(kv.path):\(line): keys.b: expected an integer for type integer")
        try "{\"keys\": ".write(toFile: kv.path, atomically: true, encoding: .utf8)
        #expect(ckError { _ = try kv.entries() }?.reason.hasPrefix("\(kv.path):1:10: invalid JSON") == true)
    }

    // MARK: Devices and sync

    @Test func twoDevicesConvergeAndTheReceiverGetsServerChange() throws {
        let (t, clock) = try setUp()
        let phone = try device(t, "phone"), tablet = try device(t, "tablet")
        #expect(try sync(phone).events.isEmpty, "nothing to download: no event")
        _ = try sync(tablet)
        clock.ms += 10
        try tablet.setKeyValue("theme", .string("light"))
        #expect(try server(t).entries().isEmpty, "a device write waits for a sync")
        let pushed = try sync(tablet)
        #expect(pushed.pushed == ["theme"] && pushed.events.isEmpty, "a device is not told of its own change")
        #expect(try server(t).entry("theme").deviceID == "tablet")
        let pulled = try sync(phone)
        #expect(pulled.pulled == ["theme"])
        #expect(pulled.events.map(\.reason) == [.serverChange] && pulled.events.first?.keys == ["theme"])
        #expect(try local(phone, "theme") == .string("light"))
        // A removal travels too.
        clock.ms += 10
        try phone.removeKeyValue("theme")
        _ = try sync(phone)
        let removed = try sync(tablet)
        #expect(removed.events.first?.keys == ["theme"] && removed.events.first?.reason == .serverChange)
        #expect(try tablet.keyValueEntries().isEmpty)
    }

    @Test func theNewestWriteWinsWhateverOrderTheySync() throws {
        let (t, clock) = try setUp()
        let phone = try device(t, "phone"), tablet = try device(t, "tablet")
        _ = try sync(phone)
        _ = try sync(tablet)
        try phone.setKeyValue("theme", .string("older"))
        clock.ms += 5
        try tablet.setKeyValue("theme", .string("newer"))
        _ = try sync(tablet)
        let late = try sync(phone)
        #expect(late.overridden == ["theme"] && late.pushed.isEmpty, "the older write, pushed last, loses")
        #expect(late.events.first?.reason == .serverChange)
        #expect(try local(phone, "theme") == .string("newer"))
        #expect(try server(t).entry("theme").value == .string("newer"))
        // Same millisecond: the device name later in byte order wins.
        clock.ms += 5
        try tablet.setKeyValue("mode", .string("from tablet"))
        try phone.setKeyValue("mode", .string("from phone"))
        _ = try sync(tablet)
        _ = try sync(phone)
        #expect(try server(t).entry("mode").value == .string("from tablet"))
    }

    @Test func theFirstSyncIsAnInitialSyncAndTheServerValuesWin() throws {
        let (t, clock) = try setUp()
        try server(t).set("theme", .string("dark"))
        try server(t).set("volume", .integer(3))
        clock.ms += 10
        let phone = try device(t, "phone")
        try phone.setKeyValue("theme", .string("offline"))
        try phone.setKeyValue("phoneOnly", .bool(true))
        let r = try sync(phone)
        #expect(r.events.map(\.reason) == [.initialSyncChange])
        #expect(r.events.first?.keys == ["theme", "volume"])
        #expect(r.overridden == ["theme"] && r.pushed == ["phoneOnly"])
        #expect(try local(phone, "theme") == .string("dark"), "a write before the first download is discarded")
        #expect(try server(t).entry("phoneOnly").value == .bool(true))
    }

    @Test func aWriteOverQuotaStaysOnTheDeviceAndIsReported() throws {
        let (t, _) = try setUp()
        let phone = try device(t, "phone")
        for i in 0..<100 { try phone.setKeyValue("k\(i)", .integer(Int64(i))) }
        // The rest written straight into the server's file, which one device write at a time would take long to fill.
        var file = try server(t).read()
        for i in 100..<1024 { file.change += 1; file.entries["k\(i)"] = KVEntry(key: "k\(i)", value: .integer(Int64(i)), modified: 1, deviceID: "ck", change: file.change) }
        try file.write(try server(t).path)
        try phone.setKeyValue("one-too-many", .bool(true))
        let r = try sync(phone)
        #expect(r.pushed.count == 100)
        #expect(r.refused.map(\.key) == ["one-too-many"])
        #expect(r.events.map(\.reason) == [.initialSyncChange, .quotaViolationChange])
        #expect(r.events.map(\.keys.count) == [924, 1] && r.events.last?.keys == ["one-too-many"])
        #expect(try server(t).entries().count == 1024)
        #expect(try phone.keyValueEntries().first { $0.key == "one-too-many" }?.pending == true, "kept on the device")
        // Room made elsewhere lets it through at the next sync.
        try server(t).remove("k0")
        let again = try sync(phone)
        #expect(again.pushed == ["one-too-many"] && again.refused.isEmpty)
        #expect(again.events.map(\.reason) == [.serverChange] && again.events.first?.keys == ["k0"])
    }

    @Test func withNoAccountNothingSyncsAndSigningInIsAnAccountChange() throws {
        let (t, _) = try setUp()
        try server(t).set("theme", .string("dark"))
        let phone = try device(t, "phone")
        _ = try sync(phone)
        // Account status as container.json records it: the one place KeyValueSync asks.
        let info = t.dir + "/store/containers/" + CKStore.defaultContainerID + "/container.json"
        let signedIn = t.read(info)
        try signedIn.replacingOccurrences(of: "\"available\"", with: "\"noAccount\"").write(toFile: info, atomically: true, encoding: .utf8)
        try phone.setKeyValue("theme", .string("local"))
        let skipped = try sync(phone)
        #expect(skipped.skipped != nil && skipped.pushed.isEmpty && skipped.events.isEmpty)
        // Signed out, the account's store is out of reach (the pipeline's account stage).
        #expect(ckError { _ = try server(t).entry("theme") }?.code == .notAuthenticated)
        try signedIn.write(toFile: info, atomically: true, encoding: .utf8)
        #expect(try server(t).entry("theme").value == .string("dark"))
        let back = try sync(phone)
        #expect(back.events.map(\.reason) == [.accountChange] && back.events.first?.keys == ["theme"])
        #expect(try local(phone, "theme") == .string("dark"), "the account's store replaces the local one")
        #expect(try phone.keyValueInfo().pending == 0)
    }

    @Test func eventsListFromAnID() throws {
        let (t, _) = try setUp()
        try server(t).set("a", .integer(1))
        let phone = try device(t, "phone")
        _ = try sync(phone)
        try server(t).set("b", .integer(2))
        _ = try sync(phone)
        let all = try phone.keyValueEvents()
        #expect(all.map(\.id) == [1, 2] && all.map(\.reason) == [.initialSyncChange, .serverChange])
        #expect(try phone.keyValueEvents(since: 1).map(\.keys) == [["b"]])
        #expect(all[1].userInfo == .object(["NSUbiquitousKeyValueStoreChangeReasonKey": .int(0),
                                            "NSUbiquitousKeyValueStoreChangedKeysKey": .array([.string("b")])]))
    }

    @Test func fixturesCarryEachUsersStore() throws {
        let (t, _) = try setUp()
        try server(t).set("theme", .string("dark"))
        try server(t, user: "ann").set("nested", .dictionary(["when": .date(5), "raw": .data([9])]))
        let doc = try t.store.container().exportFixtures(.development, as: try Caller.user("default"), allUsers: true)
        let stores = doc["keyValueStores"]?.arrayValue ?? []
        #expect(stores.count == 2)
        let other = try TempStore()
        let summary = try other.store.container().importFixtures(doc, into: .development, as: try Caller.user("default"), allUsers: true, replace: false, label: "doc")
        #expect(summary.keyValueStores == 2)
        #expect(try KeyValueStore(database: other.db(user: "ann")).entry("nested").value == .dictionary(["when": .date(5), "raw": .data([9])]))
        #expect(try other.store.container().exportFixtures(.development, as: try Caller.user("default"), allUsers: true) == doc)
        // A bad store in a document is named by its JSON path, and nothing is imported.
        var broken = doc.objectValue ?? [:]
        broken["keyValueStores"] = .array([.object(["userRecordName": .string(CKContainer.userRecordName(for: "bob")),
                                                    "keys": .object([String(repeating: "k", count: 65): .object([:])])])])
        let third = try TempStore()
        let e = ckError { _ = try third.store.container().importFixtures(.object(broken), into: .development, as: try Caller.user("default"), allUsers: true, replace: false, label: "doc") }
        #expect(e?.items.map(\.id) == ["doc: $.keyValueStores[0].keys.\(String(repeating: "k", count: 57))…"])
        #expect(e?.items.first?.error.reason.hasSuffix("is 65 bytes of UTF-8; a key-value store key may have at most 64") == true)
        #expect(try KeyValueStore(database: third.db()).entries().isEmpty)
    }
}
