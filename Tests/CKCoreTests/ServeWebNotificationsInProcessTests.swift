import Foundation
import Synchronization
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKServer
@testable import CKServe

/// Subscriptions, users, assets and the web courier of `ck serve`, driven through `CloudKitServer.respond`
/// without a socket (the end-to-end suites speak HTTP to the same code).
@Suite struct ServeWebNotificationsInProcessTests {
    final class Box: Sendable {
        let value = Mutex<HTTPResponse?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    static func call(_ server: CloudKitServer, _ method: String, _ target: String, json: String? = nil, body: [UInt8]? = nil,
                     closed: HTTPClosedSignal = HTTPClosedSignal(), wait: Double = 10) -> HTTPResponse? {
        let box = Box()
        let request = HTTPRequest(method: method, target: target, body: body ?? Array((json ?? "").utf8))
        server.respond(to: request, reply: { r in box.value.withLock { $0 = r }; box.done.signal() }, closed: closed)
        guard box.done.wait(timeout: .now() + wait) == .success else { return nil }
        return box.value.withLock { $0 }
    }

    static func json(_ r: HTTPResponse?) -> JSON { r.flatMap { try? JSON.parse(utf8: $0.body) } ?? .null }

    func server(_ t: TempStore, hold: Double = 30) throws -> CloudKitServer {
        var o = ServeOptions()
        o.courierHold = hold
        return CloudKitServer(store: t.store, options: o)
    }

    static let base = "/database/1/iCloud.com.example.app/development"

    func setUp(_ t: TempStore) throws {
        _ = try t.store.createContainer("iCloud.com.example.app")
        let db = try t.store.container("iCloud.com.example.app").database(.private, environment: .development, user: "default")
        _ = try db.createZone("Work", capabilities: [.fetchChanges, .atomic])
        _ = try db.modify([RecordOperation(type: .create, recordName: "n0", recordType: "Note", fields: ["title": .text("x", type: nil, action: nil), "n": .text("1", type: nil, action: nil)])])
        try t.store.container("iCloud.com.example.app").setIndexes(recordType: "Note", field: "title", queryable: true, sortable: false, searchable: false, remove: false)
        try t.store.container("iCloud.com.example.app").setIndexes(recordType: "Note", field: "___recordID", queryable: true, sortable: false, searchable: false, remove: false)
    }

    @Test func subscriptionsRoundTrip() throws {
        let t = try TempStore()
        try setUp(t)
        let s = try server(t)
        let modify = Self.call(s, "POST", Self.base + "/private/subscriptions/modify", json: """
            {"operations":[
              {"operationType":"create","subscription":{"subscriptionType":"query","subscriptionID":"q1","query":{"recordType":"Note","filterBy":[{"fieldName":"title","comparator":"BEGINS_WITH","fieldValue":{"value":"Bu"}}]},"firesOn":["create","update"],"notificationInfo":{"alertBody":"hi"}}},
              {"operationType":"create","subscription":{"subscriptionType":"zone","subscriptionId":"z1","zoneID":{"zoneName":"Work"}}},
              {"operationType":"update","subscription":{"subscriptionType":"zone","subscriptionID":"missing","zoneID":{"zoneName":"Work"}}},
              {"operationType":"create","subscription":{"subscriptionType":"query","subscriptionID":"bad","query":{"recordType":"Note","filterBy":[{"fieldName":"title","comparator":"EQUALS"}]}}},
              {"operationType":"delete","subscription":{"subscriptionID":"nope"}},
              {"operationType":"frob","subscription":{}}
            ]}
            """)
        let subs = Self.json(modify)["subscriptions"]?.arrayValue ?? []
        #expect(modify?.status == 200, "\(String(decoding: modify?.body ?? [], as: UTF8.self))")
        #expect(subs.count == 6)
        #expect(subs.first?["subscriptionID"] == .string("q1"))
        #expect(subs.first?["query"]?["filterBy"]?[0]?["comparator"] == .string("BEGINS_WITH"))
        print(subs.map { $0.serialized() }.joined(separator: "\n"))
        #expect(subs[1]["zoneID"]?["zoneName"] == .string("Work"))
        #expect(subs[2]["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(subs[3]["serverErrorCode"] == .string("BAD_REQUEST"))
        #expect(subs[4]["serverErrorCode"] == .string("NOT_FOUND"))
        #expect(subs[5]["serverErrorCode"] == .string("BAD_REQUEST"))
        let list = Self.json(Self.call(s, "GET", Self.base + "/private/subscriptions/list"))
        #expect(list["subscriptions"]?.arrayValue?.compactMap { $0["subscriptionID"]?.stringValue } == ["q1", "z1"])
        let lookup = Self.json(Self.call(s, "POST", Self.base + "/private/subscriptions/lookup", json: #"{"subscriptions":[{"subscriptionID":"z1"},{"subscriptionID":"zz"}]}"#))
        #expect(lookup["subscriptions"]?[0]?["subscriptionType"] == .string("zone"))
        #expect(lookup["subscriptions"]?[1]?["serverErrorCode"] == .string("NOT_FOUND"))
    }

    @Test func assetsRoundTrip() throws {
        let t = try TempStore()
        try setUp(t)
        let s = try server(t)
        let up = Self.json(Self.call(s, "POST", Self.base + "/private/assets/upload", json: #"{"tokens":[{"recordType":"Photo","fieldName":"img"}]}"#))
        guard let url = up["tokens"]?[0]?["url"]?.stringValue, let r = url.range(of: "/_ck/") else { Issue.record("no url: \(up)"); return }
        let target = String(url[r.lowerBound...])
        let bytes = Array("hello asset".utf8)
        let first = Self.call(s, "POST", target, body: bytes)
        #expect(first?.status == 200)
        let single = Self.json(first)["singleFile"]
        #expect(single?["size"] == .int(Int64(bytes.count)))
        #expect(Self.call(s, "POST", target, body: bytes)?.status == 404)
        let db = try t.store.container("iCloud.com.example.app").database(.private, environment: .development, user: "default")
        let saved = try db.modify([RecordOperation(type: .create, recordName: "p1", recordType: "Photo", fields: ["img": .json(.object(["value": single ?? .null]))])])
        #expect(saved.results.first?.error == nil, "\(String(describing: saved.results.first?.error))")
        let sha = SHA256.hex(bytes)
        let dl = Self.call(s, "GET", "/_ck/assets/download/" + Base64URL.encode(Array("iCloud.com.example.app".utf8)) + "/development/" + sha + "/$%7Bf%7D")
        #expect(dl?.status == 200)
        #expect(dl?.body == bytes)
    }

    @Test func courierDeliversAFrame() throws {
        let t = try TempStore()
        try setUp(t)
        let s = try server(t, hold: 0.3)
        _ = Self.call(s, "POST", Self.base + "/private/subscriptions/modify", json: """
            {"operations":[{"operationType":"create","subscription":{"subscriptionType":"query","subscriptionID":"q1","query":{"recordType":"Note"},"notificationInfo":{"alertBody":"new"}}}]}
            """)
        let created = Self.json(Self.call(s, "POST", "/device/1/iCloud.com.example.app/development/tokens/create", json: #"{"apnsEnvironment":"development","clientId":"c"}"#))
        guard let tok = created["apnsToken"]?.stringValue else { Issue.record("\(created)"); return }
        let reg = Self.call(s, "POST", "/device/1/iCloud.com.example.app/development/tokens/register", json: #"{"apnsEnvironment":"development","apnsToken":"\#(tok)"}"#)
        #expect(reg?.status == 200)
        #expect(Self.call(s, "GET", WebCourier.path + "?tok=" + tok)?.status == 204)
        let db = try t.store.container("iCloud.com.example.app").database(.private, environment: .development, user: "default")
        _ = try db.modify([RecordOperation(type: .create, recordName: "n9", recordType: "Note", fields: ["title": .text("y", type: nil, action: nil)])])
        let frame = Self.call(s, "GET", WebCourier.path + "?tok=" + tok, wait: 5)
        #expect(frame?.status == 200)
        let f = Self.json(frame)
        #expect(f["ck"]?["qry"]?["rid"] == .string("n9"))
        #expect(f["ck"]?["qry"]?["fo"] == .int(1))
        #expect(f["aps"]?["alert"]?["body"] == .string("new"))
    }
}

fileprivate extension JSON {
    subscript(index: Int) -> JSON? {
        guard let a = arrayValue, a.indices.contains(index) else { return nil }
        return a[index]
    }
}
