import CKModel
import Synchronization

/// An HTTP request as the transport copied it off the wire: nothing in it points back into the HTTP library.
public struct HTTPRequest: Sendable {
    /// The method in capitals: GET, POST, OPTIONS, …
    public var method: String
    /// The request target exactly as sent, query string included (the S2S signature covers it unchanged).
    public var target: String
    /// Header names and values in the order received.
    public var headers: [(name: String, value: String)]
    /// The body's bytes as received.
    public var body: [UInt8]
    /// The peer's address, for the request log.
    public var peer: String

    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], peer: String = "") {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.peer = peer
    }

    /// The path: the target up to `?`, percent-decoding left to the router.
    public var path: String {
        guard let q = target.firstIndex(of: "?") else { return target }
        return String(target[..<q])
    }

    /// The query string's parameters, percent-decoded (`+` is a space); a repeated name keeps its first value.
    public var query: [String: String] {
        guard let q = target.firstIndex(of: "?") else { return [:] }
        var out: [String: String] = [:]
        for pair in target[target.index(after: q)...].split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = HTTPRequest.percentDecoded(parts[0]) else { continue }
            let value = parts.count > 1 ? HTTPRequest.percentDecoded(parts[1]) ?? "" : ""
            if out[name] == nil { out[name] = value }
        }
        return out
    }

    /// The first header of that name, compared without case.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// Percent-decoding of a URL component (`+` as space); nil when an escape is malformed or not UTF-8.
    public static func percentDecoded<S: StringProtocol>(_ s: S) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(s.utf8.count)
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "+") { bytes.append(UInt8(ascii: " ")); continue }
            guard b == UInt8(ascii: "%") else { bytes.append(b); continue }
            guard let h = it.popFirst(), let l = it.popFirst(), let hv = hexValue(h), let lv = hexValue(l) else { return nil }
            bytes.append(hv << 4 | lv)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// An HTTP response: status, headers and body. The transport adds `Date` and `Content-Length`.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response, `Content-Type: application/json; charset=UTF-8` as iCloud.com sends it.
    public static func json(_ value: JSON, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=UTF-8")],
                     body: Array(value.serialized().utf8))
    }

    /// The first header of that name, compared without case.
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }
}

/// Where a held reply goes: called once, from any thread; a call after the client has gone is dropped.
public typealias HTTPReply = @Sendable (HTTPResponse) -> Void

/// What the transport hands each request to. `respond` may reply at once or hold `reply` and call it later
/// (a web-courier long-poll); `closed` is called if the client goes away first.
public protocol HTTPResponder: Sendable {
    /// Answers one request by calling `reply` exactly once.
    func respond(to request: HTTPRequest, reply: @escaping HTTPReply, closed: HTTPClosedSignal)
}

/// Tells a held request that its client disconnected, so the holder can stop waiting.
public final class HTTPClosedSignal: Sendable {
    private let state = Mutex<(closed: Bool, handlers: [@Sendable () -> Void])>((false, []))

    public init() {}

    /// Whether the client has gone.
    public var isClosed: Bool { state.withLock { $0.closed } }

    /// Runs `handler` when the client goes (at once if it already has).
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let run = state.withLock { s -> Bool in
            if s.closed { return true }
            s.handlers.append(handler)
            return false
        }
        if run { handler() }
    }

    /// Marks the client gone and runs the handlers (the transport calls this).
    public func close() {
        let handlers = state.withLock { s -> [@Sendable () -> Void] in
            if s.closed { return [] }
            s.closed = true
            defer { s.handlers = [] }
            return s.handlers
        }
        for h in handlers { h() }
    }
}
