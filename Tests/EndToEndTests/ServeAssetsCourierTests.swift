import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
import CKModel

/// Asset upload and download URLs over HTTP (web-services.md §7, §6.3; cloudkit.md §2.4): bytes in, a record
/// that refers to them, the same bytes out; and URLs that are opaque ids, never paths into (or out of) the store.
@Suite struct ServeAssetsTests {
    /// Every byte value, high ones first, then a byte sequence that is not UTF-8: any text conversion would show.
    static let bytes: [UInt8] = (0..<256).map { UInt8(255 - $0) } + [0xC3, 0x28, 0x00, 0xFF]

    /// assets/upload → POST the bytes to its URL → `{singleFile}`; the caller checks the answer.
    static func upload(_ s: ServeSession, db: String, token: String?, recordName: String, bytes: [UInt8] = bytes) throws -> JSON {
        let tokens = try s.post(db, "assets/upload", #"{"tokens":[{"recordType":"Photo","fieldName":"image","recordName":"\#(recordName)"}]}"#, token: token)
        try #require(tokens.status == 200, "\(tokens.text)")
        let url = try #require(tokens.json["tokens"]?.arrayValue?.first?["url"]?.stringValue, "\(tokens.text)")
        // The upload URL carries its own authorisation: no token, raw bytes, as clients send them (§7.2).
        let posted = try s.server.request("POST", try s.target(of: url), headers: [("Content-Type", "application/octet-stream")], body: bytes)
        try #require(posted.status == 200, "\(posted.text)")
        return try #require(posted.json["singleFile"], "\(posted.text)")
    }

    @Test func uploadSaveLookupAndDownloadTheSameBytes() throws {
        let s = try ServeSession()
        let alice = try s.token(for: "alice")

        // assets/upload: one {recordName, fieldName, url} per token, in request order; a missing recordName is made up.
        let tokens = try s.post("private", "assets/upload", """
            {"tokens":[{"recordType":"Photo","fieldName":"image","recordName":"p1"},{"recordType":"Photo","fieldName":"thumb"}]}
            """, token: alice)
        #expect(tokens.status == 200, "\(tokens.text)")
        let list = tokens.json["tokens"]?.arrayValue ?? []
        try #require(list.count == 2, "\(tokens.text)")
        #expect(list[0]["recordName"] == .string("p1"))
        #expect(list[0]["fieldName"] == .string("image"))
        #expect(list[1]["fieldName"] == .string("thumb"))
        #expect(list[1]["recordName"]?.stringValue?.isEmpty == false)
        let url = try #require(list[0]["url"]?.stringValue)
        let uploadTarget = try s.target(of: url)
        #expect(list[1]["url"]?.stringValue != url)

        // POST the bytes: {singleFile:{wrappingKey, fileChecksum, receipt, referenceChecksum, size}} (§7.3).
        let posted = try s.server.request("POST", uploadTarget, headers: [("Content-Type", "application/octet-stream")], body: Self.bytes)
        #expect(posted.status == 200, "\(posted.text)")
        let single = try #require(posted.json["singleFile"], "\(posted.text)")
        #expect(single["size"]?.int64Value == Int64(Self.bytes.count))
        let checksum = try OpenSSLKey.sha256Base64(Self.bytes)
        #expect(single["fileChecksum"]?.stringValue == checksum)
        for key in ["receipt", "wrappingKey", "referenceChecksum"] {
            #expect(single[key]?.stringValue?.isEmpty == false, "singleFile has no \(key): \(posted.text)")
        }
        // The URL is used up.
        let again = try s.server.request("POST", uploadTarget, body: Self.bytes)
        #expect(again.status == 404)
        #expect(again.json["serverErrorCode"] == .string("NOT_FOUND"))

        // records/modify with the singleFile dictionary as the value, no type (what CloudKit JS sends, §7.4).
        let saved = try s.post("private", "records/modify", """
            {"operations":[{"operationType":"create","record":{"recordName":"p1","recordType":"Photo","fields":{"image":{"value":\(single.serialized())}}}}]}
            """, token: alice)
        #expect(saved.status == 200, "\(saved.text)")
        let record = saved.json["records"]?.arrayValue?.first
        #expect(record?["serverErrorCode"] == nil, "\(saved.text)")
        #expect(record?["fields"]?["image"]?["type"] == .string("ASSETID"))

        // records/lookup: the asset value with a downloadURL; in the private database also the wrapping key and
        // reference checksum (§6.3), the ones the upload gave.
        let looked = try s.post("private", "records/lookup", #"{"records":[{"recordName":"p1"}]}"#, token: alice)
        #expect(looked.status == 200, "\(looked.text)")
        let value = try #require(looked.json["records"]?.arrayValue?.first?["fields"]?["image"]?["value"], "\(looked.text)")
        #expect(value["size"]?.int64Value == Int64(Self.bytes.count))
        #expect(value["fileChecksum"] == single["fileChecksum"])
        #expect(value["wrappingKey"] == single["wrappingKey"], "\(value.serialized()) vs \(single.serialized())")
        #expect(value["referenceChecksum"] == single["referenceChecksum"], "\(value.serialized()) vs \(single.serialized())")
        let download = try #require(value["downloadURL"]?.stringValue, "\(looked.text)")
        let downloadTarget = try s.target(of: download)
        #expect(downloadTarget.contains("${f}"), "the download URL keeps Apple's ${f} placeholder: \(download)")

        // GET it: ${f} left in (escaped, as icloudpd sends it) or replaced by a file name, no token: the same bytes.
        for name in ["$%7Bf%7D", "photo.jpg"] {
            let got = try s.server.get(downloadTarget.replacingOccurrences(of: "${f}", with: name))
            #expect(got.status == 200, "\(name): \(got.text)")
            #expect(got.body == Self.bytes, "\(name): \(got.body.count) bytes")
            #expect(got.header("Content-Type") == "application/octet-stream")
        }
        // The command line reads the same bytes from the record the HTTP client saved.
        let out = s.sandbox.dir + "/out.bin"
        #expect(try s.sandbox.run(["--as", "alice", "asset", "get", "p1", "image", "--file", out]).status == 0)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: out))) == Self.bytes)
    }

    @Test func aPublicRecordsAssetCarriesChecksumSizeAndDownloadURLOnly() throws {
        let s = try ServeSession()
        let alice = try s.token(for: "alice")
        let single = try Self.upload(s, db: "public", token: alice, recordName: "pub")
        let saved = try s.post("public", "records/modify", """
            {"operations":[{"operationType":"create","record":{"recordName":"pub","recordType":"Photo","fields":{"image":{"value":\(single.serialized())}}}}]}
            """, token: alice)
        #expect(saved.json["records"]?.arrayValue?.first?["serverErrorCode"] == nil, "\(saved.text)")
        // Public reads need no user.
        let looked = try s.post("public", "records/lookup", #"{"records":[{"recordName":"pub"}]}"#)
        let value = try #require(looked.json["records"]?.arrayValue?.first?["fields"]?["image"]?["value"], "\(looked.text)")
        #expect(Set(value.objectValue?.keys.map { $0 } ?? []) == ["fileChecksum", "size", "downloadURL"], "\(value.serialized())")
        let got = try s.server.get(try s.target(of: try #require(value["downloadURL"]?.stringValue)))
        #expect(got.status == 200)
        #expect(got.body == Self.bytes)
    }

    @Test func assetURLsAreOpaqueAndNeverReadOutsideTheStore() throws {
        let s = try ServeSession(serve: ["--no-auth"])
        let single = try Self.upload(s, db: "private", token: nil, recordName: "p")
        #expect(try s.post("private", "records/modify", """
            {"operations":[{"operationType":"create","record":{"recordName":"p","recordType":"Photo","fields":{"image":{"value":\(single.serialized())}}}}]}
            """).status == 200)
        let looked = try s.post("private", "records/lookup", #"{"records":[{"recordName":"p"}]}"#)
        let download = try s.target(of: try #require(looked.json["records"]?.arrayValue?.first?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue, "\(looked.text)"))
        // …/download/<container>/<environment>/<sha256>/${f}
        let parts = download.split(separator: "/").map(String.init)
        try #require(parts.count == 7, "\(download)")
        let prefix = "/" + parts[0..<3].joined(separator: "/")      // /_ck/assets/download
        let container = parts[3], sha = parts[5]
        #expect(try s.server.get(download).body == Self.bytes)

        // Beside the store, something that looks like a container with an asset of the same id.
        let secret = Array("SECRET-OUTSIDE-THE-STORE".utf8)
        let outside = s.sandbox.dir + "/outside"
        let env = s.sandbox.dir + "/store/containers/\(ServeSession.container)/development"
        try FileManager.default.createDirectory(atPath: outside + "/development/assets", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: s.sandbox.dir + "/store/containers/\(ServeSession.container)/container.json",
                                         toPath: outside + "/container.json")
        try Data(secret).write(to: URL(fileURLWithPath: outside + "/development/assets/" + sha))
        try Data(secret).write(to: URL(fileURLWithPath: outside + "/secret"))
        let planted = Set(s.sandbox.files(under: outside))

        func refused(_ r: HTTPClientReply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(r.status == 404 || r.status == 400, "\(what): \(r.status) \(r.text)", sourceLocation: sourceLocation)
            #expect(r.json["serverErrorCode"]?.stringValue?.isEmpty == false, "\(what): \(r.text)", sourceLocation: sourceLocation)
            #expect(HTTPClient.find(Array("SECRET".utf8), in: r.body) == nil, "\(what) read outside the store", sourceLocation: sourceLocation)
        }
        let escaped = base64url("\(ServeSession.container)/../../../outside")
        for target in [
            "\(prefix)/\(container)/development/../../../../outside/secret",
            "\(prefix)/\(container)/development/..%2F..%2F..%2F..%2Foutside%2Fsecret/x",
            "\(prefix)/\(container)/development/%2e%2e%2f%2e%2e%2fsecret/x",
            "\(prefix)/\(escaped)/development/\(sha)/x",
            "\(prefix)/\(base64url("../../outside"))/development/\(sha)/x",
            "\(prefix)/\(container)/development/\(String(repeating: "0", count: 64))/x",
            "\(prefix)/\(container)/staging/\(sha)/x",
            "/_ck/assets/../../outside/secret",
        ] {
            refused(try s.server.get(target), target)
        }
        // Upload ids are opaque too: an unknown one, and one shaped as a path, write nothing.
        refused(try s.server.request("POST", "/_ck/assets/upload/" + String(repeating: "ab", count: 32), body: secret), "unknown upload id")
        refused(try s.server.request("POST", "/_ck/assets/upload/..%2F..%2F..%2Foutside%2Fnew", body: secret), "upload path")
        // The same container ID on a Web Services path: refused, and nothing is made beside the store.
        let sideways = try s.server.post("/database/1/\(ServeSession.container)%2F..%2F..%2F..%2Foutside/development/public/records/query",
                                         json: #"{"query":{"recordType":"Photo"}}"#)
        #expect(sideways.status == 400, "\(sideways.text)")
        #expect(Set(s.sandbox.files(under: outside)) == planted)

        // A link planted for the asset's file, then for the assets directory: refused as a missing asset.
        let assets = env + "/assets"
        try FileManager.default.moveItem(atPath: assets + "/" + sha, toPath: s.sandbox.dir + "/kept")
        try FileManager.default.createSymbolicLink(atPath: assets + "/" + sha, withDestinationPath: outside + "/secret")
        refused(try s.server.get(download), "asset file a link")
        try FileManager.default.removeItem(atPath: assets + "/" + sha)
        try FileManager.default.moveItem(atPath: assets, toPath: s.sandbox.dir + "/assets.kept")
        try FileManager.default.createSymbolicLink(atPath: assets, withDestinationPath: outside + "/development/assets")
        // A directory of the environment that is a link makes the store damaged: every request in the environment
        // answers INTERNAL_ERROR naming the link (docs/store.md, "Links"), and nothing behind it is read.
        let linked = assets + ": is a symbolic link; ck does not follow links inside the store"
        let get = try s.server.get(download)
        #expect(get.status == 500, "\(get.status) \(get.text)")
        #expect(get.json["reason"]?.stringValue == linked, "\(get.text)")
        #expect(HTTPClient.find(Array("SECRET".utf8), in: get.body) == nil, "read outside the store")
        // assets/rereference does not vouch for bytes behind the link either: the asset's own error says why.
        let reref = try s.post("private", "assets/rereference",
                               #"{"assets":[{"fileChecksum":\#(single["fileChecksum"]?.serialized() ?? "null"),"size":1,"recordName":"p","fieldName":"image"}]}"#)
        #expect(reref.status == 200)
        #expect(reref.json["assets"]?.arrayValue?.first?["serverErrorCode"] == .string("INTERNAL_ERROR"), "\(reref.text)")
        #expect(reref.json["assets"]?.arrayValue?.first?["reason"]?.stringValue == linked, "\(reref.text)")
        #expect(Set(s.sandbox.files(under: outside)) == planted)

        // Put back, the URL works again: nothing above hurt the server.
        try FileManager.default.removeItem(atPath: assets)
        try FileManager.default.moveItem(atPath: s.sandbox.dir + "/assets.kept", toPath: assets)
        try FileManager.default.moveItem(atPath: s.sandbox.dir + "/kept", toPath: assets + "/" + sha)
        #expect(try s.server.get(download).body == Self.bytes)
    }

    private func base64url(_ s: String) -> String {
        Data(s.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A long-poll GET started on its own thread; `reply()` waits for its answer.
final class CourierPoll: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<HTTPClientReply, Error> = .failure(ServeError("no reply yet"))

    init(_ server: ServeProcess, _ target: String, timeout: Double = 20) {
        let port = server.port
        DispatchQueue.global().async {
            self.result = Result { try HTTPClient.request(port: port, "GET", target, timeout: timeout) }
            self.done.signal()
        }
    }

    func reply() throws -> HTTPClientReply {
        done.wait()
        return try result.get()
    }
}

/// tokens/create, tokens/register and the web courier's long poll (web-services.md §8; cloudkit.md §3.9): frames
/// for saves made over HTTP and by the command line, their shape, and clients that leave mid-poll.
@Suite struct ServeCourierTests {
    static let setup: [[String]] = [
        ["--as", "alice", "zone", "create", "Work"],
        ["--as", "default", "zone", "create", "Work"],
        ["--as", "alice", "record", "save", "Note", "--name", "seed", "title=x"],
        ["schema", "index", "Note", "___recordID", "--queryable"],
        ["schema", "index", "Note", "title", "--queryable"],
    ]

    /// tokens/create then tokens/register for the token's user; returns the courier URL's path and query.
    static func courier(_ s: ServeSession, token: String?) throws -> (target: String, apnsToken: String) {
        let device = "/device/1/\(ServeSession.container)/development/tokens/"
        let auth = token.map { "?ckAPIToken=test&ckWebAuthToken=" + $0 } ?? ""
        let made = try s.server.post(device + "create" + auth, json: #"{"apnsEnvironment":"development","clientId":"test-client"}"#)
        try #require(made.status == 200, "\(made.text)")
        #expect(made.json["apnsEnvironment"] == .string("development"))
        let apns = try #require(made.json["apnsToken"]?.stringValue, "\(made.text)")
        let url = try #require(made.json["webcourierURL"]?.stringValue, "\(made.text)")
        let target = try s.target(of: url)
        #expect(target.contains("tok=\(apns)"), "\(url)")
        #expect(target.contains("ttl=43200"), "\(url)")
        let registered = try s.server.post(device + "register" + auth, json: #"{"apnsEnvironment":"development","apnsToken":"\#(apns)","clientId":"test-client"}"#)
        #expect((200..<300).contains(registered.status), "\(registered.text)")
        return (target, apns)
    }

    static func saveNote(_ s: ServeSession, _ name: String, title: String, zone: String? = nil, token: String? = nil) throws {
        let zoneID = zone.map { #""zoneID":{"zoneName":"\#($0)"},"# } ?? ""
        let r = try s.post("private", "records/modify", """
            {\(zoneID)"operations":[{"operationType":"create","record":{"recordName":"\(name)","recordType":"Note","fields":{"title":{"value":"\(title)"}}}}]}
            """, token: token)
        try #require(r.status == 200 && r.json["records"]?.arrayValue?.first?["serverErrorCode"] == nil, "\(r.text)")
    }

    @Test func aLongPollReceivesTheFrameOfAMatchingSave() throws {
        let s = try ServeSession(setup: Self.setup)
        let alice = try s.token(for: "alice")
        let aliceName = try s.userRecordName("alice")
        let (courier, _) = try Self.courier(s, token: alice)
        let subs = try s.post("private", "subscriptions/modify", """
            {"operations":[
              {"operationType":"create","subscription":{"subscriptionID":"hot","subscriptionType":"query",
                "query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"title","fieldValue":{"value":"urgent","type":"STRING"}}]},
                "firesOn":["create"],"notificationInfo":{"alertBody":"Urgent note"}}},
              {"operationType":"create","subscription":{"subscriptionID":"work","subscriptionType":"zone","zoneID":{"zoneName":"Work"},
                "notificationInfo":{"shouldSendContentAvailable":true}}}]}
            """, token: alice)
        #expect(subs.json["subscriptions"]?.arrayValue?.allSatisfy { $0["serverErrorCode"] == nil } == true, "\(subs.text)")

        // A poll held open, then a matching save over HTTP: the poll answers with its frame.
        let poll = CourierPoll(s.server, courier)
        try Self.saveNote(s, "n1", title: "urgent", token: alice)
        let first = try poll.reply()
        #expect(first.status == 200, "\(first.text)")
        let frame = first.json
        // {"aps"?, "ck":{nid, cid, ckuserid, ce, qry:{sid, rid, fo, zid, dbs, zoid}}} (§8).
        let topKeys = Set(frame.objectValue?.keys.map { $0 } ?? [])
        #expect(topKeys.isSubset(of: ["aps", "ck"]), "\(first.text)")
        let ck = try #require(frame["ck"], "\(first.text)")
        #expect(ck["nid"]?.stringValue?.isEmpty == false)
        #expect(ck["cid"] == .string(ServeSession.container))
        #expect(ck["ckuserid"] == .string(aliceName))
        #expect(ck["ce"] != nil)
        let qry = try #require(ck["qry"], "\(first.text)")
        #expect(qry["sid"] == .string("hot"))
        #expect(qry["rid"] == .string("n1"))
        #expect(qry["fo"]?.int64Value == 1, "fo 1 = created")
        #expect(qry["zid"] == .string("_defaultZone"))
        #expect(qry["dbs"] != nil && qry["zoid"] != nil, "\(first.text)")
        // aps only because the subscription set an alert.
        #expect(frame["aps"]?["alert"] != nil, "\(first.text)")
        // The control plane's list of notifications shows the same frame as the push it stands for.
        let plane = try s.server.get("/_ck/notifications?container=\(ServeSession.container)&user=alice")
        let entry = plane.json["notifications"]?.arrayValue?.first { $0["record"]?["recordName"] == .string("n1") }
        #expect(entry?["push"] == frame, "\(plane.text)")

        // A save that does not match makes no frame; the next matching one, by the command line, does.
        try Self.saveNote(s, "n2", title: "calm", token: alice)
        let poll2 = CourierPoll(s.server, courier)
        #expect(try s.sandbox.run(["--as", "alice", "record", "save", "Note", "--name", "n3", "title=urgent"]).status == 0)
        let second = try poll2.reply()
        #expect(second.status == 200, "\(second.text)")
        #expect(second.json["ck"]?["qry"]?["rid"] == .string("n3"), "\(second.text)")
        // Its nid is the notification's ID, as ck notification list shows it.
        let listed = try s.cliJSON(["--as", "alice", "notification", "list"])["notifications"]?.arrayValue ?? []
        let n3 = listed.first { $0["recordName"] == .string("n3") }
        #expect(n3?["notificationID"] != nil && n3?["notificationID"] == second.json["ck"]?["nid"], "\(listed)")

        // A zone subscription's frame names the subscription and zone, with no alert (none was set): a silent push.
        try Self.saveNote(s, "w1", title: "calm", zone: "Work", token: alice)
        let third = try CourierPoll(s.server, courier).reply()
        #expect(third.status == 200, "\(third.text)")
        #expect(third.json["aps"] == .object(["content-available": .int(1)]), "\(third.text)")
        let fet = third.json["ck"]?["fet"]
        #expect(fet?["sid"] == .string("work"), "\(third.text)")
        #expect(fet?["zid"] == .string("Work"), "\(third.text)")
        #expect(third.json["ck"]?["qry"] == nil)
    }

    @Test func eachUsersTokenGetsThatUsersNotifications() throws {
        // A public-database query subscription per user: one save by alice notifies both, each on their own token.
        let s = try ServeSession(setup: [["--db", "public", "record", "save", "Post", "--name", "seed", "t=1"],
                                         ["--db", "public", "schema", "index", "Post", "___recordID", "--queryable"]])
        let alice = try s.token(for: "alice"), bob = try s.token(for: "bob")
        let aliceName = try s.userRecordName("alice"), bobName = try s.userRecordName("bob")
        let aliceCourier = try Self.courier(s, token: alice), bobCourier = try Self.courier(s, token: bob)
        #expect(aliceCourier.apnsToken != bobCourier.apnsToken)
        for (token, id) in [(alice, "posts-alice"), (bob, "posts-bob")] {
            let r = try s.post("public", "subscriptions/modify", """
                {"operations":[{"operationType":"create","subscription":{"subscriptionID":"\(id)","subscriptionType":"query",
                  "query":{"recordType":"Post"},"firesOn":["create"],"notificationInfo":{"shouldSendContentAvailable":true}}}]}
                """, token: token)
            #expect(r.json["subscriptions"]?.arrayValue?.first?["serverErrorCode"] == nil, "\(r.text)")
        }
        let saved = try s.post("public", "records/modify", #"{"operations":[{"operationType":"create","record":{"recordName":"post1","recordType":"Post","fields":{"t":{"value":2}}}}]}"#, token: alice)
        #expect(saved.json["records"]?.arrayValue?.first?["serverErrorCode"] == nil, "\(saved.text)")

        let a = try CourierPoll(s.server, aliceCourier.target).reply()
        let b = try CourierPoll(s.server, bobCourier.target).reply()
        #expect(a.json["ck"]?["qry"]?["sid"] == .string("posts-alice"), "\(a.text)")
        #expect(a.json["ck"]?["ckuserid"] == .string(aliceName))
        #expect(b.json["ck"]?["qry"]?["sid"] == .string("posts-bob"), "\(b.text)")
        #expect(b.json["ck"]?["ckuserid"] == .string(bobName))
        #expect(a.json["ck"]?["qry"]?["rid"] == .string("post1"))
        #expect(b.json["ck"]?["qry"]?["rid"] == .string("post1"))
    }

    @Test func clientsThatLeaveMidPollAndBadTokensDoNotHurtTheServer() throws {
        let s = try ServeSession(setup: Self.setup, serve: ["--no-auth"])
        let (courier, _) = try Self.courier(s, token: nil)
        #expect(try s.post("private", "subscriptions/modify", """
            {"operations":[{"operationType":"create","subscription":{"subscriptionID":"all","subscriptionType":"query","query":{"recordType":"Note"},
              "firesOn":["create"],"notificationInfo":{"alertBody":"note"}}}]}
            """).status == 200)

        // Polls whose clients hang up before anything arrives (some after sending only half a request).
        for i in 0..<8 {
            let fd = try HTTPClient.connect(port: s.server.port, timeout: 10)
            let request = "GET \(courier) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            try HTTPClient.sendAll(fd, Array((i % 2 == 0 ? request : String(request.prefix(20))).utf8))
            close(fd)
        }
        #expect(try s.server.get("/_ck/health").status == 200)

        // The next poll gets the next frame: none went to a client that left.
        let poll = CourierPoll(s.server, courier)
        try Self.saveNote(s, "after", title: "x")
        let r = try poll.reply()
        #expect(r.status == 200, "\(r.text)")
        #expect(r.json["ck"]?["qry"]?["rid"] == .string("after"), "\(r.text)")

        // Tokens the server never made, and none at all: JSON errors, not a held poll.
        let unknown = try s.server.get("/_ck/courier?tok=" + String(repeating: "0", count: 64))
        #expect(unknown.status == 404)
        #expect(unknown.json["serverErrorCode"] == .string("NOT_FOUND"))
        let none = try s.server.get("/_ck/courier")
        #expect(none.status == 400)
        #expect(none.json["serverErrorCode"] == .string("BAD_REQUEST"))
        let register = try s.server.post("/device/1/\(ServeSession.container)/development/tokens/register",
                                         json: #"{"apnsEnvironment":"development","apnsToken":"feedface"}"#)
        #expect(register.status == 404)
        #expect(register.json["serverErrorCode"] == .string("NOT_FOUND"))
        let badEnv = try s.server.post("/device/1/\(ServeSession.container)/development/tokens/create", json: #"{"apnsEnvironment":"staging"}"#)
        #expect(badEnv.status == 400)
        #expect(badEnv.json["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(try s.server.get("/_ck/health").status == 200)
        #expect(s.server.stop().status == 0)
    }
}
