import Foundation
import Testing
import CKModel
import CKServer
import CKServe
import CKTestSupport

// A fixed-seed fuzz of `ck serve`'s request decoding. Valid Web Services requests for every endpoint are mutated
// (bytes flipped, removed or inserted, truncations, a JSON node replaced by a wrong type, a huge number, deep
// nesting or invalid UTF-8, random methods, paths and query strings, odd Content-Types) and each answer is checked
// against the reference (web-services.md §9): a 2xx is JSON; anything else is a JSON body with a `uuid`, a known
// `serverErrorCode` with its documented status, and a non-empty `reason`; never a 500 for bad input.
//
// The store oracle: records saved before the fuzz must still be there with the same change tag, unless a 2xx
// answer acknowledged a change to that record name (a records/modify item without serverErrorCode) or to its zone
// (a zones/modify item without serverErrorCode). A request answered with a request-level error changed nothing.
//
// Most requests go in-process through `CloudKitServer.respond` (fast: thousands in seconds); a smaller batch goes
// over HTTP to a real `ck serve --no-auth`, with malformed HTTP framing besides, and the server must be alive after.
//   CK_SERVE_FUZZ_ITERATIONS=50000 CK_FUZZ_SEED=123 swift test --filter ServeFuzzTests
@Suite(.serialized)
struct ServeFuzzTests {
    static let iterations: Int = {
        guard let t = ProcessInfo.processInfo.environment["CK_SERVE_FUZZ_ITERATIONS"], let n = Int(t), n >= 0 else { return 3000 }
        return n
    }()

    static let seed: UInt64 = {
        let fixed: UInt64 = 0x5E4E_F022_2026_0006
        guard let t = ProcessInfo.processInfo.environment["CK_FUZZ_SEED"], !t.isEmpty else { return fixed }
        return t.lowercased().hasPrefix("0x") ? UInt64(t.dropFirst(2), radix: 16) ?? fixed : UInt64(t) ?? fixed
    }()

    static var replay: String { "CK_FUZZ_SEED=\(seed) CK_SERVE_FUZZ_ITERATIONS=\(iterations)" }

    @Test(.timeLimit(.minutes(2)))
    func inProcessRequestsAreAnsweredInCloudKitsShape() throws {
        let temp = try TempStore()
        let container = CKStore.defaultContainerID
        let seeded = try ServeFuzzTests.seed(temp.store, container: container)
        var options = ServeOptions()
        options.port = 0
        options.noAuthUser = CKContainer.defaultUserName
        options.courierHold = 0.05
        let server = CloudKitServer(store: temp.store, options: options)

        var gen = RequestFuzzer(seed: ServeFuzzTests.seed, container: container)
        var log = ServeFuzzLog(label: "in-process")
        for i in 0..<ServeFuzzTests.iterations {
            let request = gen.next()
            log.iteration = i
            guard let response = ServeFuzzTests.respond(server, request) else {
                log.fail("no reply within 10 s", request: request, response: nil)
                continue
            }
            log.check(request, response)
        }
        // Still answering, and the store intact but for what was acknowledged.
        let health = ServeFuzzTests.respond(server, HTTPRequest(method: "POST", target: "/database/1/\(container)/development/private/records/lookup",
                                                                body: Array(#"{"records":[{"recordName":"f0"}],"zoneID":{"zoneName":"Fuzz"}}"#.utf8)))
        #expect(health?.status == 200, "the server stopped answering valid requests after the fuzz")
        let after = try ServeFuzzTests.snapshot(temp.store, container: container)
        log.checkStore(before: seeded, after: after)
        log.finish()
    }

    @Test(.timeLimit(.minutes(2)))
    func overHTTPTheServerStaysUpAndAnswersJSON() throws {
        let sandbox = try Sandbox()
        let container = "iCloud.ck.fuzz"
        for args in [["container", "create", container], ["-c", container, "zone", "create", "Fuzz"],
                     ["-c", container, "-z", "Fuzz", "record", "save", "Note", "--name", "f0", "title=zero", "n=0"],
                     ["-c", container, "-z", "Fuzz", "record", "save", "Note", "--name", "f1", "title=one", "n=1"]] {
            let r = try sandbox.run(args)
            try #require(r.status == 0, "ck \(args.joined(separator: " ")): \(r.stderr)")
        }
        let server = try ServeProcess(sandbox, arguments: ["--no-auth"])
        defer { server.stop() }
        var gen = RequestFuzzer(seed: ServeFuzzTests.seed ^ 0x4854_5450, container: container)
        var log = ServeFuzzLog(label: "http")
        let count = max(50, ServeFuzzTests.iterations / 10)
        for i in 0..<count {
            log.iteration = i
            if i % 10 == 9 {
                // Broken framing: evhttp itself may answer (400, HTML) or close; only survival is required here.
                let raw = gen.rawGarbage()
                log.rawInput = raw
                _ = try? ServeFuzzTests.sendRaw(port: server.port, raw)
                continue
            }
            var request = gen.next()
            // evhttp knows no other methods; an unknown one is broken framing, covered above.
            if !RequestFuzzer.methods.contains(request.method) { request.method = "POST" }
            // Likewise a target that is not one token beginning with "/" breaks the request line itself.
            request.target = "/" + request.target.drop { $0 == "/" }.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "#", with: "%23")
            if request.target == "/*" { request.target = "/%2A" }
            let reply: HTTPClientReply
            do {
                reply = try server.request(request.method, request.target, headers: request.headers.map { ($0.name, $0.value) },
                                           body: request.method == "GET" && request.body.isEmpty ? nil : request.body, timeout: 10)
            } catch {
                log.fail("no HTTP answer: \(error)", request: request, response: nil)
                continue
            }
            log.check(request, HTTPResponse(status: reply.status, headers: reply.headers.map { (name: $0.0, value: $0.1) }, body: reply.body))
        }
        // Alive, the CLI's records untouched unless acknowledged, and a valid request still answered.
        #expect(server.process.isRunning, "ck serve exited during the fuzz")
        let health = try server.post("/database/1/\(container)/development/private/records/lookup",
                                     json: #"{"records":[{"recordName":"f0"},{"recordName":"f1"}],"zoneID":{"zoneName":"Fuzz"}}"#)
        #expect(health.status == 200)
        for (i, name) in ["f0", "f1"].enumerated() where !log.touchedNames.contains(name) && !log.touchedZones.contains("Fuzz") {
            #expect(health.json["records"]?.arrayValue?[i]["recordName"]?.stringValue == name, "\(name) is gone: \(health.text)")
        }
        log.finish()
    }

    // MARK: - Helpers

    /// Calls the responder and waits for its reply (a long-poll could hold it; none of the fuzzed paths should).
    static func respond(_ server: CloudKitServer, _ request: HTTPRequest) -> HTTPResponse? {
        let done = DispatchSemaphore(value: 0)
        let box = Box()
        let closed = HTTPClosedSignal()
        server.respond(to: request, reply: { r in box.set(r); done.signal() }, closed: closed)
        if done.wait(timeout: .now() + 10) == .timedOut { closed.close(); return nil }
        return box.get()
    }

    final class Box: @unchecked Sendable {
        private var value: HTTPResponse?
        private let lock = NSLock()
        func set(_ r: HTTPResponse) { lock.lock(); if value == nil { value = r }; lock.unlock() }
        func get() -> HTTPResponse? { lock.lock(); defer { lock.unlock() }; return value }
    }

    /// Records in the private default zone, a custom zone "Fuzz" and a zone "Scratch", and the public database.
    static func seed(_ store: CKStore, container: String) throws -> [String: String] {
        let db = try store.container(container).database(.private, environment: .development, user: CKContainer.defaultUserName)
        _ = try db.createZone("Fuzz")
        _ = try db.createZone("Scratch")
        for i in 0..<6 { try db.save("Note", "f\(i)", ["title": "note \(i)", "n": "\(i)"], zone: "Fuzz") }
        for i in 0..<3 { try db.save("Note", "d\(i)", ["title": "default \(i)"]) }
        try db.save("Note", "s0", ["title": "scratch"], zone: "Scratch")
        let pub = try store.container(container).database(.public, environment: .development, user: CKContainer.defaultUserName)
        try pub.save("Note", "p0", ["title": "public"])
        return try snapshot(store, container: container)
    }

    /// `scope/zone/name` → change tag, for every record the default user can see.
    static func snapshot(_ store: CKStore, container: String) throws -> [String: String] {
        var out: [String: String] = [:]
        for scope in [DatabaseScope.private, .public] {
            let db = try store.container(container).database(scope, environment: .development, user: CKContainer.defaultUserName)
            for zone in try db.zones() {
                for r in try db.records(zone: zone.zoneID.zoneName) {
                    out["\(scope.rawValue)/\(zone.zoneID.zoneName)/\(r.recordName)"] = r.changeTag
                }
            }
        }
        return out
    }

    /// Sends bytes as they are and reads whatever comes back (nil when the server just closes).
    static func sendRaw(port: Int, _ bytes: [UInt8]) throws -> HTTPClientReply? {
        let fd = try HTTPClient.connect(port: port, timeout: 5)
        defer { close(fd) }
        try HTTPClient.sendAll(fd, bytes)
        shutdown(fd, Int32(SHUT_WR))
        return try? HTTPClient.readReply(fd)
    }
}

/// What the answers must look like (web-services.md §9.1, §9.3) and what the fuzz acknowledged changing.
struct ServeFuzzLog {
    let label: String
    var iteration = 0
    var rawInput: [UInt8] = []
    /// Record names a 2xx records/modify answered for without an error, and zones a 2xx zones/modify changed.
    var touchedNames: Set<String> = []
    var touchedZones: Set<String> = []
    private var failures: [String: (count: Int, first: String)] = [:]

    /// Apple's fourteen codes with their statuses (cloudkit.md §4.2, web-services.md §9.1).
    static let appleStatus: [String: Int] = [
        "ACCESS_DENIED": 403, "ATOMIC_ERROR": 400, "AUTHENTICATION_FAILED": 401, "AUTHENTICATION_REQUIRED": 421,
        "BAD_REQUEST": 400, "CONFLICT": 409, "EXISTS": 409, "INTERNAL_ERROR": 500, "NOT_FOUND": 404,
        "QUOTA_EXCEEDED": 413, "THROTTLED": 429, "TRY_AGAIN_LATER": 503, "VALIDATING_REFERENCE_ERROR": 412,
        "ZONE_NOT_FOUND": 404,
    ]
    /// Codes beyond Apple's list: CloudKit JS's and live ones with no documented status (§9.3), and ck's own
    /// METHOD_NOT_ALLOWED (HTTP's 405) for a method an endpoint does not take.
    static let extraCodes: [String: ClosedRange<Int>] = [
        "UNIQUE_FIELD_ERROR": 400...599, "ZONE_BUSY": 400...599, "NOT_SUPPORTED_BY_ZONE": 400...599,
        "METHOD_NOT_ALLOWED": 405...405,
    ]

    init(label: String) { self.label = label }

    mutating func fail(_ what: String, request: HTTPRequest, response: HTTPResponse?) {
        let key = String(what.prefix(60))
        if let f = failures[key] { failures[key] = (f.count + 1, f.first); return }
        let shown = response.map { "\($0.status) \(FuzzText.show($0.body, limit: 400))" } ?? "-"
        let first = "\(what)\n  [\(label) iteration \(iteration), replay: \(ServeFuzzTests.replay)]\n  request: \(request.method) \(FuzzText.show(Array(request.target.utf8), limit: 300)) headers: \(request.headers.map { "\($0.name): \($0.value)" }) body: \(FuzzText.show(request.body))\n  response: \(shown)"
        failures[key] = (1, first)
        Issue.record(Comment(rawValue: first))
    }

    mutating func check(_ request: HTTPRequest, _ response: HTTPResponse) {
        let path = request.path
        let webServices = path.hasPrefix("/database/") || path.hasPrefix("/device/")
        if (200..<300).contains(response.status) {
            if request.method == "OPTIONS" || request.method == "HEAD" || !webServices { return }
            guard let json = try? JSON.parse(utf8: response.body), json.objectValue != nil else {
                fail("a 2xx Web Services answer whose body is not a JSON object", request: request, response: response)
                return
            }
            acknowledge(request, json)
            return
        }
        if request.method == "HEAD" { return }  // no body by definition
        guard let json = try? JSON.parse(utf8: response.body), json.objectValue != nil else {
            fail("a \(response.status) answer whose body is not a JSON object", request: request, response: response)
            return
        }
        let code = json["serverErrorCode"]?.stringValue ?? ""
        if json["uuid"]?.stringValue?.isEmpty ?? true { fail("an error without uuid", request: request, response: response) }
        if json["reason"]?.stringValue?.isEmpty ?? true { fail("an error without a reason", request: request, response: response) }
        if response.status == 500 || code == "INTERNAL_ERROR" {
            fail("500 INTERNAL_ERROR for a bad request (\(json["reason"]?.stringValue ?? ""))", request: request, response: response)
        } else if let status = ServeFuzzLog.appleStatus[code] {
            if status != response.status { fail("\(code) with HTTP \(response.status), not \(status)", request: request, response: response) }
        } else if let range = ServeFuzzLog.extraCodes[code] {
            if !range.contains(response.status) { fail("\(code) with HTTP \(response.status)", request: request, response: response) }
        } else {
            fail("unknown serverErrorCode '\(code)'", request: request, response: response)
        }
    }

    /// Notes what a 2xx write changed, so the store check allows exactly that.
    private mutating func acknowledge(_ request: HTTPRequest, _ json: JSON) {
        let op = request.path.split(separator: "/").suffix(2).joined(separator: "/")
        switch op {
        case "records/modify":
            guard let items = json["records"]?.arrayValue else {
                fail("a 2xx records/modify without a records array", request: request, response: HTTPResponse(status: 200, body: Array(json.serialized().utf8)))
                return
            }
            for item in items where item["serverErrorCode"] == nil {
                if let n = item["recordName"]?.stringValue { touchedNames.insert(n) }
            }
        case "zones/modify":
            for item in json["zones"]?.arrayValue ?? [] where item["serverErrorCode"] == nil {
                if let z = item["zoneID"]?["zoneName"]?.stringValue { touchedZones.insert(z) }
            }
        default:
            break
        }
    }

    /// Every record of `before` is in `after` with its tag, unless the fuzz was told it changed it or its zone.
    mutating func checkStore(before: [String: String], after: [String: String]) {
        var lost: [String] = []
        for (key, tag) in before.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: "/", maxSplits: 2).map(String.init)
            if touchedNames.contains(parts[2]) || touchedZones.contains(parts[1]) { continue }
            if after[key] != tag { lost.append("\(key): \(tag) → \(after[key] ?? "gone")") }
        }
        #expect(lost.isEmpty, "records changed or lost without an acknowledged write [\(ServeFuzzTests.replay)]: \(lost)")
    }

    func finish() {
        let repeated = failures.filter { $0.value.count > 1 }.sorted { $0.key < $1.key }
        if !repeated.isEmpty {
            Issue.record(Comment(rawValue: "\(label): failures by kind [\(ServeFuzzTests.replay)]\n" +
                                 repeated.map { "  \($0.value.count)× \($0.key)" }.joined(separator: "\n")))
        }
    }
}

enum FuzzText {
    static func show(_ bytes: [UInt8], limit: Int = 300) -> String {
        var out = ""
        for b in bytes.prefix(limit) {
            switch b {
            case 0x20..<0x7F where b != 0x5C: out.append(Character(Unicode.Scalar(b)))
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            default: out += String(format: "\\x%02X", b)
            }
        }
        return bytes.count > limit ? out + "… (\(bytes.count) bytes)" : out
    }
}

/// Makes the fuzzed requests from valid seeds, one generator per seed so a run repeats.
struct RequestFuzzer {
    var rng: SeededRNG
    let container: String
    static let methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"]

    init(seed: UInt64, container: String) {
        rng = SeededRNG(seed: seed)
        self.container = container
    }

    /// (operation, body): a valid request for every endpoint (web-services.md §4).
    var seeds: [(String, String)] {
        [
            ("records/query", #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"title","comparator":"EQUALS","fieldValue":{"value":"note 1","type":"STRING"}}],"sortBy":[{"fieldName":"n","ascending":true}]},"zoneID":{"zoneName":"Fuzz"},"resultsLimit":5,"desiredKeys":["title","n"],"numbersAsStrings":false}"#),
            ("records/query", #"{"query":{"recordType":"Note"},"zoneWide":true,"resultsLimit":2,"continuationMarker":"AAAA"}"#),
            ("records/lookup", #"{"records":[{"recordName":"f0"},{"recordName":"missing"}],"zoneID":{"zoneName":"Fuzz","ownerRecordName":"_defaultOwner","zoneType":"REGULAR_CUSTOM_ZONE"},"desiredKeys":["title"]}"#),
            ("records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"fz-new","recordType":"Note","fields":{"title":{"value":"new"},"n":{"value":7,"type":"INT64"},"when":{"value":1767225600000,"type":"TIMESTAMP"},"where":{"value":{"latitude":1.5,"longitude":2.5}},"ref":{"value":{"recordName":"f0","action":"NONE"},"type":"REFERENCE"},"tags":{"value":["a","b"],"type":"STRING_LIST"},"blob":{"value":"AAEC","type":"BYTES"}}}}],"zoneID":{"zoneName":"Fuzz"}}"#),
            ("records/modify", #"{"operations":[{"operationType":"update","record":{"recordName":"f1","recordType":"Note","recordChangeTag":"zz","fields":{"title":{"value":"x","type":"STRING"}}}},{"operationType":"delete","record":{"recordName":"f2","recordChangeTag":"zz"}}],"zoneID":{"zoneName":"Fuzz"},"atomic":true}"#),
            ("records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"nothing-here"}},{"operationType":"replace","record":{"recordName":"f3","recordType":"Note","recordChangeTag":"1"}}],"zoneID":{"zoneName":"Fuzz"}}"#),
            ("records/changes", #"{"zoneID":{"zoneName":"Fuzz"},"resultsLimit":2}"#),
            ("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Fuzz"},"resultsLimit":2,"desiredKeys":["title"],"desiredRecordTypes":["Note"]}]}"#),
            ("changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Fuzz"},"syncToken":"AQAAAAAAAAABf/////////+AfEbbUd5SC7kEWsQavq+k"}],"resultsLimit":1}"#),
            ("changes/database", #"{}"#),
            ("changes/database", #"{"syncToken":"AQAAAAAAAURhf/////////+LxHA1AvhAx66JMCtmgB8J","resultsLimit":1}"#),
            ("zones/list", #"{}"#),
            ("zones/lookup", #"{"zones":[{"zoneName":"Fuzz"},{"zoneName":"nope"}]}"#),
            ("zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Made"}}},{"operationType":"delete","zone":{"zoneID":{"zoneName":"Scratch"}}}]}"#),
            ("zones/changes", #"{"resultsLimit":1}"#),
            ("subscriptions/list", #"{}"#),
            ("subscriptions/lookup", #"{"subscriptions":[{"subscriptionID":"s1"}]}"#),
            ("subscriptions/modify", #"{"operations":[{"operationType":"create","subscription":{"subscriptionType":"zone","subscriptionID":"s1","zoneID":{"zoneName":"Fuzz"},"firesOn":["create","update"],"notificationInfo":{"alertBody":"hi","shouldSendContentAvailable":true}}},{"operationType":"create","subscription":{"subscriptionType":"query","subscriptionID":"q1","query":{"recordType":"Note","filterBy":[{"fieldName":"n","comparator":"GREATER_THAN","fieldValue":{"value":1,"type":"INT64"}}]},"firesOn":["create"],"zoneID":{"zoneName":"Fuzz"}}}]}"#),
            ("assets/upload", #"{"tokens":[{"recordType":"Note","fieldName":"file","recordName":"f0"}],"zoneID":{"zoneName":"Fuzz"}}"#),
            ("assets/rereference", #"{"assets":[{"recordName":"f0","fieldName":"file","fileChecksum":"AAAA"}],"zoneID":{"zoneName":"Fuzz"}}"#),
            // Sharing: a share saved with its root, resolve and accept, and the shared database.
            ("records/modify", #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"f4","recordType":"Note","createShortGUID":true}},{"operationType":"create","record":{"recordName":"share-f4","recordType":"cloudkit.share","fields":{"cloudkit.title":{"value":"T"}},"forRecord":{"recordName":"f4"},"publicPermission":"NONE","participants":[{"userIdentity":{"userRecordName":"_0123456789abcdef0123456789abcdef","nameComponents":{"givenName":"bob"}},"type":"USER","permission":"READ_WRITE","acceptanceStatus":"INVITED"}]}}],"zoneID":{"zoneName":"Fuzz"},"atomic":true}"#),
            ("records/resolve", #"{"shortGUIDs":[{"value":"0AAAAAAAAAAAAAAAAAAAAAAAA","shouldFetchRootRecord":true,"rootRecordDesiredKeys":["title"]},"0BBBB"]}"#),
            ("records/accept", #"{"shortGUIDs":[{"value":"0AAAAAAAAAAAAAAAAAAAAAAAA"}]}"#),
            ("shared/zones/list", #"{}"#),
            ("shared/records/query", #"{"query":{"recordType":"Note"},"zoneID":{"zoneName":"Fuzz","ownerRecordName":"_0123456789abcdef0123456789abcdef"}}"#),
            ("users/caller", ""),
            ("users/current", ""),
            ("users/discover", #"{"lookupInfos":[{"emailAddress":"a@example.com"}]}"#),
            ("users/lookup/email", #"{"users":[{"emailAddress":"a@example.com"}]}"#),
            ("tokens/create", #"{"apnsEnvironment":"development","clientId":"c0ffee"}"#),
            ("tokens/register", #"{"apnsEnvironment":"development","apnsToken":"abc","clientId":"c0ffee"}"#),
        ]
    }

    /// Values that replace a JSON node: wrong types, extremes, deep nesting, bad strings.
    var replacements: [String] {
        ["null", "true", "false", "0", "-1", "1.5", "1e308", "-1e308", "1e999", "9223372036854775807", "9223372036854775808",
         "-9223372036854775809", "123456789012345678901234567890", #""""#, #""x""#, "[]", "{}", "[null]", #"{"":""}"#,
         #""\ud800""#, #""\u0000""#, #""../../../etc/passwd""#, #""\#(String(repeating: "a", count: 20_000))""#,
         String(repeating: "[", count: 300) + String(repeating: "]", count: 300),
         String(repeating: #"{"a":"#, count: 200) + "1" + String(repeating: "}", count: 200),
         "[" + Array(repeating: #"{"recordName":"r"}"#, count: 500).joined(separator: ",") + "]"]
    }

    mutating func pick<T>(_ a: [T]) -> T { a[rng.below(a.count)] }

    mutating func next() -> HTTPRequest {
        let (operation, text) = pick(seeds)
        var body = Array(text.utf8)
        var method = operation.hasSuffix("/list") || operation.hasPrefix("users/c") ? pick(["GET", "POST"]) : "POST"
        var target = path(for: operation)
        var headers: [(name: String, value: String)] = [("Content-Type", pick(["application/json", "text/plain", "application/json; charset=UTF-8"]))]
        let mutations = 1 + rng.below(3)
        for _ in 0..<mutations {
            switch rng.below(12) {
            case 0 where body.count > 3, 1 where body.count > 3: body = rng.mutated(body) // bit flips, removals, JSON tokens
            case 2: body = Array(body.prefix(rng.below(body.count + 1)))           // truncation
            case 3, 4, 5: body = replaceNode(body)                                 // a wrong type where a value was
            case 6: body = insertInvalidUTF8(body)
            case 7: method = pick(RequestFuzzer.methods + ["FOO", "get", ""])
            case 8: target = mutatePath(target)
            case 9: target += randomQuery()
            case 10: headers = [pick([("Content-Type", "application/x-www-form-urlencoded"), ("Content-Type", "\u{7F}"),
                                      ("Content-Length", "5"), ("X-Apple-CloudKit-Request-KeyID", "nope"),
                                      ("X-Apple-CloudKit-Request-SignatureV1", "%%%"), ("Origin", "http://evil.example")])]
            default: body = (0..<rng.below(200)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            }
        }
        // Content-Length is the transport's; a fuzzed one would only desynchronise the loopback client.
        headers.removeAll { $0.name.lowercased() == "content-length" }
        return HTTPRequest(method: method, target: target, headers: headers, body: body)
    }

    func path(for operation: String) -> String {
        if operation.hasPrefix("tokens/") { return "/device/1/\(container)/development/\(operation)" }
        if operation.hasPrefix("users/") || operation == "records/resolve" || operation == "records/accept" {
            return "/database/1/\(container)/development/public/\(operation)"
        }
        if operation.hasPrefix("shared/") { return "/database/1/\(container)/development/\(operation)" }
        return "/database/1/\(container)/development/private/\(operation)"
    }

    /// Parses the body and replaces one node (or inserts a key) with a hostile value; leaves non-JSON as it is.
    mutating func replaceNode(_ body: [UInt8]) -> [UInt8] {
        guard let json = try? JSON.parse(utf8: body) else { return body }
        var nodes = 0
        count(json, &nodes)
        let target = rng.below(nodes)
        var seen = 0
        let replacement = pick(replacements)
        let extraKey = pick(["operations", "records", "zoneID", "fields", "query", "zones", "syncToken", "resultsLimit", "atomic", "unknownKey"])
        let out = rewrite(json, target: target, seen: &seen, with: replacement, key: rng.below(3) == 0 ? extraKey : nil)
        return Array(out.utf8)
    }

    private func count(_ j: JSON, _ n: inout Int) {
        n += 1
        switch j {
        case .array(let a): for v in a { count(v, &n) }
        case .object(let o): for v in o.values { count(v, &n) }
        default: break
        }
    }

    /// The JSON text of `j` with node number `target` (pre-order) replaced by the raw `text`, or, with `key`,
    /// given that key set to `text` when the node is an object.
    private func rewrite(_ j: JSON, target: Int, seen: inout Int, with text: String, key: String?) -> String {
        let index = seen
        seen += 1
        if index == target {
            if let key, case .object(let o) = j {
                let rest = o.sorted { $0.key < $1.key }.filter { $0.key != key }.map { "\(JSON.string($0.key).serialized()):\($0.value.serialized())" }
                return "{" + (rest + ["\(JSON.string(key).serialized()):\(text)"]).joined(separator: ",") + "}"
            }
            return text
        }
        switch j {
        case .array(let a):
            return "[" + a.map { rewrite($0, target: target, seen: &seen, with: text, key: key) }.joined(separator: ",") + "]"
        case .object(let o):
            return "{" + o.sorted { $0.key < $1.key }.map { "\(JSON.string($0.key).serialized()):\(rewrite($0.value, target: target, seen: &seen, with: text, key: key))" }.joined(separator: ",") + "}"
        default:
            return j.serialized()
        }
    }

    /// Invalid UTF-8 inside the body (a lone continuation byte, an overlong form, a truncated sequence, 0xFF).
    mutating func insertInvalidUTF8(_ body: [UInt8]) -> [UInt8] {
        var b = body
        let bad: [[UInt8]] = [[0x80], [0xC0, 0xAF], [0xE2, 0x82], [0xFF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80]]
        // Inside a string when there is one, so the JSON reader's string path sees it.
        if let quote = b.indices.filter({ b[$0] == UInt8(ascii: "\"") }).dropFirst(rng.below(6)).first {
            b.insert(contentsOf: pick(bad), at: quote + 1)
        } else {
            b.insert(contentsOf: pick(bad), at: rng.below(b.count + 1))
        }
        return b
    }

    mutating func mutatePath(_ target: String) -> String {
        var parts = target.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let junk = ["", "..", ".", "%2e%2e", "%zz", "%00", "%C3%28", "records", "zones", "2", "staging", "xyz", "production",
                    "public", "shared", "private", "_ck", "assets", "upload", String(repeating: "x", count: 5000), "a b", "%2F"]
        switch rng.below(6) {
        case 0 where parts.count > 1: parts.remove(at: 1 + rng.below(parts.count - 1))
        case 1: parts.insert(pick(junk), at: 1 + rng.below(parts.count))
        case 2 where parts.count > 1: parts[1 + rng.below(parts.count - 1)] = pick(junk)
        case 3: return pick(["/", "", "*", "/database", "/database/1", "/device/1/\(container)/development", "/_ck/assets/upload/nope",
                             "/_ck/assets/download/00/${f}", "/_ck/assets/download/../../etc/passwd/x", "/_ck/health", "//database//1",
                             "/_ck/users", "/_ck/users/account", "/_ck/roles/assign", "/_ck/schema", "/_ck/schema/deploy", "/_ck/quotas",
                             "/_ck/shares", "/_ck/zones", "/_ck/subscriptions", "/_ck/shares/create", "/_ck/shares/invite", "/_ck/shares/leave",
                             "/_ck/requests/1", "/_ck/requests/x", "/_ck/console/core.js", "/_ck/console/nope", "/index.html",
                             "/database/1/\(container)/development/private/records/modify/extra"])
        case 4: parts[parts.count - 1] = parts[parts.count - 1].uppercased()
        default: return target + pick(["/", "%", "#frag", ";x=1", "/../../../"])
        }
        return parts.joined(separator: "/")
    }

    mutating func randomQuery() -> String {
        pick(["?ckAPIToken=x&ckWebAuthToken=a%2Bb%2F%3D", "?remapEnums=True&getCurrentSyncToken=True", "?&&==&", "?%", "?%zz=1",
              "?ckWebAuthToken=" + String(repeating: "A", count: 4000), "?getCurrentSyncToken=maybe", "?a=%C3%28", "?ckjsVersion=2.6.4&clientId=x"])
    }

    /// Bytes that are not a well-formed HTTP request (the transport's own parser must cope).
    mutating func rawGarbage() -> [UInt8] {
        let valid = Array("POST /database/1/\(container)/development/private/records/lookup HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"records\"".utf8)
        switch rng.below(6) {
        case 0: return (0..<rng.below(300)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        case 1: return Array(valid.prefix(rng.below(valid.count)))
        case 2: return rng.mutated(valid)
        case 3: return Array("GET / HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "h", count: 100_000))\r\n\r\n".utf8)
        case 4: return Array("POST /database/1/\(container)/development/private/records/query HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999\r\n\r\n{}".utf8)
        default: return Array("FOO /database HTTP/9.9\r\n\r\n".utf8)
        }
    }
}
