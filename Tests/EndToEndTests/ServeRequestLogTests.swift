import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// The request log as the browser console reads it from a running `ck serve --port 0`: one entry with its request
/// and response bodies (`GET /_ck/requests/<seq>`: cut at 16 KiB, bytes as a size, secrets redacted), and the log
/// as server-sent events (`GET /_ck/requests/events`) read by a raw socket client: live entries, resuming, the
/// limit on open streams, clients that leave, and shutdown with a stream open.
@Suite struct ServeRequestLogTests {
    static let lookup = "/database/1/iCloud.ck.default/development/public/records/lookup"
    static let privateLookup = "/database/1/iCloud.ck.default/development/private/records/lookup"

    /// The log entry (with bodies) of the request a reply answered, found by its X-Apple-Request-UUID.
    func entry(_ server: ServeProcess, _ reply: HTTPClientReply) throws -> (seq: Int64, entry: JSON, text: String) {
        let id = try #require(reply.header("X-Apple-Request-UUID"))
        let list = try server.get("/_ck/requests")
        let found = try #require(list.json["requests"]?.arrayValue?.first { $0["requestID"]?.stringValue == id }, "request \(id) is not in the log")
        let seq = try #require(found["seq"]?.int64Value)
        let one = try server.get("/_ck/requests/\(seq)")
        try #require(one.status == 200, "\(one.text)")
        return (seq, one.json, one.text)
    }

    // MARK: Bodies

    @Test func bodiesAreKeptAsTextAndCutAt16KiB() throws {
        let long = String(repeating: "t", count: 8000)
        let s = try ServeSession(setup: ["n1", "n2", "n3"].map { ["--db", "public", "record", "save", "Note", "--name", $0, "title=" + long] })
        let small = #"{"records":[{"recordName":"n1"}]}"#
        let one = try s.server.post(Self.lookup, json: small)
        try #require(one.status == 200, "\(one.text)")
        let (_, e, _) = try entry(s.server, one)
        #expect(e["requestBody"] == .string(small))
        #expect(e["requestBodyTruncated"] == .bool(false))
        #expect(e["responseBody"] == .string(one.text), "the answer as the client got it")
        #expect(e["responseBodyTruncated"] == .bool(false))
        #expect(e["operation"] == .string("records/lookup"))

        // Three 8000-character titles: the answer is cut at 16 KiB (ASCII: exactly 16384 bytes kept).
        let three = try s.server.post(Self.lookup, json: #"{"records":[{"recordName":"n1"},{"recordName":"n2"},{"recordName":"n3"}]}"#)
        try #require(three.status == 200 && three.body.count > 24000, "\(three.body.count) bytes")
        let (_, big, _) = try entry(s.server, three)
        #expect(big["responseBodyTruncated"] == .bool(true))
        #expect(big["responseBody"] == .string(String(decoding: three.body.prefix(16384), as: UTF8.self)))

        // A request body cut inside a two-byte character is cut before it: 6 + 16377 bytes kept, not 16384.
        let body = #"{"x":""# + String(repeating: "a", count: 16377) + String(repeating: "é", count: 100) + #""}"#
        let cut = try s.server.post(Self.lookup, json: body)
        let (_, c, _) = try entry(s.server, cut)
        #expect(c["requestBody"] == .string(#"{"x":""# + String(repeating: "a", count: 16377)))
        #expect(c["requestBodyTruncated"] == .bool(true))
        #expect(c["status"] == .int(Int64(cut.status)))

        // The list leaves the bodies out.
        let list = try s.server.get("/_ck/requests").json["requests"]?.arrayValue ?? []
        #expect(list.count == 3)
        for item in list {
            #expect(item["requestBody"] == nil && item["responseBody"] == nil, "\(item.serialized().prefix(200))")
        }
    }

    @Test func assetBytesAreKeptAsTheirSize() throws {
        let s = try ServeSession()
        let alice = try s.token(for: "alice")
        let single = try ServeAssetsTests.upload(s, db: "public", token: alice, recordName: "pub")
        let list = try s.server.get("/_ck/requests").json["requests"]?.arrayValue ?? []
        let upload = try #require(list.first { $0["path"]?.stringValue?.hasPrefix("/_ck/assets/upload/") == true }, "\(list)")
        let e = try s.server.get("/_ck/requests/\(try #require(upload["seq"]?.int64Value))").json
        // ServeAssetsTests.bytes: 256 byte values and 4 more, not UTF-8.
        #expect(e["requestBody"] == .string("<260 bytes>"))
        #expect(e["requestBodyTruncated"] == .bool(false))
        #expect(e["responseBody"]?.stringValue?.contains("\"singleFile\"") == true, "the answer is JSON text: \(e.serialized())")

        let saved = try s.post("public", "records/modify", """
            {"operations":[{"operationType":"create","record":{"recordName":"pub","recordType":"Photo","fields":{"image":{"value":\(single.serialized())}}}}]}
            """, token: alice)
        #expect(saved.status == 200, "\(saved.text)")
        let looked = try s.post("public", "records/lookup", #"{"records":[{"recordName":"pub"}]}"#)
        let url = try #require(looked.json["records"]?.arrayValue?.first?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue, "\(looked.text)")
        let got = try s.server.get(try s.target(of: url))
        #expect(got.body == ServeAssetsTests.bytes)
        let (_, d, _) = try entry(s.server, got)
        #expect(d["responseBody"] == .string("<260 bytes>"))
        #expect(d["requestBody"] == .string(""))
    }

    @Test func tokensAreNeverKept() throws {
        let s = try ServeSession()
        let alice = try s.token(for: "alice")
        let aliceRaw = try #require(alice.removingPercentEncoding)
        // In the query: the answer hands back a rotated token in its header.
        let first = try s.post("private", "records/lookup", #"{"records":[{"recordName":"nothing"}]}"#, token: alice)
        #expect(first.status == 200, "\(first.text)")
        let rotated = try #require(first.header("X-Apple-CloudKit-Web-Auth-Token"))
        // In the header.
        let second = try s.server.post(Self.privateLookup, json: #"{"records":[{"recordName":"nothing"}]}"#,
                                       headers: [("X-Apple-CloudKit-Web-Auth-Token", rotated)])
        #expect(second.status == 200, "\(second.text)")
        let rotatedAgain = try #require(second.header("X-Apple-CloudKit-Web-Auth-Token"))
        // Handed back in a body: the sign-in page's token.
        let signIn = try s.server.request("POST", "/_ck/signin/token?container=iCloud.ck.default&user=bob")
        #expect(signIn.status == 200, "\(signIn.text)")
        let minted = try #require(signIn.json["ckSession"]?.stringValue)
        // Sent in a body, and inside the path (an escaped `?`).
        let inBody = try s.server.post(Self.lookup, json: #"{"records":[{"recordName":"n"}], "ckWebAuthToken" : "BODYSECRET42"}"#)
        let inPath = try s.server.post(Self.lookup + "%3FckWebAuthToken%3DPATHSECRET42%26x%3D1", json: "{}")

        let secrets = [alice, aliceRaw, rotated, rotatedAgain, minted, "BODYSECRET42", "PATHSECRET42"]
        var answers = [try s.server.get("/_ck/requests").text]
        for reply in [first, second, signIn, inBody, inPath] {
            let (_, e, text) = try entry(s.server, reply)
            answers.append(text)
            #expect(e["requestID"]?.stringValue == reply.header("X-Apple-Request-UUID"))
        }
        for answer in answers {
            for secret in secrets {
                #expect(!answer.contains(secret), "a secret is in the log: \(answer.prefix(300))")
            }
        }
        let (_, signInEntry, _) = try entry(s.server, signIn)
        let kept = try JSON.parse(try #require(signInEntry["responseBody"]?.stringValue))
        #expect(kept["ckSession"] == .string("<redacted>"))
        #expect(kept["user"] == .string("bob"))
        let (_, bodyEntry, _) = try entry(s.server, inBody)
        #expect(bodyEntry["requestBody"] == .string(#"{"records":[{"recordName":"n"}], "ckWebAuthToken" : "<redacted>"}"#))
        let (_, pathEntry, _) = try entry(s.server, inPath)
        #expect(pathEntry["path"] == .string(Self.lookup + "%3FckWebAuthToken%3D<redacted>%26x%3D1"))
    }

    // MARK: Reading the log

    @Test func readsOfTheLogAreNotLoggedAndAnEntryGoneIsNotFound() throws {
        let s = try ServeSession()
        let health = try s.server.get("/_ck/health")
        #expect(health.status == 200)
        let one = try s.server.get("/_ck/requests/1")
        #expect(one.status == 200, "\(one.text)")
        #expect(one.json["path"] == .string("/_ck/health"))
        #expect(one.json["requestID"]?.stringValue == health.header("X-Apple-Request-UUID"))
        #expect(one.json["requestBody"] == .string(""))
        // Reads of the log, of its stream and of the console's files are not logged.
        let stream = try EventStreamClient(port: s.server.port)
        #expect(stream.status == 200)
        stream.close()
        _ = try s.server.get("/")
        _ = try s.server.get("/_ck/console/core.js")
        _ = try s.server.get("/_ck/requests?after=0")
        #expect(try s.server.get("/_ck/health").status == 200)
        let list = try s.server.get("/_ck/requests").json
        #expect(list["requests"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == ["/_ck/health", "/_ck/health"])
        #expect(list["requests"]?.arrayValue?.compactMap { $0["seq"]?.int64Value } == [1, 2])

        // Forgotten entries are NOT_FOUND; so is one never given. Malformed numbers and other methods are refused.
        #expect(try s.server.request("DELETE", "/_ck/requests").status == 200)
        for target in ["/_ck/requests/1", "/_ck/requests/99"] {
            let gone = try s.server.get(target)
            #expect(gone.status == 404 && gone.json["serverErrorCode"] == .string("NOT_FOUND"), "\(target): \(gone.text)")
        }
        let bad = try s.server.get("/_ck/requests/first")
        #expect(bad.status == 400 && bad.json["serverErrorCode"] == .string("BAD_REQUEST"), "\(bad.text)")
        let post = try s.server.post("/_ck/requests/1", json: "{}")
        #expect(post.status == 405 && post.json["serverErrorCode"] == .string("METHOD_NOT_ALLOWED"), "\(post.text)")
    }

    // MARK: Server-sent events

    @Test func theStreamSendsEachNewEntry() throws {
        let s = try ServeSession()
        let stream = try EventStreamClient(port: s.server.port)
        defer { stream.close() }
        #expect(stream.status == 200)
        #expect(stream.header("Content-Type")?.hasPrefix("text/event-stream") == true)
        #expect(stream.header("Cache-Control") == "no-cache")
        #expect(stream.header("Transfer-Encoding") == "chunked")
        let health = try s.server.get("/_ck/health")
        let event = try stream.next()
        #expect(event.id == "1")
        #expect(event.event == "request")
        let data = try JSON.parse(event.data)
        #expect(data["seq"] == .int(1))
        #expect(data["method"] == .string("GET"))
        #expect(data["path"] == .string("/_ck/health"))
        #expect(data["status"] == .int(200))
        #expect(data["requestID"]?.stringValue == health.header("X-Apple-Request-UUID"))
        #expect(data["requestBody"] == nil && data["responseBody"] == nil, "events carry no bodies: \(event.data)")

        // A refusal carries its code; a second request is the next event.
        let refused = try s.server.post(Self.lookup, json: "[")
        let second = try stream.next()
        #expect(second.id == "2")
        let d2 = try JSON.parse(second.data)
        #expect(d2["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(d2["status"] == .int(Int64(refused.status)))
        #expect(d2["operation"] == .string("records/lookup"))
    }

    @Test func aStreamStartsWithTheLast100OrResumesAfterTheLastEventSeen() throws {
        let s = try ServeSession()
        for _ in 1...103 { #expect(try s.server.get("/_ck/health").status == 200) }
        // No resume point: the last 100 entries, 4 to 103, then what comes next.
        let fresh = try EventStreamClient(port: s.server.port)
        defer { fresh.close() }
        var ids: [String] = []
        for _ in 1...100 { ids.append(try fresh.next().id ?? "-") }
        #expect(ids == (4...103).map(String.init))
        // Last-Event-ID: exactly the entries after it; ?after= likewise; the header wins over the query.
        let resumed = try EventStreamClient(port: s.server.port, headers: [("Last-Event-ID", "100")])
        defer { resumed.close() }
        let after = try EventStreamClient(port: s.server.port, target: "/_ck/requests/events?after=102")
        defer { after.close() }
        let both = try EventStreamClient(port: s.server.port, target: "/_ck/requests/events?after=0", headers: [("Last-Event-ID", "103")])
        defer { both.close() }
        #expect(try s.server.get("/_ck/health").status == 200)
        #expect(try fresh.next().id == "104")
        #expect(try (1...4).map { _ in try resumed.next().id ?? "-" } == ["101", "102", "103", "104"])
        #expect(try (1...2).map { _ in try after.next().id ?? "-" } == ["103", "104"])
        #expect(try both.next().id == "104")

        let bad = try EventStreamClient(port: s.server.port, headers: [("Last-Event-ID", "latest")])
        defer { bad.close() }
        #expect(bad.status == 400)
        #expect(bad.json["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(bad.json["reason"]?.stringValue?.contains("Last-Event-ID") == true, "\(bad.json.serialized())")
    }

    @Test func atMost32StreamsAndAClientThatLeavesFreesItsPlace() throws {
        let s = try ServeSession()
        var open: [EventStreamClient] = []
        defer { for c in open { c.close() } }
        for _ in 1...32 {
            let c = try EventStreamClient(port: s.server.port)
            try #require(c.status == 200)
            open.append(c)
        }
        let refused = try EventStreamClient(port: s.server.port)
        #expect(refused.status == 503)
        #expect(refused.json["serverErrorCode"] == .string("TRY_AGAIN_LATER"))
        #expect(refused.json["reason"]?.stringValue?.contains("32 event streams") == true, "\(refused.json.serialized())")
        refused.close()

        // Two clients leave: the server goes on answering, and their places are given again once it notices.
        open.removeFirst().close()
        open.removeFirst().close()
        #expect(try s.server.get("/_ck/health").status == 200)
        var again: EventStreamClient? = nil
        for _ in 0..<200 where again == nil {
            let c = try EventStreamClient(port: s.server.port)
            if c.status == 200 { again = c } else { c.close(); usleep(50_000) }
        }
        let newcomer = try #require(again, "no stream could be opened after two clients left")
        open.append(newcomer)
        // The streams still open get the next entry.
        #expect(try s.server.get("/_ck/health").status == 200)
        // The newcomer starts with the backlog (entry 1), then gets 2; so does a stream open all along.
        #expect(try (1...2).map { _ in try newcomer.next().id ?? "-" } == ["1", "2"])
        #expect(try (1...2).map { _ in try open[0].next().id ?? "-" } == ["1", "2"])
    }

    @Test func aReaderThatFallsFarBehindIsDropped() throws {
        let s = try ServeSession()
        // A client with a small receive window that reads nothing.
        let slow = try EventStreamClient(port: s.server.port, receiveBuffer: 4096)
        defer { slow.close() }
        try #require(slow.status == 200)
        // 150 entries of about 120 KB each (a 60,000-byte path, named again in the reason): far more than 1 MiB
        // and than the sockets' buffers hold.
        let path = "/_ck/" + String(repeating: "x", count: 60_000)
        for _ in 1...150 { #expect(try s.server.get(path).status == 404) }
        #expect(try s.server.get("/_ck/health").status == 200)
        // The server closed the connection part way: what was sent arrives, then the end, with no last chunk.
        var events = 0
        do {
            while true {
                _ = try slow.next()
                events += 1
            }
        } catch let e as ServeError where e.description.hasPrefix("the stream ended") {
            // Dropped: the connection closed.
        }
        #expect(events < 150, "the slow reader got every event: \(events)")
        #expect(try slow.readToEnd() == false, "the stream was ended, not dropped")
    }

    @Test func sigtermWithAStreamOpenEndsItAndExitsZero() throws {
        let s = try ServeSession()
        let stream = try EventStreamClient(port: s.server.port)
        defer { stream.close() }
        #expect(try s.server.get("/_ck/health").status == 200)
        #expect(try stream.next().id == "1")
        let (status, stderr) = s.server.stop()
        #expect(status == 0, "\(stderr)")
        // The stream was ended with its last chunk, not cut off.
        #expect(try stream.readToEnd(), "the stream was not ended cleanly")
    }
}

/// A client of `GET /_ck/requests/events` over a raw socket: sends the request, reads the head, then reads events
/// as the server sends them (chunked), each read bounded by the socket's receive timeout.
final class EventStreamClient {
    struct Event {
        var id: String?
        var event: String?
        var data: String
    }

    let fd: Int32
    let status: Int
    let headers: [(String, String)]
    /// A reply that is not a stream (an error), parsed.
    private(set) var json: JSON = .null
    /// Bytes after the head not yet de-chunked.
    private var raw: [UInt8] = []
    /// The stream's body de-chunked, not yet read as events.
    private var body: [UInt8] = []
    private var ended = false
    private var closed = false

    /// Connects and reads the head; `receiveBuffer` shrinks the socket's receive buffer (set before connecting, so
    /// the window the server sees is small).
    init(port: Int, target: String = "/_ck/requests/events", headers: [(String, String)] = [], timeout: Double = 10,
         receiveBuffer: Int32? = nil) throws {
        fd = try HTTPClient.connect(port: port, timeout: timeout, receiveBuffer: receiveBuffer)
        var head = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (k, v) in headers { head += "\(k): \(v)\r\n" }
        head += "\r\n"
        try HTTPClient.sendAll(fd, Array(head.utf8))
        var data: [UInt8] = []
        var end: Int? = nil
        while end == nil {
            let more = try EventStreamClient.receive(fd)
            guard !more.isEmpty else { throw ServeError("connection closed before the response head") }
            data += more
            end = HTTPClient.find([13, 10, 13, 10], in: data)
        }
        guard let end else { throw ServeError("no head") }
        let lines = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let parts = lines[0].split(separator: " ")
        guard parts.count >= 2, let code = Int(parts[1]) else { throw ServeError("bad status line \(lines[0])") }
        status = code
        self.headers = lines.dropFirst().compactMap { line in
            guard let c = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<c]), line[line.index(after: c)...].trimmingCharacters(in: .whitespaces))
        }
        raw = Array(data[(end + 4)...])
        if let length = header("Content-Length").flatMap(Int.init) {
            while raw.count < length {
                let more = try EventStreamClient.receive(fd)
                if more.isEmpty { break }
                raw += more
            }
            json = (try? JSON.parse(utf8: raw)) ?? .null
        }
    }

    deinit { close() }

    func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    /// The next event (comments such as keep-alives skipped); throws when none comes within the timeout.
    func next() throws -> Event {
        while true {
            if let blank = HTTPClient.find([10, 10], in: body) {
                let block = String(decoding: body[..<blank], as: UTF8.self)
                body.removeFirst(blank + 2)
                var e = Event(id: nil, event: nil, data: "")
                var any = false
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) where !line.hasPrefix(":") {
                    var name = String(line), value = ""
                    if let colon = line.firstIndex(of: ":") {
                        name = String(line[..<colon])
                        value = String(line[line.index(after: colon)...].drop { $0 == " " })
                    }
                    any = true
                    switch name {
                    case "id": e.id = value
                    case "event": e.event = value
                    case "data": e.data = e.data.isEmpty ? value : e.data + "\n" + value
                    default: break
                    }
                }
                if any { return e }
                continue
            }
            guard try fill() else { throw ServeError("the stream ended before the next event") }
        }
    }

    /// Reads until the stream ends; true when it ended with its last (empty) chunk, false when the connection
    /// closed without one.
    func readToEnd() throws -> Bool {
        while try fill() {}
        return ended
    }

    /// De-chunks what has been read, else reads more and de-chunks it; false once the stream has ended or the
    /// connection closed. (The head's read may have brought whole chunks with it.)
    private func fill() throws -> Bool {
        if ended { return false }
        if dechunk() { return true }
        let more = try EventStreamClient.receive(fd)
        if more.isEmpty { return false }
        raw += more
        _ = dechunk()
        return true
    }

    /// Moves the whole chunks read into `body`; true when it moved any or met the last chunk.
    private func dechunk() -> Bool {
        var moved = false
        while let lineEnd = HTTPClient.find([13, 10], in: raw),
              let size = Int(String(decoding: raw[..<lineEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) {
            if size == 0 {
                ended = true
                return true
            }
            guard raw.count >= lineEnd + 2 + size + 2 else { break }
            body += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
            raw.removeFirst(lineEnd + 2 + size + 2)
            moved = true
        }
        return moved
    }

    /// What one recv gives: empty when the peer closed; throws when nothing came within the timeout.
    private static func receive(_ fd: Int32) throws -> [UInt8] {
        var buf = [UInt8](repeating: 0, count: 65536)
        let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw ServeError("recv: errno \(errno) (nothing within the timeout?)") }
        return Array(buf[0..<n])
    }
}
