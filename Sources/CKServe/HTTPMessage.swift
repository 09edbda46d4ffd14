import CKModel
import Synchronization

/// An HTTP request as the transport copied it off the wire: nothing in it points back into the HTTP library.
public struct HTTPRequest: Sendable {
    /// The method in capitals: GET, POST, OPTIONS, …
    public var method: String
    /// The request target exactly as sent, query string included (the S2S signature covers it unchanged).
    public var target: String {
        didSet { (path, query) = HTTPRequest.split(target) }
    }
    /// Header names and values in the order received.
    public var headers: [(name: String, value: String)]
    /// The body's bytes as received.
    public var body: [UInt8]
    /// The peer's address, for the request log.
    public var peer: String
    /// The path: the target up to `?`, percent-decoding left to the router.
    public private(set) var path: String
    /// The query string's parameters, percent-decoded (`+` is a space); a repeated name keeps its first value.
    public private(set) var query: [String: String]

    public init(method: String, target: String, headers: [(name: String, value: String)] = [], body: [UInt8] = [], peer: String = "") {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
        self.peer = peer
        (path, query) = HTTPRequest.split(target)
    }

    /// A target's path and query parameters, found once: routes read them several times a request.
    private static func split(_ target: String) -> (path: String, query: [String: String]) {
        let utf8 = target.utf8
        // Searched as bytes: a Character search walks grapheme clusters.
        guard let q = utf8.firstIndex(of: UInt8(ascii: "?")) else { return (target, [:]) }
        var query: [String: String] = [:]
        for pair in utf8[utf8.index(after: q)...].split(separator: UInt8(ascii: "&")) {
            let eq = pair.firstIndex(of: UInt8(ascii: "="))
            guard let name = HTTPRequest.percentDecoded(bytes: pair[..<(eq ?? pair.endIndex)]) else { continue }
            let value = eq.map { HTTPRequest.percentDecoded(bytes: pair[pair.index(after: $0)...]) ?? "" } ?? ""
            if query[name] == nil { query[name] = value }
        }
        return (String(target[..<q]), query)
    }

    /// The first header of that name, compared without case.
    public func header(_ name: String) -> String? {
        headers.first { HTTPHeaderName.equal($0.name, name) }?.value
    }

    /// Percent-decoding of a URL component (`+` as space); nil when an escape is malformed or not UTF-8.
    public static func percentDecoded<S: StringProtocol>(_ s: S) -> String? {
        percentDecoded(bytes: s.utf8)
    }

    /// Percent-decoding of a URL component's bytes; a component with nothing to decode is copied as it is.
    static func percentDecoded<C: Collection<UInt8>>(bytes: C) -> String? {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else {
            return String(validating: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var it = bytes.makeIterator()
        while let b = it.next() {
            if b == UInt8(ascii: "+") { out.append(UInt8(ascii: " ")); continue }
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard let h = it.next(), let l = it.next(), let hv = hexValue(h), let lv = hexValue(l) else { return nil }
            out.append(hv << 4 | lv)
        }
        return String(validating: out, as: UTF8.self)
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
    /// For the request log, not the wire: the error this response carries (`WireError.response` sets it), so the
    /// log need not parse the body back.
    public var loggedError: (serverErrorCode: String, reason: String)?
    /// A reply that stays open: the status and headers are sent, then what is written to the stream, as it comes
    /// (`body` is ignored). The transport closes the stream however the reply ends, even if it is never sent.
    public var stream: HTTPStream?

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
        headers.first { HTTPHeaderName.equal($0.name, name) }?.value
    }
}

/// Header names compare without ASCII case (RFC 9110 §5.1).
enum HTTPHeaderName {
    /// Whether two header names are equal ignoring ASCII case; byte by byte, with no lowercased copies.
    static func equal(_ a: String, _ b: String) -> Bool {
        var x = a.utf8.makeIterator()
        var y = b.utf8.makeIterator()
        while true {
            switch (x.next(), y.next()) {
            case (nil, nil): return true
            case let (p?, q?) where p == q || (p | 0x20 == q | 0x20 && (p | 0x20) >= UInt8(ascii: "a") && (p | 0x20) <= UInt8(ascii: "z")): continue
            default: return false
            }
        }
    }
}

/// Where a held reply goes: called once, from any thread; a call after the client has gone is dropped.
public typealias HTTPReply = @Sendable (HTTPResponse) -> Void

/// What the transport hands each request to. `respond` may reply at once or hold `reply` and call it later
/// (a web-courier long-poll); `closed` is called if the client goes away first.
public protocol HTTPResponder: Sendable {
    /// Answers one request by calling `reply` exactly once.
    func respond(to request: HTTPRequest, reply: @escaping HTTPReply, closed: HTTPClosedSignal)
    /// The answer, if it can be given at once without waiting on anything (no lock, no long-poll): the
    /// transport calls this on its event loop and sends what it returns there, sparing the hand-off to a worker.
    /// nil sends the request to `respond` on a worker.
    func respondAtOnce(to request: HTTPRequest) -> HTTPResponse?
}

extension HTTPResponder {
    /// By default every request goes to a worker.
    public func respondAtOnce(to request: HTTPRequest) -> HTTPResponse? { nil }
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
