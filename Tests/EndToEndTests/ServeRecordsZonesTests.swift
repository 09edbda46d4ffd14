import Foundation
import Testing
import CKModel

/// `ck serve --port 0 --no-auth` on a fresh store whose container and zones the command line made, and Web
/// Services calls to it. Expected values come from what a test sent and from web-services.md / cloudkit.md.
final class WireFixture {
    static let container = "iCloud.ck.wire"
    /// The user record name of ck's user `default` (`--no-auth` acts as it; the docs' examples show it).
    static let defaultUser = "_38691fd977d484b8b25e1808632b7d11"
    let sandbox: Sandbox
    let server: ServeProcess

    /// Makes the container and the custom `zones` with the CLI, runs the other `setup` commands, starts the server.
    init(zones: [String] = ["Z"], setup: [[String]] = []) throws {
        sandbox = try Sandbox()
        try WireFixture.run(sandbox, ["container", "create", Self.container])
        for z in zones { try WireFixture.run(sandbox, ["zone", "create", z]) }
        for args in setup { try WireFixture.run(sandbox, args) }
        server = try ServeProcess(sandbox, arguments: ["--no-auth"])
    }

    deinit { server.stop() }

    @discardableResult
    static func run(_ sandbox: Sandbox, _ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let r = try sandbox.run(["-c", container] + args)
        try #require(r.status == 0, "ck \(args.joined(separator: " ")): \(r.stderr)", sourceLocation: sourceLocation)
        return r.stdout
    }

    /// `ck -c CONTAINER ARGS`, which must succeed; its stdout.
    @discardableResult
    func cli(_ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try WireFixture.run(sandbox, args, sourceLocation: sourceLocation)
    }

    /// `ck -c CONTAINER ARGS -o json` parsed.
    func cliJSON(_ args: String..., sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let out = try WireFixture.run(sandbox, args + ["-o", "json"], sourceLocation: sourceLocation)
        return try #require(try? JSON.parse(out), "not JSON: \(out)", sourceLocation: sourceLocation)
    }

    /// `ck -c CONTAINER ARGS` whatever its outcome.
    func cliResult(_ args: String...) throws -> Sandbox.Result { try sandbox.run(["-c", Self.container] + args) }

    func path(_ op: String, db: String) -> String { "/database/1/\(Self.container)/development/\(db)/\(op)" }

    /// POST `body` to `…/development/DB/OP`.
    func post(_ op: String, _ body: String, db: String = "private") throws -> HTTPClientReply {
        try server.post(path(op, db: db), json: body)
    }

    /// POST that must answer HTTP 200: the JSON body.
    func ok(_ op: String, _ body: String, db: String = "private", sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let r = try post(op, body, db: db)
        try #require(r.status == 200, "\(op) answered \(r.status): \(r.text)", sourceLocation: sourceLocation)
        return r.json
    }

    /// POST that must be refused as a whole with `status` and `code`: the reason.
    func refused(_ op: String, _ body: String, status: Int, code: String, db: String = "private",
                 sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let r = try post(op, body, db: db)
        #expect(r.status == status, "\(op) \(body): \(r.status) \(r.text)", sourceLocation: sourceLocation)
        #expect(r.json["serverErrorCode"]?.stringValue == code, "\(r.text)", sourceLocation: sourceLocation)
        #expect(r.json["uuid"]?.stringValue?.isEmpty == false, "\(r.text)", sourceLocation: sourceLocation)
        return r.json["reason"]?.stringValue ?? ""
    }

    /// The `records` of an answer.
    static func records(_ j: JSON) -> [JSON] { j["records"]?.arrayValue ?? [] }

    /// One record (or error item) of a records/* answer that must hold exactly one.
    static func only(_ j: JSON, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        let r = records(j)
        try #require(r.count == 1, "expected one entry: \(j.serialized())", sourceLocation: sourceLocation)
        return r[0]
    }

    /// The sorted keys of an object.
    static func keys(_ j: JSON?) -> [String] { (j?.objectValue.map { Array($0.keys) } ?? []).sorted() }

    /// A lookup of one record in zone `zone`: the record, or the error item.
    func lookup(_ name: String, zone: String = "Z", sourceLocation: SourceLocation = #_sourceLocation) throws -> JSON {
        try WireFixture.only(try ok("records/lookup", #"{"zoneID":{"zoneName":"\#(zone)"},"records":[{"recordName":"\#(name)"}]}"#,
                                    sourceLocation: sourceLocation), sourceLocation: sourceLocation)
    }
}

/// records/modify, records/lookup and records/query over HTTP (web-services.md §4, §5, §6, §9; cloudkit.md §3.2–3.4).
@Suite struct ServeRecordsTests {

    @Test func modifyOperationTypesAndTheCommandLineSeesThem() throws {
        let f = try WireFixture()
        let zone = #""zoneID":{"zoneName":"Z","zoneType":"REGULAR_CUSTOM_ZONE"}"#

        // create: the full record back, as §6.1 lists its keys; pluginFields (pyicloud sends them) accepted; the
        // zoneType the client sent comes back.
        let created = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"create","record":{"recordName":"r1","recordType":"Item",
             "fields":{"title":{"value":"one"},"n":{"value":1,"type":"INT64"}},"pluginFields":{}}}]}
            """#))
        #expect(WireFixture.keys(created) == ["created", "deleted", "fields", "modified", "pluginFields", "recordChangeTag",
                                             "recordName", "recordType", "zoneID"])
        #expect(created["recordName"] == .string("r1"))
        #expect(created["recordType"] == .string("Item"))
        #expect(created["fields"] == .object(["title": .object(["value": .string("one"), "type": .string("STRING")]),
                                              "n": .object(["value": .int(1), "type": .string("INT64")])]))
        #expect(created["pluginFields"] == .object([:]))
        #expect(created["deleted"] == .bool(false))
        #expect(created["zoneID"] == .object(["zoneName": .string("Z"), "ownerRecordName": .string(WireFixture.defaultUser),
                                              "zoneType": .string("REGULAR_CUSTOM_ZONE")]))
        for stamp in ["created", "modified"] {
            #expect(WireFixture.keys(created[stamp]) == ["deviceID", "timestamp", "userRecordName"])
            #expect(created[stamp]?["userRecordName"] == .string(WireFixture.defaultUser))
            // Apple's Web Services writes carry deviceID "2" (§6.2); the command line's are "ck".
            #expect(created[stamp]?["deviceID"] == .string("2"))
            #expect((created[stamp]?["timestamp"]?.int64Value ?? 0) > 1_700_000_000_000)
        }
        let tag1 = try #require(created["recordChangeTag"]?.stringValue)

        // The command line reads what HTTP wrote, device included.
        let cliRecord = try WireFixture.only(try f.cliJSON("-z", "Z", "record", "fetch", "r1"))
        #expect(cliRecord["fields"]?["title"]?["value"] == .string("one"))
        #expect(cliRecord["recordChangeTag"] == .string(tag1))
        #expect(cliRecord["modified"]?["deviceID"] == .string("2"))

        // update with the tag: only the named fields change, and the tag moves.
        let updated = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"update","record":{"recordName":"r1","recordChangeTag":"\#(tag1)",
             "fields":{"title":{"value":"uno"}}}}]}
            """#))
        #expect(updated["fields"]?["title"]?["value"] == .string("uno"))
        #expect(updated["fields"]?["n"]?["value"] == .int(1))
        let tag2 = try #require(updated["recordChangeTag"]?.stringValue)
        #expect(tag2 != tag1)
        #expect(updated["created"]?["timestamp"] == created["created"]?["timestamp"])

        // A stale tag: a per-record CONFLICT inside HTTP 200 with the live keys only (§9.2); nothing changes.
        for type in ["update", "replace", "delete"] {
            let stale = try WireFixture.only(try f.ok("records/modify", #"""
                {\#(zone),"operations":[{"operationType":"\#(type)","record":{"recordName":"r1","recordChangeTag":"\#(tag1)",
                 "fields":{"title":{"value":"lost"}}}}]}
                """#))
            #expect(WireFixture.keys(stale) == ["reason", "recordName", "serverErrorCode"], "\(type): \(stale.serialized())")
            #expect(stale["serverErrorCode"] == .string("CONFLICT"), "\(type)")
            #expect(stale["recordName"] == .string("r1"))
        }
        #expect(try f.lookup("r1")["fields"]?["title"]?["value"] == .string("uno"))
        #expect(try f.lookup("r1")["recordChangeTag"] == .string(tag2))

        // update without a tag is refused as a whole, in CloudKit's words (§9.1).
        let untagged = try f.refused("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"update","record":{"recordName":"r1","fields":{"title":{"value":"x"}}}}]}
            """#, status: 400, code: "BAD_REQUEST")
        #expect(untagged.hasPrefix("BadRequestException: missing required field 'recordChangeTag'"), "\(untagged)")

        // forceUpdate ignores the (stale) tag and changes only the named fields.
        let forced = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"forceUpdate","record":{"recordName":"r1","recordChangeTag":"\#(tag1)",
             "recordType":"Item","fields":{"n":{"value":2}}}}]}
            """#))
        #expect(forced["fields"]?["title"]?["value"] == .string("uno"))
        #expect(forced["fields"]?["n"]?["value"] == .int(2))
        let tag3 = try #require(forced["recordChangeTag"]?.stringValue)

        // forceUpdate "creates a record if it doesn't exist" (cloudkit.md §3.2).
        let made = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"forceUpdate","record":{"recordName":"r2","recordType":"Item",
             "fields":{"title":{"value":"two"}}}}]}
            """#))
        #expect(made["recordName"] == .string("r2"))
        #expect(made["fields"]?["title"]?["value"] == .string("two"))

        // replace: "the fields whose values you do not specify are set to null".
        let replaced = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"replace","record":{"recordName":"r1","recordChangeTag":"\#(tag3)",
             "recordType":"Item","fields":{"title":{"value":"only title"}}}}]}
            """#))
        #expect(replaced["fields"] == .object(["title": .object(["value": .string("only title"), "type": .string("STRING")])]))
        #expect(try f.lookup("r1")["fields"]?["n"] == nil)

        // forceReplace without a tag.
        let forceReplaced = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"forceReplace","record":{"recordName":"r1","recordType":"Item",
             "fields":{"n":{"value":3}}}}]}
            """#))
        #expect(forceReplaced["fields"] == .object(["n": .object(["value": .int(3), "type": .string("INT64")])]))
        let tag5 = try #require(forceReplaced["recordChangeTag"]?.stringValue)

        // create of a name that exists: EXISTS in its place.
        let exists = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"create","record":{"recordName":"r1","recordType":"Item","fields":{}}}]}
            """#))
        #expect(exists["serverErrorCode"] == .string("EXISTS"))
        #expect(WireFixture.keys(exists) == ["reason", "recordName", "serverErrorCode"])

        // delete with the current tag → exactly {recordName, deleted:true} (§4); the command line no longer finds it.
        let deleted = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"delete","record":{"recordName":"r1","recordChangeTag":"\#(tag5)"}}]}
            """#))
        #expect(deleted == .object(["recordName": .string("r1"), "deleted": .bool(true)]))
        #expect(try f.cliResult("-z", "Z", "record", "fetch", "r1").status == 3)

        // forceDelete needs no tag.
        let forceDeleted = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"forceDelete","record":{"recordName":"r2"}}]}
            """#))
        #expect(forceDeleted == .object(["recordName": .string("r2"), "deleted": .bool(true)]))
        #expect(try f.lookup("r2")["serverErrorCode"] == .string("NOT_FOUND"))

        // create without a recordName: "The default value is a random UUID" (cloudkit.md §2.3).
        let unnamed = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"operations":[{"operationType":"create","record":{"recordType":"Item","fields":{"title":{"value":"anon"}}}}]}
            """#))
        let assigned = try #require(unnamed["recordName"]?.stringValue)
        #expect(UUID(uuidString: assigned) != nil, "\(assigned)")
        #expect(try f.lookup(assigned)["fields"]?["title"]?["value"] == .string("anon"))

        // desiredKeys on a modify limits the fields answered, not the fields saved.
        let keyed = try WireFixture.only(try f.ok("records/modify", #"""
            {\#(zone),"desiredKeys":["n"],"operations":[{"operationType":"create","record":{"recordName":"k1","recordType":"Item",
             "fields":{"title":{"value":"kept"},"n":{"value":9}}}}]}
            """#))
        #expect(keyed["fields"] == .object(["n": .object(["value": .int(9), "type": .string("INT64")])]))
        #expect(try f.lookup("k1")["fields"]?["title"]?["value"] == .string("kept"))

        // With ?getCurrentSyncToken=true (iCloud.com, §2.3) a modify answers the database's syncToken, which
        // changes/database takes: nothing has changed since it.
        let withToken = try f.server.post(f.path("records/modify", db: "private") + "?remapEnums=True&getCurrentSyncToken=True", json: #"""
            {\#(zone),"operations":[{"operationType":"forceDelete","record":{"recordName":"k1"}}]}
            """#)
        #expect(withToken.status == 200)
        let current = try #require(withToken.json["syncToken"]?.stringValue)
        #expect(try f.ok("changes/database", #"{"syncToken":"\#(current)"}"#)["zones"] == .array([]))

        // A record the command line saved is updated over HTTP with the tag the command line printed.
        let cliSaved = try WireFixture.only(try f.cliJSON("-z", "Z", "record", "save", "Item", "--name", "c1", "title=from cli"))
        let cliTag = try #require(cliSaved["recordChangeTag"]?.stringValue)
        #expect(cliSaved["created"]?["deviceID"] == .string("ck"))
        let overHTTP = try WireFixture.only(try f.ok("records/modify", #"""
            {"zoneID":{"zoneName":"Z"},"operations":[{"operationType":"update","record":{"recordName":"c1","recordChangeTag":"\#(cliTag)",
             "fields":{"title":{"value":"from http"}}}}]}
            """#))
        #expect(overHTTP["fields"]?["title"]?["value"] == .string("from http"))
        #expect(overHTTP["created"]?["deviceID"] == .string("ck"))
        #expect(overHTTP["modified"]?["deviceID"] == .string("2"))
        #expect(try f.cli("-z", "Z", "record", "fetch", "c1").contains("title=from http"))
    }

    @Test func atomicBatchesInACustomZoneAndNonAtomicBatches() throws {
        let f = try WireFixture(setup: [["-z", "Z", "record", "save", "Item", "--name", "taken", "title=first"]])
        func batch(_ atomic: String) -> String {
            #"""
            {"zoneID":{"zoneName":"Z"},\#(atomic)"operations":[
             {"operationType":"create","record":{"recordName":"ok1","recordType":"Item","fields":{"title":{"value":"a"}}}},
             {"operationType":"create","record":{"recordName":"taken","recordType":"Item","fields":{"title":{"value":"b"}}}},
             {"operationType":"create","record":{"recordName":"ok2","recordType":"Item","fields":{"title":{"value":"c"}}}}]}
            """#
        }
        // atomic:true, and no atomic key ("The default value is true", cloudkit.md §3.2): the failing create fails in
        // its place, the others with ATOMIC_ERROR (ck's reading of §9.4, HTTP 200), and nothing is written.
        for atomic in [#""atomic":true,"#, ""] {
            let out = WireFixture.records(try f.ok("records/modify", batch(atomic)))
            #expect(out.map { $0["recordName"]?.stringValue } == ["ok1", "taken", "ok2"])
            #expect(out.map { $0["serverErrorCode"]?.stringValue } == ["ATOMIC_ERROR", "EXISTS", "ATOMIC_ERROR"])
            for item in out { #expect(WireFixture.keys(item) == ["reason", "recordName", "serverErrorCode"]) }
            #expect(try f.lookup("ok1")["serverErrorCode"] == .string("NOT_FOUND"))
            #expect(try f.lookup("ok2")["serverErrorCode"] == .string("NOT_FOUND"))
            #expect(try f.lookup("taken")["fields"]?["title"]?["value"] == .string("first"))
            #expect(try f.cliResult("-z", "Z", "record", "fetch", "ok1").status == 3)
        }

        // atomic:false applies the good ones.
        let out = WireFixture.records(try f.ok("records/modify", batch(#""atomic":false,"#)))
        #expect(out.map { $0["recordName"]?.stringValue } == ["ok1", "taken", "ok2"])
        #expect(out.map { $0["serverErrorCode"]?.stringValue } == [nil, "EXISTS", nil])
        #expect(out[0]["fields"]?["title"]?["value"] == .string("a"))
        #expect(out[2]["fields"]?["title"]?["value"] == .string("c"))
        #expect(try f.cli("-z", "Z", "record", "fetch", "ok1", "ok2", "-o", "name") == "ok1\nok2\n")

        // A zone without the atomic capability: "setting this property has no effect" (cloudkit.md §10).
        try f.cli("zone", "create", "Loose", "--capabilities", "fetchChanges")
        let loose = WireFixture.records(try f.ok("records/modify", #"""
            {"zoneID":{"zoneName":"Loose"},"atomic":true,"operations":[
             {"operationType":"create","record":{"recordName":"l1","recordType":"Item","fields":{}}},
             {"operationType":"update","record":{"recordName":"ghost","recordChangeTag":"1","fields":{}}}]}
            """#))
        #expect(loose.map { $0["serverErrorCode"]?.stringValue } == [nil, "NOT_FOUND"])
        #expect(try f.lookup("l1", zone: "Loose")["recordName"] == .string("l1"))

        // The default zone: explicit atomic:true is refused in Apple's words (§9.1); no atomic key is non-atomic (§9.4).
        let reason = try f.refused("records/modify", #"""
            {"atomic":true,"operations":[{"operationType":"create","record":{"recordName":"d1","recordType":"Item","fields":{}}}]}
            """#, status: 400, code: "BAD_REQUEST")
        #expect(reason == "atomic operations not supported in default zone")
        #expect(try f.lookup("d1", zone: "_defaultZone")["serverErrorCode"] == .string("NOT_FOUND"))
        try f.cli("record", "save", "Item", "--name", "dtaken", "title=x")
        let mixed = WireFixture.records(try f.ok("records/modify", #"""
            {"operations":[{"operationType":"create","record":{"recordName":"d1","recordType":"Item","fields":{}}},
             {"operationType":"create","record":{"recordName":"dtaken","recordType":"Item","fields":{}}}]}
            """#))
        #expect(mixed.map { $0["serverErrorCode"]?.stringValue } == [nil, "EXISTS"])
        #expect(mixed.first?["zoneID"]?["zoneType"] == .string("DEFAULT_ZONE"))
        #expect(try f.lookup("d1", zone: "_defaultZone")["recordName"] == .string("d1"))
    }

    @Test func everyFieldTypeRoundTrips() throws {
        let f = try WireFixture(zones: ["Z", "Other"])
        // Each value as the reference's types list it (cloudkit.md §2.1–2.6, web-services.md §6.2).
        let sent: [String: (value: String, type: String)] = [
            "s": (#""héllo \"wörld\" / 😀""#, "STRING"),
            "i": ("9007199254740993", "INT64"),
            "neg": ("-42", "INT64"),
            "d": ("2.5", "DOUBLE"),
            "ts": ("1767225600000", "TIMESTAMP"),
            "b": (#""AAEC/w==""#, "BYTES"),
            "ref": (#"{"recordName":"target","action":"NONE","zoneID":{"zoneName":"Z","zoneType":"REGULAR_CUSTOM_ZONE"}}"#, "REFERENCE"),
            "loc": (#"{"latitude":37.33,"longitude":-122.03,"horizontalAccuracy":5.5,"verticalAccuracy":3.5,"altitude":10.25,"speed":1.5,"course":90.5,"timestamp":1767225600000}"#, "LOCATION"),
            "sl": (#"["a","b"]"#, "STRING_LIST"),
            "il": ("[1,2,3]", "INT64_LIST"),
            "dl": ("[1.5,-2.25]", "DOUBLE_LIST"),
            "tl": ("[1767225600000,1767312000000]", "TIMESTAMP_LIST"),
            "bl": (#"["AAE=","/w=="]"#, "BYTES_LIST"),
            "rl": (#"[{"recordName":"target","action":"NONE"}]"#, "REFERENCE_LIST"),
            "ll": (#"[{"latitude":1.5,"longitude":2.5}]"#, "LOCATION_LIST"),
        ]
        let fields = sent.keys.sorted().map { #""\#($0)":{"value":\#(sent[$0]!.value),"type":"\#(sent[$0]!.type)"}"# }
        // Values without `type`: the server fills it in from the value's shape (§6.2).
        let untyped = [#""u_s":{"value":"text"}"#, #""u_i":{"value":7}"#, #""u_d":{"value":0.25}"#,
                       #""u_ref":{"value":{"recordName":"target","action":"NONE"}}"#, #""u_loc":{"value":{"latitude":1.0,"longitude":2.0}}"#]
        let body = #"""
            {"zoneID":{"zoneName":"Z"},"operations":[
             {"operationType":"create","record":{"recordName":"target","recordType":"Target","fields":{}}},
             {"operationType":"create","record":{"recordName":"all","recordType":"AllTypes","pluginFields":{},
              "fields":{\#((fields + untyped).joined(separator: ","))}}}]}
            """#
        let saved = WireFixture.records(try f.ok("records/modify", body))
        try #require(saved.count == 2 && saved[1]["serverErrorCode"] == nil, "\(saved)")
        let looked = try f.lookup("all")

        for (source, record) in [("modify", saved[1]), ("lookup", looked)] {
            let got = record["fields"]
            for (name, expected) in sent {
                let value = try #require(try? JSON.parse(expected.value))
                #expect(got?[name]?["type"] == .string(expected.type), "\(source) \(name): \(got?[name]?.serialized() ?? "missing")")
                #expect(Self.same(got?[name]?["value"], value), "\(source) \(name): sent \(expected.value), got \(got?[name]?["value"]?.serialized() ?? "nil")")
            }
            #expect(got?["u_s"] == .object(["value": .string("text"), "type": .string("STRING")]), "\(source)")
            #expect(got?["u_i"] == .object(["value": .int(7), "type": .string("INT64")]), "\(source)")
            #expect(got?["u_d"] == .object(["value": .double(0.25), "type": .string("DOUBLE")]), "\(source)")
            #expect(got?["u_ref"]?["type"] == .string("REFERENCE"), "\(source)")
            #expect(got?["u_ref"]?["value"]?["recordName"] == .string("target"), "\(source)")
            #expect(got?["u_loc"]?["type"] == .string("LOCATION"), "\(source)")
            #expect(got?["u_loc"]?["value"]?["latitude"]?.doubleValue == 1.0, "\(source)")
        }

        // numbersAsStrings: INT64 and DOUBLE values (and lists of them) as strings (cloudkit.md §2.2).
        let asStrings = try WireFixture.only(try f.ok("records/lookup", #"""
            {"zoneID":{"zoneName":"Z"},"numbersAsStrings":true,"records":[{"recordName":"all"}]}
            """#))
        #expect(asStrings["fields"]?["i"]?["value"] == .string("9007199254740993"))
        #expect(asStrings["fields"]?["d"]?["value"] == .string("2.5"))
        #expect(asStrings["fields"]?["il"]?["value"] == .array([.string("1"), .string("2"), .string("3")]))
        #expect(asStrings["fields"]?["s"]?["value"] == .string(#"héllo "wörld" / 😀"#))

        // The command line reads the same values.
        let cli = try WireFixture.only(try f.cliJSON("-z", "Z", "record", "fetch", "all"))
        #expect(cli["fields"]?["i"]?["value"] == .int(9007199254740993))
        #expect(cli["fields"]?["ts"]?["type"] == .string("TIMESTAMP"))
        #expect(cli["fields"]?["b"]?["value"] == .string("AAEC/w=="))
        #expect(cli["fields"]?["s"]?["value"] == .string(#"héllo "wörld" / 😀"#))

        // A record in another zone keeps the zoneType its client sent on the record and on a reference.
        let other = try WireFixture.only(try f.ok("records/modify", #"""
            {"operations":[{"operationType":"create","record":{"recordName":"o1","recordType":"Target",
              "zoneID":{"zoneName":"Other","zoneType":"REGULAR_CUSTOM_ZONE"},"pluginFields":{},
              "fields":{"up":{"value":{"recordName":"t2","action":"NONE","zoneID":{"zoneName":"Other","zoneType":"REGULAR_CUSTOM_ZONE"}}}}}}]}
            """#))
        #expect(other["zoneID"]?["zoneName"] == .string("Other"))
        #expect(other["zoneID"]?["zoneType"] == .string("REGULAR_CUSTOM_ZONE"))
        #expect(other["fields"]?["up"]?["value"]?["zoneID"]?["zoneType"] == .string("REGULAR_CUSTOM_ZONE"))
        let inDefault = try WireFixture.only(try f.ok("records/modify", #"""
            {"zoneID":{"zoneName":"_defaultZone","zoneType":"DEFAULT_ZONE"},"operations":[{"operationType":"create",
              "record":{"recordName":"d1","recordType":"Target","fields":{}}}]}
            """#))
        #expect(inDefault["zoneID"]?["zoneType"] == .string("DEFAULT_ZONE"))
    }

    /// Whether a returned value is the value sent: numbers compared as numbers (2.0 and 2 alike), objects and
    /// arrays member by member.
    static func same(_ a: JSON?, _ b: JSON) -> Bool {
        guard let a else { return false }
        switch (a, b) {
        case (.int(let x), .int(let y)): return x == y
        case (.int, .double), (.double, .int), (.double, .double): return a.doubleValue == b.doubleValue
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        case (.object(let x), .object(let y)): return Set(x.keys) == Set(y.keys) && y.allSatisfy { same(x[$0.key], $0.value) }
        default: return a == b
        }
    }

    @Test func lookupFoundMissingAndDesiredKeys() throws {
        let f = try WireFixture(setup: [
            ["-z", "Z", "record", "save", "Item", "--name", "a", "title=A", "n=1", "note=first"],
            ["-z", "Z", "record", "save", "Item", "--name", "b", "title=B", "n=2", "note=second"],
            ["record", "save", "Item", "--name", "inDefault", "title=D"],
        ])
        // One entry per name, in request order; a missing one is exactly the CloudyKit fixture's shape (§4).
        let out = WireFixture.records(try f.ok("records/lookup", #"""
            {"zoneID":{"zoneName":"Z"},"records":[{"recordName":"b"},{"recordName":"nope"},{"recordName":"a"}]}
            """#))
        try #require(out.count == 3)
        #expect(out[0]["recordName"] == .string("b"))
        #expect(out[0]["fields"]?["title"]?["value"] == .string("B"))
        #expect(out[1] == .object(["recordName": .string("nope"), "reason": .string("Record not found"),
                                   "serverErrorCode": .string("NOT_FOUND")]))
        #expect(out[2]["recordName"] == .string("a"))
        #expect(out[2]["fields"]?["note"]?["value"] == .string("first"))

        // desiredKeys for all; an item's own desiredKeys wins; [] means no fields.
        let keyed = WireFixture.records(try f.ok("records/lookup", #"""
            {"zoneID":{"zoneName":"Z"},"desiredKeys":["title"],
             "records":[{"recordName":"a"},{"recordName":"b","desiredKeys":["n","note"]}]}
            """#))
        #expect(WireFixture.keys(keyed.first?["fields"]) == ["title"])
        #expect(WireFixture.keys(keyed.last?["fields"]) == ["n", "note"])
        let none = try WireFixture.only(try f.ok("records/lookup", #"{"zoneID":{"zoneName":"Z"},"desiredKeys":[],"records":[{"recordName":"a"}]}"#))
        #expect(none["fields"] == .object([:]))
        #expect(none["recordChangeTag"]?.stringValue?.isEmpty == false)

        // No zoneID is the default zone (a live lookup sent none, §4): the custom zone's record is not there.
        let defaults = WireFixture.records(try f.ok("records/lookup", #"{"records":[{"recordName":"inDefault"},{"recordName":"a"}]}"#))
        #expect(defaults.first?["fields"]?["title"]?["value"] == .string("D"))
        #expect(defaults.first?["zoneID"]?["zoneType"] == .string("DEFAULT_ZONE"))
        #expect(defaults.last?["serverErrorCode"] == .string("NOT_FOUND"))

        // The public database: records carry no zoneID (§6.2).
        let pub = try WireFixture.only(try f.ok("records/modify", #"""
            {"operations":[{"operationType":"create","record":{"recordName":"p1","recordType":"Item","fields":{"title":{"value":"P"}}}}]}
            """#, db: "public"))
        #expect(pub["zoneID"] == nil)
        #expect(pub["created"]?["deviceID"] == .string("2"))
        let pubLooked = try WireFixture.only(try f.ok("records/lookup", #"{"records":[{"recordName":"p1"}]}"#, db: "public"))
        #expect(pubLooked["zoneID"] == nil)
        #expect(pubLooked["fields"]?["title"]?["value"] == .string("P"))
        #expect(WireFixture.keys(pubLooked) == ["created", "deleted", "fields", "modified", "pluginFields", "recordChangeTag",
                                               "recordName", "recordType"])

        // `records` as one object, as iCloud.com accepts (§4).
        let single = try WireFixture.only(try f.ok("records/lookup", #"{"zoneID":{"zoneName":"Z"},"records":{"recordName":"a"}}"#))
        #expect(single["recordName"] == .string("a"))
    }

    @Test func queryFiltersSortsAndPagesEveryRecordOnce() throws {
        let f = try WireFixture()
        // 11 records: n 0…10, group n % 3 (ties for the sort), tags, and a date one day apart.
        let day: Int64 = 86_400_000, start: Int64 = 1_767_225_600_000
        let ops = (0...10).map { n in
            #"""
            {"operationType":"create","record":{"recordName":"q\#(n)","recordType":"Item","fields":{
             "title":{"value":"t\#(n)"},"n":{"value":\#(n)},"group":{"value":\#(n % 3)},
             "tags":{"value":\#(n % 2 == 0 ? #"["even","all"]"# : #"["odd","all"]"#)},
             "due":{"value":\#(start + Int64(n) * day),"type":"TIMESTAMP"}}}}
            """#
        }
        let saved = WireFixture.records(try f.ok("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[\#(ops.joined(separator: ","))]}"#))
        try #require(saved.count == 11 && saved.allSatisfy { $0["serverErrorCode"] == nil }, "\(saved)")
        // Development indexes user fields by itself, never system fields (docs/query.md): a query without a filter
        // needs ___recordID queryable.
        try f.cli("schema", "index", "Item", "___recordID", "--queryable")
        // One the command line saved, of another type: never in an Item query.
        try f.cli("-z", "Z", "record", "save", "Other", "--name", "x", "n=5")

        func names(_ filter: String, sort: String = #"[{"fieldName":"n"}]"#, extra: String = "") throws -> [String] {
            let j = try f.ok("records/query", #"""
                {"zoneID":{"zoneName":"Z"},\#(extra)"query":{"recordType":"Item","filterBy":\#(filter),"sortBy":\#(sort)}}
                """#)
            #expect(j["continuationMarker"] == nil)
            return WireFixture.records(j).compactMap { $0["recordName"]?.stringValue }
        }
        func filter(_ field: String, _ comparator: String, _ value: String) -> String {
            #"[{"fieldName":"\#(field)","comparator":"\#(comparator)","fieldValue":{"value":\#(value)}}]"#
        }
        #expect(try names(filter("title", "EQUALS", #""t4""#)) == ["q4"])
        #expect(try names(filter("n", "NOT_EQUALS", "0")).count == 10)
        #expect(try names(filter("n", "GREATER_THAN", "7")) == ["q8", "q9", "q10"])
        #expect(try names(filter("n", "LESS_THAN_OR_EQUALS", "1")) == ["q0", "q1"])
        #expect(try names(filter("n", "IN", "[2,5]")) == ["q2", "q5"])
        #expect(try names(filter("title", "BEGINS_WITH", #""t1""#)) == ["q1", "q10"])
        #expect(try names(filter("tags", "LIST_CONTAINS", #""odd""#)) == ["q1", "q3", "q5", "q7", "q9"])
        // Two filters are ANDed; a TIMESTAMP compared with a bare number (no `type`: ck takes it from the schema).
        #expect(try names(#"""
            [{"fieldName":"group","comparator":"EQUALS","fieldValue":{"value":0}},
             {"fieldName":"due","comparator":"GREATER_THAN_OR_EQUALS","fieldValue":{"value":\#(start + 5 * day)}}]
            """#) == ["q6", "q9"])
        #expect(try names(#"[{"fieldName":"due","comparator":"LESS_THAN","fieldValue":{"value":\#(start + day),"type":"TIMESTAMP"}}]"#) == ["q0"])
        // sortBy descending, and by a system field (the index exists).
        #expect(try names("[]", sort: #"[{"fieldName":"n","ascending":false}]"#) == (0...10).reversed().map { "q\($0)" })
        #expect(try names(#"[{"systemFieldName":"recordName","comparator":"EQUALS","fieldValue":{"value":{"recordName":"q3"},"type":"REFERENCE"}}]"#) == ["q3"])

        // resultsLimit 4, sorted by group (ties): the same body with each continuationMarker until there is none;
        // every record once, pages 4, 4, 3, groups never going back.
        var seen: [String] = [], pages: [Int] = [], groups: [Int64] = []
        var marker: String? = nil, firstMarker: String? = nil
        repeat {
            let m = marker.map { #""continuationMarker":"\#($0)","# } ?? ""
            let j = try f.ok("records/query", #"""
                {"zoneID":{"zoneName":"Z"},\#(m)"resultsLimit":4,"desiredKeys":["group"],"query":{"recordType":"Item","sortBy":[{"fieldName":"group"}]}}
                """#)
            let page = WireFixture.records(j)
            pages.append(page.count)
            seen += page.compactMap { $0["recordName"]?.stringValue }
            groups += page.compactMap { $0["fields"]?["group"]?["value"]?.int64Value }
            for r in page { #expect(WireFixture.keys(r["fields"]) == ["group"]) }
            marker = j["continuationMarker"]?.stringValue
            if firstMarker == nil { firstMarker = marker }
        } while marker != nil && pages.count < 20
        #expect(pages == [4, 4, 3])
        #expect(seen.sorted() == (0...10).map { "q\($0)" }.sorted())
        #expect(Set(seen).count == 11)
        #expect(groups == groups.sorted())
        // The marker belongs to its query: sent with another sort, it is refused.
        let used = try #require(firstMarker)
        #expect(try f.refused("records/query", #"""
            {"zoneID":{"zoneName":"Z"},"continuationMarker":"\#(used)","resultsLimit":4,"query":{"recordType":"Item","sortBy":[{"fieldName":"n"}]}}
            """#, status: 400, code: "BAD_REQUEST").isEmpty == false)

        // zoneWide without a zoneID: every zone of the user; a zoneID makes zoneWide ignored (cloudkit.md §3.4).
        try f.cli("record", "save", "Item", "--name", "inDefault", "title=t4", "n=4")
        let wide = try f.ok("records/query", #"{"zoneWide":true,"query":{"recordType":"Item","filterBy":\#(filter("title", "EQUALS", #""t4""#))}}"#)
        #expect(WireFixture.records(wide).map { $0["zoneID"]?["zoneName"]?.stringValue ?? "" }.sorted() == ["Z", "_defaultZone"])
        #expect(try names(filter("title", "EQUALS", #""t4""#), extra: #""zoneWide":true,"#) == ["q4"])

        // A page holding exactly the last records carries no marker; a limit over 200 is served as 200 (§5).
        let all = try f.ok("records/query", #"{"zoneID":{"zoneName":"Z"},"resultsLimit":11,"query":{"recordType":"Item"}}"#)
        #expect(WireFixture.records(all).count == 11)
        #expect(all["continuationMarker"] == nil)
        #expect(WireFixture.records(try f.ok("records/query", #"{"zoneID":{"zoneName":"Z"},"resultsLimit":5000,"query":{"recordType":"Item"}}"#)).count == 11)

        // Errors of the whole request (§9.1, cloudkit.md §4.3).
        let badMarker = try f.refused("records/query", #"{"zoneID":{"zoneName":"Z"},"continuationMarker":"bm90IGEgbWFya2Vy","query":{"recordType":"Item"}}"#,
                                      status: 400, code: "BAD_REQUEST")
        #expect(badMarker.isEmpty == false)
        #expect(try f.refused("records/query", #"{"zoneID":{"zoneName":"Z"},"query":{"recordType":"Nope"}}"#,
                              status: 404, code: "NOT_FOUND") == "Did not find record type: Nope")
        // The Other type has no ___recordID index: a filter on recordName, a query without filter, a sort on a
        // system field without its index.
        #expect(try f.refused("records/query", #"""
            {"zoneID":{"zoneName":"Z"},"query":{"recordType":"Other","filterBy":[{"systemFieldName":"recordName","comparator":"EQUALS",
             "fieldValue":{"value":{"recordName":"x"},"type":"REFERENCE"}}]}}
            """#, status: 400, code: "BAD_REQUEST") == "Field 'recordName' is not marked queryable")
        #expect(try f.refused("records/query", #"{"zoneID":{"zoneName":"Z"},"query":{"recordType":"Other"}}"#,
                              status: 400, code: "BAD_REQUEST") == "Type is not marked indexable")
        #expect(try f.refused("records/query", #"""
            {"zoneID":{"zoneName":"Z"},"query":{"recordType":"Other","filterBy":[{"fieldName":"n","comparator":"EQUALS","fieldValue":{"value":5}}],
             "sortBy":[{"systemFieldName":"createdTimestamp"}]}}
            """#, status: 400, code: "BAD_REQUEST") == "Field '___createTime' is not marked sortable")
        let unknownField = try f.refused("records/query", #"{"zoneID":{"zoneName":"Z"},"query":{"recordType":"Item","filterBy":\#(filter("nofield", "EQUALS", "1"))}}"#,
                                         status: 400, code: "BAD_REQUEST")
        #expect(unknownField.contains("Did not find field: 'nofield' in type: 'Item'"), "\(unknownField)")
    }
}

extension ServeRecordsTests {
    @Test func malformedRecordRequestsNameTheKeyAndWriteNothing() throws {
        let f = try WireFixture()
        let before = try #require(try f.ok("changes/database", "{}")["syncToken"]?.stringValue)
        let good = #"{"operationType":"create","record":{"recordName":"m1","recordType":"Item","fields":{"title":{"value":"x"}}}}"#
        // Each a whole-request BAD_REQUEST (400) whose reason starts with the place of the wrong value (§9.1); the
        // good operation before a bad one is not applied.
        let cases: [(op: String, body: String, place: String)] = [
            ("records/modify", #"{}"#, "operations"),
            ("records/modify", #"{"operations":"x"}"#, "operations"),
            ("records/modify", #"{"operations":[\#(good),7]}"#, "operations[1]"),
            ("records/modify", #"{"operations":[\#(good),{"operationType":"create"}]}"#, "operations[1].record"),
            ("records/modify", #"{"operations":[\#(good),{"operationType":"create","record":{"recordName":5,"recordType":"Item"}}]}"#, "operations[1].record.recordName"),
            ("records/modify", #"{"operations":[\#(good),{"operationType":"make","record":{"recordName":"m2","recordType":"Item"}}]}"#, "operations[1].operationType"),
            ("records/modify", #"{"operations":[\#(good),{"operationType":"create","record":{"recordName":"m2","recordType":"Item","fields":"x"}}]}"#, "operations[1].record.fields"),
            ("records/modify", #"{"operations":[\#(good),{"operationType":"create","record":{"recordName":"m2","recordType":"Item","fields":{"a":5}}}]}"#, "operations[1].record.fields.a"),
            ("records/modify", #"{"zoneID":{"zoneName":"Z"},"operations":[\#(good),{"operationType":"create","record":{"recordName":"m2","recordType":"Item","zoneID":{"zoneName":"_defaultZone"}}}]}"#, "operations[1].record.zoneID"),
            ("records/modify", #"{"operations":[\#(good)],"atomic":"yes"}"#, "atomic"),
            ("records/modify", #"{"operations":[\#(good)],"zoneID":"Z"}"#, "zoneID"),
            ("records/modify", #"{"operations":[\#(good)],"zoneID":{"zoneName":1}}"#, "zoneID.zoneName"),
            ("records/modify", #"{"operations":[\#(good)],"desiredKeys":"title"}"#, "desiredKeys"),
            ("records/modify", #"{"operations":[\#(good)],"numbersAsStrings":"yes"}"#, "numbersAsStrings"),
            ("records/lookup", #"{"records":"m1"}"#, "records"),
            ("records/lookup", #"{"records":[{"recordName":1}]}"#, "records[0].recordName"),
            ("records/lookup", #"{"records":[{"recordName":"m1"}],"desiredKeys":[1]}"#, "desiredKeys[0]"),
            ("records/query", #"{}"#, "query"),
            ("records/query", #"{"query":{"recordType":7}}"#, "query.recordType"),
            ("records/query", #"{"query":{"recordType":"Item","filterBy":{}}}"#, "query.filterBy"),
            ("records/query", #"{"query":{"recordType":"Item"},"resultsLimit":"5"}"#, "resultsLimit"),
            ("records/query", #"{"query":{"recordType":"Item"},"resultsLimit":0}"#, "resultsLimit"),
            ("records/query", #"{"query":{"recordType":"Item"},"continuationMarker":5}"#, "continuationMarker"),
            ("records/query", #"{"query":{"recordType":"Item"},"zoneWide":"yes"}"#, "zoneWide"),
        ]
        for c in cases {
            let reason = try f.refused(c.op, c.body, status: 400, code: "BAD_REQUEST")
            #expect(reason.hasPrefix(c.place + ":"), "\(c.op) \(c.body): \(reason)")
        }
        // A body that is not a JSON object.
        #expect(try f.refused("records/modify", "[1]", status: 400, code: "BAD_REQUEST") == "the request body must be a JSON object, not array")
        #expect(try f.refused("records/modify", "{\"operations\":[", status: 400, code: "BAD_REQUEST").hasPrefix("the request body is not valid JSON"))

        // Nothing was written: m1 is nowhere, and the database has no changes since before.
        #expect(try f.lookup("m1", zone: "_defaultZone")["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(try f.lookup("m1")["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(try f.ok("changes/database", #"{"syncToken":"\#(before)"}"#)["zones"] == .array([]))

        // A value of the wrong type for a field the schema has is an error of that record, inside HTTP 200, naming the
        // field (live: BAD_REQUEST "Invalid value, expected type TIMESTAMP.", §9.2).
        try f.cli("-z", "Z", "record", "save", "Item", "--name", "typed", "when:date=2026-01-01T00:00:00Z")
        let wrong = WireFixture.records(try f.ok("records/modify", #"""
            {"zoneID":{"zoneName":"Z"},"atomic":false,"operations":[
             {"operationType":"create","record":{"recordName":"w1","recordType":"Item","fields":{"when":{"value":"soon"}}}},
             {"operationType":"create","record":{"recordName":"w2","recordType":"Item","fields":{"when":{"value":1767225600000}}}}]}
            """#))
        try #require(wrong.count == 2)
        #expect(wrong[0]["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(wrong[0]["reason"]?.stringValue?.contains("when") == true, "\(wrong[0].serialized())")
        #expect(wrong[1]["fields"]?["when"] == .object(["value": .int(1767225600000), "type": .string("TIMESTAMP")]))
    }
}

/// zones/list, zones/lookup, zones/modify and the legacy zones/changes over HTTP (web-services.md §4, §6.4;
/// cloudkit.md §3.7).
@Suite struct ServeZonesTests {

    @Test func listLookupCreateAndDelete() throws {
        let f = try WireFixture()
        let me = WireFixture.defaultUser
        let defaultID: JSON = .object(["zoneName": .string("_defaultZone"), "ownerRecordName": .string(me), "zoneType": .string("DEFAULT_ZONE")])
        let zID: JSON = .object(["zoneName": .string("Z"), "ownerRecordName": .string(me), "zoneType": .string("REGULAR_CUSTOM_ZONE")])

        // zones/list by GET (Apple) and POST {} (iCloud.com clients): api.apple-cloudkit.com's entry keys; the private
        // default zone has all three booleans false (§6.4).
        let get = try f.server.get(f.path("zones/list", db: "private"))
        #expect(get.status == 200)
        let post = try f.ok("zones/list", "{}")
        #expect(get.json == post)
        let zones = post["zones"]?.arrayValue ?? []
        #expect(zones.map { $0["zoneID"] } == [defaultID, zID])
        #expect(zones.first == .object(["zoneID": defaultID, "atomic": .bool(false), "isEligibleForZoneShare": .bool(false),
                                        "isEligibleForHierarchicalShare": .bool(false)]))
        #expect(zones.last?["atomic"] == .bool(true))
        #expect(WireFixture.keys(post) == ["zones"])

        // zones/lookup: in request order, a missing zone as {zoneID, reason, serverErrorCode:"ZONE_NOT_FOUND"};
        // an echoed zoneType is accepted.
        let looked = try f.ok("zones/lookup", #"{"zones":[{"zoneName":"nope"},{"zoneName":"Z","zoneType":"REGULAR_CUSTOM_ZONE"},{"zoneName":"_defaultZone"}]}"#)["zones"]?.arrayValue ?? []
        try #require(looked.count == 3)
        #expect(WireFixture.keys(looked[0]) == ["reason", "serverErrorCode", "zoneID"])
        #expect(looked[0]["serverErrorCode"] == .string("ZONE_NOT_FOUND"))
        #expect(looked[0]["zoneID"]?["zoneName"] == .string("nope"))
        #expect(looked[1]["zoneID"] == zID)
        #expect(looked[1]["atomic"] == .bool(true))
        #expect(looked[2]["zoneID"] == defaultID)

        // zones/modify create → {zoneID, syncToken, atomic:true} (§4); the command line lists the zone.
        let made = try f.ok("zones/modify", #"""
            {"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Fresh"}}},
                           {"operationType":"create","zone":{"zoneID":{"zoneName":"Second","zoneType":"REGULAR_CUSTOM_ZONE"},"atomic":true}}]}
            """#)["zones"]?.arrayValue ?? []
        try #require(made.count == 2)
        #expect(WireFixture.keys(made[0]) == ["atomic", "syncToken", "zoneID"])
        #expect(made[0]["zoneID"] == .object(["zoneName": .string("Fresh"), "ownerRecordName": .string(me), "zoneType": .string("REGULAR_CUSTOM_ZONE")]))
        #expect(made[0]["atomic"] == .bool(true))
        #expect(made[0]["syncToken"]?.stringValue?.isEmpty == false)
        #expect(made[1]["zoneID"]?["zoneType"] == .string("REGULAR_CUSTOM_ZONE"))
        #expect(try f.cli("zone", "list", "-o", "name") == "_defaultZone\nFresh\nSecond\nZ\n")
        // A record can be saved in it at once, and the zone's token from create starts its change feed.
        _ = try f.ok("records/modify", #"{"zoneID":{"zoneName":"Fresh"},"operations":[{"operationType":"create","record":{"recordName":"r","recordType":"Item","fields":{}}}]}"#)
        let token = try #require(made[0]["syncToken"]?.stringValue)
        let feed = try f.ok("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Fresh"},"syncToken":"\#(token)"}]}"#)["zones"]?.arrayValue?.first
        #expect(WireFixture.records(feed ?? .null).map { $0["recordName"] } == [.string("r")])

        // delete → {zoneID, deleted:true}; a missing zone fails in its place; the default zone can't be deleted.
        let gone = try f.ok("zones/modify", #"""
            {"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Fresh"}}},
                           {"operationType":"delete","zone":{"zoneID":{"zoneName":"missing"}}},
                           {"operationType":"delete","zone":{"zoneID":{"zoneName":"_defaultZone"}}}]}
            """#)["zones"]?.arrayValue ?? []
        try #require(gone.count == 3)
        #expect(gone[0] == .object(["zoneID": .object(["zoneName": .string("Fresh"), "ownerRecordName": .string(me),
                                                       "zoneType": .string("REGULAR_CUSTOM_ZONE")]), "deleted": .bool(true)]))
        #expect(gone[1]["serverErrorCode"] == .string("ZONE_NOT_FOUND"))
        #expect(WireFixture.keys(gone[1]) == ["reason", "serverErrorCode", "zoneID"])
        #expect(gone[2]["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(try f.cli("zone", "list", "-o", "name") == "_defaultZone\nSecond\nZ\n")
        // A request naming the deleted zone fails as a whole: ZONE_NOT_FOUND, 404 (cloudkit.md §4.2).
        #expect(try f.refused("records/lookup", #"{"zoneID":{"zoneName":"Fresh"},"records":[{"recordName":"r"}]}"#,
                              status: 404, code: "ZONE_NOT_FOUND") == "Zone 'Fresh' does not exist")

        // A zone the command line deletes is gone from zones/list.
        try f.cli("zone", "delete", "Second", "-y")
        #expect((try f.ok("zones/list", "{}")["zones"]?.arrayValue ?? []).map { $0["zoneID"]?["zoneName"] } == [.string("_defaultZone"), .string("Z")])

        // The public database has only its default zone, and no custom zones can be made there.
        let pub = try f.ok("zones/list", "{}", db: "public")["zones"]?.arrayValue ?? []
        #expect(pub.map { $0["zoneID"]?["zoneName"] } == [.string("_defaultZone")])
        let refused = try f.ok("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"P"}}}]}"#, db: "public")["zones"]?.arrayValue?.first
        #expect(refused?["serverErrorCode"] == .string("BAD_REQUEST"))
    }

    @Test func zoneChangesPagesWithMetaSyncToken() throws {
        let f = try WireFixture(zones: [])
        for z in ["A", "B", "C"] {
            _ = try f.ok("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"\#(z)"}}}]}"#)
        }
        // Legacy zones/changes ({metaSyncToken?, resultsLimit?} → {zones, metaSyncToken, moreComing}, cloudkit.md §3.7),
        // one zone a page.
        var seen: [String] = [], token: String? = nil, more = true, calls = 0
        while more && calls < 10 {
            let t = token.map { #""metaSyncToken":"\#($0)","# } ?? ""
            let j = try f.ok("zones/changes", #"{\#(t)"resultsLimit":1}"#)
            #expect(WireFixture.keys(j) == ["metaSyncToken", "moreComing", "zones"])
            let zones = j["zones"]?.arrayValue ?? []
            #expect(zones.count <= 1)
            seen += zones.compactMap { $0["zoneID"]?["zoneName"]?.stringValue }
            token = j["metaSyncToken"]?.stringValue
            more = j["moreComing"]?.boolValue ?? false
            calls += 1
        }
        #expect(seen.sorted() == ["A", "B", "C"])
        #expect(calls >= 3)
        // Since the last token: nothing; then a deleted zone as {zoneID, deleted:true}.
        let t = try #require(token)
        #expect(try f.ok("zones/changes", #"{"metaSyncToken":"\#(t)"}"#)["zones"] == .array([]))
        _ = try f.ok("zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"B"}}}]}"#)
        let after = try f.ok("zones/changes", #"{"metaSyncToken":"\#(t)"}"#)["zones"]?.arrayValue ?? []
        #expect(after.count == 1)
        #expect(after.first?["zoneID"]?["zoneName"] == .string("B"))
        #expect(after.first?["deleted"] == .bool(true))
        #expect(try f.refused("zones/changes", #"{"metaSyncToken":"garbage"}"#, status: 400, code: "BAD_REQUEST").isEmpty == false)
    }

    @Test func malformedZoneRequestsNameTheKeyAndChangeNothing() throws {
        let f = try WireFixture()
        let cases: [(op: String, body: String, place: String)] = [
            ("zones/lookup", #"{"zones":"Z"}"#, "zones"),
            ("zones/lookup", #"{"zones":[{"zoneName":5}]}"#, "zones[0].zoneName"),
            ("zones/lookup", #"{}"#, "zones"),
            ("zones/modify", #"{"operations":{}}"#, "operations"),
            ("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"New1"}}},{"operationType":"create","zone":"New2"}]}"#, "operations[1].zone"),
            ("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"New1"}}},{"operationType":"make","zone":{"zoneID":{"zoneName":"New2"}}}]}"#, "operations[1].operationType"),
            ("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"New1"},"atomic":"yes"}}]}"#, "operations[0].zone.atomic"),
            ("zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Z"}},"purge":1}]}"#, "operations[0].purge"),
            ("zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":["Z"]}}}]}"#, "operations[0].zone.zoneID.zoneName"),
            ("zones/changes", #"{"metaSyncToken":7}"#, "metaSyncToken"),
            ("zones/changes", #"{"resultsLimit":"2"}"#, "resultsLimit"),
        ]
        for c in cases {
            let reason = try f.refused(c.op, c.body, status: 400, code: "BAD_REQUEST")
            #expect(reason.hasPrefix(c.place + ":"), "\(c.op) \(c.body): \(reason)")
        }
        #expect(try f.cli("zone", "list", "-o", "name") == "_defaultZone\nZ\n")
    }
}
