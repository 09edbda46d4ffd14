import CKModel
import CKFiles
import CckEvent
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The HTTP transport over libevent's evhttp: binds, copies each request into an `HTTPRequest`, hands it to the
/// responder off the event loop, and sends the reply back on the loop. What the responder can answer without
/// waiting on anything (`respondAtOnce`: a preflight, an unknown control-plane path) is answered on the loop itself.
///
/// One thread runs the event loop and owns every `evhttp_request`; responders run on a concurrent queue and their
/// replies are carried back to the loop with `event_base_once` (thread-safe since `evthread_use_pthreads` ran before
/// the base was made). evhttp stops reading a connection while its request is being answered, so it would not
/// notice a client that leaves during a held reply (a courier long-poll): the transport watches the socket itself,
/// and when the client has gone it frees the connection, tells the holder through `HTTPClosedSignal`, and drops the
/// late reply.
///
/// A reply may stay open (`HTTPResponse.stream`, server-sent events): its head is sent with
/// `evhttp_send_reply_start`, then each write as a chunk, on the loop. Such a reply is no longer in flight: the client
/// leaving (evhttp reads the socket while it writes), a reader that falls `HTTPStream.maxBuffered` behind, or `stop`
/// ends it, and `stop` does not wait for it.
public final class HTTPServer: @unchecked Sendable {
    /// The largest body evhttp reads: above the largest asset ck takes (50 MB), so that ck answers too-large
    /// uploads with its own JSON error rather than evhttp's HTML 413.
    public static let maxBody = 64 * 1_048_576
    /// The largest request head (request line and headers) evhttp reads.
    public static let maxHeaders = 64 * 1024
    /// The largest JSON body a Web Services request may have. CloudKit allows 2 MB of record data per request
    /// (cloudkit.md §5.2); 16 MiB leaves room for JSON's escaping and field names. Not enforced by the transport:
    /// `CloudKitServer.webServices` answers it in JSON, since asset uploads may be larger.
    public static let maxJSONBody = 16 * 1_048_576
    /// How long `stop` waits for requests in flight before it answers the ones still held.
    public static let drainSeconds = 3.0

    private let base: OpaquePointer
    private let http: OpaquePointer
    private let responder: HTTPResponder
    /// Where holders are told their client has gone.
    private let workers = DispatchQueue(label: "ck.serve.closed", attributes: .concurrent)
    /// The port bound (the one chosen when 0 was asked for).
    public let port: Int
    /// Seconds a connection may stay idle or a slow client take (evhttp's timeout, restored after a stream).
    private let timeout: Int32

    /// State shared with other threads: whether the loop still takes replies, and a stop asked before `run`.
    private let shared = Mutex<(loopOpen: Bool, stopAsked: Bool)>((true, false))

    // Loop-thread state: touched only from evhttp callbacks and `event_base_once` callbacks.
    private var listener: OpaquePointer?
    private var inFlight: [ObjectIdentifier: Exchange] = [:]
    private var byConnection: [OpaquePointer: Exchange] = [:]
    /// Replies that stay open, by connection.
    private var streams: [OpaquePointer: StreamReply] = [:]
    private var stopping = false
    private var unflushed = 0
    private var exiting = false
    private var httpFreed = false

    private static let threading: Void = {
        _ = evthread_use_pthreads()
        // libevent's own log lines ("[warn] getaddrinfo: …") would go to stderr; ck reports failures itself.
        event_set_log_callback { _, _ in }
        // A client that closes while a reply is written must not kill the server with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
    }()

    /// Binds `host:port` (port 0 picks a free one) with evhttp's limits set; throws when the address can't be bound.
    public init(host: String, port: Int, timeout: Int32, responder: HTTPResponder) throws(CKError) {
        _ = HTTPServer.threading
        guard let base = event_base_new() else { throw CKError(.internalError, "cannot create an event loop (libevent)") }
        guard let http = evhttp_new(base) else {
            event_base_free(base)
            throw CKError(.internalError, "cannot create an HTTP server (libevent)")
        }
        self.base = base
        self.http = http
        self.responder = responder
        self.timeout = timeout
        guard (0...65535).contains(port) else {
            evhttp_free(http)
            event_base_free(base)
            throw CKError(.invalidArguments, "port \(port) is not between 0 and 65535")
        }
        let methods = [EVHTTP_REQ_GET, EVHTTP_REQ_POST, EVHTTP_REQ_OPTIONS, EVHTTP_REQ_HEAD, EVHTTP_REQ_PUT,
                       EVHTTP_REQ_DELETE, EVHTTP_REQ_PATCH].reduce(UInt32(0)) { $0 | $1.rawValue }
        evhttp_set_allowed_methods(http, UInt16(methods))
        evhttp_set_max_body_size(http, Int(HTTPServer.maxBody))
        evhttp_set_max_headers_size(http, Int(HTTPServer.maxHeaders))
        evhttp_set_timeout(http, timeout)
        evhttp_set_default_content_type(http, "application/json; charset=UTF-8")
        // The address as bind(2) wants it: without the brackets of a URL.
        var bare = host
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        errno = 0
        guard let bound = evhttp_bind_socket_with_handle(http, bare, UInt16(port)) else {
            let err = errno
            evhttp_free(http)
            event_base_free(base)
            if err == EADDRINUSE {
                throw CKError(.networkUnavailable, "port \(port) is in use; pick another with --port, or --port 0")
            }
            let why = err == 0 ? "not an address of this machine (or not an address)" : String(cString: strerror(err))
            throw CKError(.networkUnavailable, "cannot listen on \(host) port \(port): \(why)")
        }
        listener = bound
        let fd = evhttp_bound_socket_get_fd(bound)
        // TCP_NODELAY, once: Linux gives accepted sockets the listener's setting. Without it the tail of a reply
        // larger than a segment waits for the client's delayed ACK (40 ms), which made a 100-record page cost 44 ms.
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        self.port = HTTPServer.boundPort(fd) ?? port
        let me = Unmanaged.passUnretained(self).toOpaque()
        evhttp_set_gencb(http, { req, arg in
            guard let req, let arg else { return }
            Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().accept(req)
        }, me)
    }

    deinit {
        if !httpFreed { evhttp_free(http) }
        event_base_free(base)
    }

    /// The port a listening socket got.
    private static func boundPort(_ fd: Int32) -> Int? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let r = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard r == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) } }
        case AF_INET6:
            return withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) } }
        default:
            return nil
        }
    }

    /// Serves until `stop`; returns once requests in flight are answered (or, after `drainSeconds`, answered
    /// with a shutting-down error).
    public func run() {
        if shared.withLock({ $0.stopAsked }) { beginStop() }
        // The loop answers reads in place only while their locks are free; a taken one sends the request to a worker.
        LockNoWait.enter()
        event_base_dispatch(base)
        LockNoWait.leave()
        shared.withLock { $0.loopOpen = false }
        // Closes every connection; requests still held are freed by evhttp with them.
        evhttp_free(http)
        httpFreed = true
        for exchange in Array(inFlight.values) where retire(exchange) { exchange.closed.close() }
        for reply in streams.values { reply.body.close() }
        streams = [:]
    }

    /// Asks `run` to finish; safe from any thread or a signal-handling queue.
    public func stop() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        shared.withLock { s in
            s.stopAsked = true
            guard s.loopOpen else { return }
            _ = event_base_once(base, -1, Int16(EV_TIMEOUT), { _, _, arg in
                guard let arg else { return }
                Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().beginStop()
            }, me, nil)
        }
    }

    // MARK: Loop thread

    /// One request between the loop and a responder.
    private final class Exchange: @unchecked Sendable {
        /// The `evhttp_request`, touched on the loop thread only, and only while `live`.
        let request: OpaquePointer
        let connection: OpaquePointer?
        let closed = HTTPClosedSignal()
        let response = Mutex<HTTPResponse?>(nil)
        let server: HTTPServer
        /// The event that watches the socket for the client leaving (loop thread).
        var watch: OpaquePointer?
        /// The timer that starts the watch once the request has been held a while (loop thread).
        var timer: OpaquePointer?

        init(request: OpaquePointer, connection: OpaquePointer?, server: HTTPServer) {
            self.request = request
            self.connection = connection
            self.server = server
        }
    }

    /// evhttp's callback for a complete request: copy it out and hand it to a worker.
    private func accept(_ req: OpaquePointer) {
        let connection = evhttp_request_get_connection(req)
        if stopping {
            send(HTTPServer.shuttingDown(), on: req)
            return
        }
        let request = HTTPServer.copy(req, connection: connection)
        // What needs no route (a preflight, an unknown control-plane path) is sent from the loop: the hand-off to a
        // worker and back would cost more than the answer.
        if let response = responder.respondAtOnce(to: request) {
            send(response, on: req)
            return
        }
        let exchange = Exchange(request: req, connection: connection, server: self)
        inFlight[ObjectIdentifier(exchange)] = exchange
        if let connection {
            byConnection[connection] = exchange
            evhttp_connection_set_closecb(connection, { evcon, arg in
                guard let evcon, let arg else { return }
                Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().connectionClosed(evcon)
            }, Unmanaged.passUnretained(self).toOpaque())
            watchLater(exchange)
        }
        let responder = self.responder
        // A serial queue per request: its work goes to Dispatch's overcommitting pool, so a request that waits
        // (on a store lock, say) gets a thread of its own instead of holding up the few a concurrent queue has.
        DispatchQueue(label: "ck.serve.request").async {
            responder.respond(to: request, reply: { response in exchange.server.deliver(response, for: exchange) }, closed: exchange.closed)
        }
    }

    /// A reply from any thread: keep the first, and wake the loop to send it.
    private func deliver(_ response: HTTPResponse, for exchange: Exchange) {
        let first = exchange.response.withLock { r -> Bool in
            guard r == nil else { return false }
            r = response
            return true
        }
        guard first else { return }
        let box = Unmanaged.passRetained(exchange).toOpaque()
        let scheduled = shared.withLock { s -> Bool in
            guard s.loopOpen else { return false }
            return event_base_once(base, -1, Int16(EV_TIMEOUT), { _, _, arg in
                guard let arg else { return }
                let exchange = Unmanaged<Exchange>.fromOpaque(arg).takeRetainedValue()
                exchange.server.sendReply(exchange)
            }, box, nil) == 0
        }
        if !scheduled {
            Unmanaged<Exchange>.fromOpaque(box).release()
            response.stream?.close()
        }
    }

    /// On the loop: send a delivered reply, unless the client went away or shutdown already answered it.
    private func sendReply(_ exchange: Exchange) {
        let response = exchange.response.withLock { $0 }
        guard retire(exchange), let response else {
            response?.stream?.close()
            return
        }
        if let body = response.stream {
            startStream(response, body: body, on: exchange)
        } else {
            send(response, on: exchange.request)
        }
        if stopping && inFlight.isEmpty { finish() }
    }

    /// Writes a response on a request; evhttp owns (and frees) the request from here on.
    private func send(_ response: HTTPResponse, on req: OpaquePointer) {
        if let headers = evhttp_request_get_output_headers(req) {
            for (name, value) in response.headers where HTTPServer.safeHeader(name, value) {
                evhttp_add_header(headers, name, value)
            }
            if !response.body.isEmpty && !response.headers.contains(where: { HTTPHeaderName.equal($0.name, "Content-Type") }) {
                evhttp_add_header(headers, "Content-Type", "application/json; charset=UTF-8")
            }
        }
        let buffer = evbuffer_new()
        if let buffer, !response.body.isEmpty {
            _ = response.body.withUnsafeBytes { evbuffer_add(buffer, $0.baseAddress, $0.count) }
        }
        unflushed += 1
        evhttp_request_set_on_complete_cb(req, { _, arg in
            guard let arg else { return }
            Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().flushed()
        }, Unmanaged.passUnretained(self).toOpaque())
        evhttp_send_reply(req, Int32(response.status), HTTPServer.reasonPhrase(response.status), buffer)
        if let buffer { evbuffer_free(buffer) }
    }

    /// A header that would split the response (CR or LF in it) is left out rather than sent.
    private static func safeHeader(_ name: String, _ value: String) -> Bool {
        !name.isEmpty && !name.utf8.contains(where: { $0 == 13 || $0 == 10 || $0 == UInt8(ascii: ":") })
            && !value.utf8.contains(where: { $0 == 13 || $0 == 10 })
    }

    /// A reply has been written out in full.
    private func flushed() {
        unflushed -= 1
        if exiting && unflushed <= 0 { event_base_loopexit(base, nil) }
    }

    /// evhttp is closing a connection: a request still held on it is gone; free it (evhttp detached it when the
    /// client went) and tell its holder. A stream on it is closed.
    private func connectionClosed(_ evcon: OpaquePointer) {
        if let reply = streams.removeValue(forKey: evcon) {
            if evhttp_request_get_connection(reply.request) == nil { evhttp_request_free(reply.request) }
            reply.body.close()
            return
        }
        guard let exchange = byConnection[evcon], retire(exchange) else { return }
        if evhttp_request_get_connection(exchange.request) == nil { evhttp_request_free(exchange.request) }
        workers.async { exchange.closed.close() }
        if stopping && inFlight.isEmpty { finish() }
    }

    /// Takes a request out of the books (stops watching its socket); false when it was already out: answered,
    /// gone, or answered by shutdown.
    @discardableResult
    private func retire(_ exchange: Exchange) -> Bool {
        guard inFlight.removeValue(forKey: ObjectIdentifier(exchange)) != nil else { return false }
        if let c = exchange.connection, byConnection[c] === exchange { byConnection[c] = nil }
        if let watch = exchange.watch {
            event_free(watch)
            exchange.watch = nil
        }
        if let timer = exchange.timer {
            event_free(timer)
            exchange.timer = nil
        }
        return true
    }

    /// Starts watching a request's socket only once it has been held for `watchDelay`: most requests are answered
    /// sooner, and a timer costs no system calls where adding and removing a socket watch costs two.
    private func watchLater(_ exchange: Exchange) {
        exchange.timer = event_new(base, -1, 0, { _, _, arg in
            guard let arg else { return }
            let exchange = Unmanaged<Exchange>.fromOpaque(arg).takeUnretainedValue()
            guard let connection = exchange.connection, exchange.watch == nil else { return }
            exchange.server.watchForLeaving(exchange, connection: connection)
        }, Unmanaged.passUnretained(exchange).toOpaque())
        var delay = HTTPServer.watchDelay
        if let timer = exchange.timer { event_add(timer, &delay) }
    }

    /// How long a request is held before its socket is watched for the client leaving.
    private static let watchDelay = timeval(tv_sec: 0, tv_usec: 20_000)

    /// Watches a held request's socket: readable with nothing to read means the client closed it.
    private func watchForLeaving(_ exchange: Exchange, connection: OpaquePointer) {
        guard let bev = evhttp_connection_get_bufferevent(connection) else { return }
        let fd = bufferevent_getfd(bev)
        guard fd >= 0 else { return }
        exchange.watch = event_new(base, fd, Int16(EV_READ), { fd, _, arg in
            guard let arg else { return }
            let exchange = Unmanaged<Exchange>.fromOpaque(arg).takeUnretainedValue()
            exchange.server.readable(fd, exchange)
        }, Unmanaged.passUnretained(exchange).toOpaque())
        if let watch = exchange.watch { event_add(watch, nil) }
    }

    /// The held request's socket became readable: if the client has gone, free its connection (and with it the
    /// request) and tell the holder. Bytes of a next, pipelined request are left for evhttp, and watching ends.
    private func readable(_ fd: Int32, _ exchange: Exchange) {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if n > 0 || (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if n < 0, let watch = exchange.watch { event_add(watch, nil) }
            return
        }
        guard let connection = exchange.connection, retire(exchange) else { return }
        evhttp_connection_free(connection)
        workers.async { exchange.closed.close() }
        if stopping && inFlight.isEmpty { finish() }
    }

    /// Stop taking connections; finish once requests in flight are answered, or answer them after a while.
    private func beginStop() {
        guard !stopping else { return }
        stopping = true
        if let listener { evhttp_del_accept_socket(http, listener) }
        listener = nil
        // Streams never finish by themselves: they end now, so shutdown waits only for their last chunk.
        for reply in Array(streams.values) { endStream(reply) }
        if inFlight.isEmpty { finish(); return }
        var wait = timeval(tv_sec: Int(HTTPServer.drainSeconds), tv_usec: 0)
        _ = event_base_once(base, -1, Int16(EV_TIMEOUT), { _, _, arg in
            guard let arg else { return }
            Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().answerHeld()
        }, Unmanaged.passUnretained(self).toOpaque(), &wait)
    }

    /// Requests still held when the drain time ran out get a shutting-down error, and their holders are told.
    private func answerHeld() {
        guard !exiting else { return }
        for exchange in Array(inFlight.values) where retire(exchange) {
            if evhttp_request_get_connection(exchange.request) == nil {
                evhttp_request_free(exchange.request)
            } else {
                send(HTTPServer.shuttingDown(), on: exchange.request)
            }
            workers.async { exchange.closed.close() }
        }
        finish()
    }

    /// Leave the loop once the last replies are written (bounded: a write to a vanished client never completes).
    private func finish() {
        guard !exiting else { return }
        exiting = true
        if unflushed <= 0 { event_base_loopexit(base, nil); return }
        var bound = timeval(tv_sec: 1, tv_usec: 0)
        event_base_loopexit(base, &bound)
    }

    // MARK: Streams

    /// A reply that stays open, between its head and its end (loop thread).
    private final class StreamReply: @unchecked Sendable {
        let request: OpaquePointer
        let connection: OpaquePointer
        let body: HTTPStream
        let server: HTTPServer

        init(request: OpaquePointer, connection: OpaquePointer, body: HTTPStream, server: HTTPServer) {
            self.request = request
            self.connection = connection
            self.body = body
            self.server = server
        }
    }

    /// Sends a stream's head and starts sending what is written to it; while the server stops, answers
    /// shutting-down instead.
    private func startStream(_ response: HTTPResponse, body: HTTPStream, on exchange: Exchange) {
        let req = exchange.request
        guard !stopping, let connection = evhttp_request_get_connection(req) else {
            body.close()
            send(HTTPServer.shuttingDown(), on: req)
            return
        }
        if let headers = evhttp_request_get_output_headers(req) {
            for (name, value) in response.headers where HTTPServer.safeHeader(name, value) {
                evhttp_add_header(headers, name, value)
            }
        }
        evhttp_send_reply_start(req, Int32(response.status), HTTPServer.reasonPhrase(response.status))
        // A stream's reader sends nothing more, so no read timeout; a writer stalled on a reader that does not read
        // still times out.
        if let bev = evhttp_connection_get_bufferevent(connection) {
            var write = timeval(tv_sec: Int(timeout), tv_usec: 0)
            bufferevent_set_timeouts(bev, nil, &write)
        }
        let reply = StreamReply(request: req, connection: connection, body: body, server: self)
        streams[connection] = reply
        body.attach { reply.server.wake(reply) }
    }

    /// From any thread: have the loop send what a stream has queued.
    private func wake(_ reply: StreamReply) {
        let box = Unmanaged.passRetained(reply).toOpaque()
        let scheduled = shared.withLock { s -> Bool in
            guard s.loopOpen else { return false }
            return event_base_once(base, -1, Int16(EV_TIMEOUT), { _, _, arg in
                guard let arg else { return }
                let reply = Unmanaged<StreamReply>.fromOpaque(arg).takeRetainedValue()
                reply.server.flush(reply)
            }, box, nil) == 0
        }
        if !scheduled { Unmanaged<StreamReply>.fromOpaque(box).release() }
    }

    /// On the loop: send a stream's queued bytes as a chunk; end it or drop it if so marked. A reader that has not
    /// taken what was sent before (more than `HTTPStream.maxBuffered` still in the socket's buffer) is dropped.
    private func flush(_ reply: StreamReply) {
        guard streams[reply.connection] === reply else { return }
        let (bytes, ended, dropped) = reply.body.take()
        if dropped { return dropStream(reply) }
        if !bytes.isEmpty {
            if let bev = evhttp_connection_get_bufferevent(reply.connection), let output = bufferevent_get_output(bev),
               evbuffer_get_length(output) > HTTPStream.maxBuffered {
                return dropStream(reply)
            }
            if let buffer = evbuffer_new() {
                _ = bytes.withUnsafeBytes { evbuffer_add(buffer, $0.baseAddress, $0.count) }
                evhttp_send_reply_chunk(reply.request, buffer)
                evbuffer_free(buffer)
            }
        }
        if ended { endStream(reply) }
    }

    /// Sends a stream's last chunk; the connection goes on as a keep-alive one (its timeouts restored).
    private func endStream(_ reply: StreamReply) {
        streams[reply.connection] = nil
        if let bev = evhttp_connection_get_bufferevent(reply.connection) {
            var t = timeval(tv_sec: Int(timeout), tv_usec: 0)
            var w = t
            bufferevent_set_timeouts(bev, &t, &w)
        }
        unflushed += 1
        evhttp_request_set_on_complete_cb(reply.request, { _, arg in
            guard let arg else { return }
            Unmanaged<HTTPServer>.fromOpaque(arg).takeUnretainedValue().flushed()
        }, Unmanaged.passUnretained(self).toOpaque())
        evhttp_send_reply_end(reply.request)
        reply.body.close()
    }

    /// Closes a stream's connection (and with it the request) without ending the reply.
    private func dropStream(_ reply: StreamReply) {
        streams[reply.connection] = nil
        evhttp_connection_free(reply.connection)
        reply.body.close()
    }

    // MARK: Copying a request

    /// Method, raw target, headers, body and peer, copied so nothing points into evhttp.
    private static func copy(_ req: OpaquePointer, connection: OpaquePointer?) -> HTTPRequest {
        let target = evhttp_request_get_uri(req).map { String(cString: $0) } ?? "/"
        var headers: [(name: String, value: String)] = []
        if let list = evhttp_request_get_input_headers(req) {
            var item = list.pointee.tqh_first
            while let kv = item {
                if let k = kv.pointee.key, let v = kv.pointee.value {
                    headers.append((String(cString: k), String(cString: v)))
                }
                item = kv.pointee.next.tqe_next
            }
        }
        var body: [UInt8] = []
        if let input = evhttp_request_get_input_buffer(req) {
            let n = evbuffer_get_length(input)
            if n > 0 {
                body = [UInt8](repeating: 0, count: n)
                let got = body.withUnsafeMutableBytes { evbuffer_copyout(input, $0.baseAddress, n) }
                if got >= 0 && got < n { body.removeLast(n - got) }
            }
        }
        var peer = ""
        if let connection {
            var address: UnsafeMutablePointer<CChar>? = nil
            var port: UInt16 = 0
            evhttp_connection_get_peer(connection, &address, &port)
            if let address {
                let a = String(cString: address)
                peer = a.utf8.contains(UInt8(ascii: ":")) ? "[\(a)]:\(port)" : "\(a):\(port)"
            }
        }
        return HTTPRequest(method: method(evhttp_request_get_command(req)), target: target, headers: headers, body: body, peer: peer)
    }

    private static func method(_ command: evhttp_cmd_type) -> String {
        switch command {
        case EVHTTP_REQ_GET: return "GET"
        case EVHTTP_REQ_POST: return "POST"
        case EVHTTP_REQ_HEAD: return "HEAD"
        case EVHTTP_REQ_PUT: return "PUT"
        case EVHTTP_REQ_DELETE: return "DELETE"
        case EVHTTP_REQ_OPTIONS: return "OPTIONS"
        case EVHTTP_REQ_TRACE: return "TRACE"
        case EVHTTP_REQ_CONNECT: return "CONNECT"
        case EVHTTP_REQ_PATCH: return "PATCH"
        default: return "UNKNOWN"
        }
    }

    /// The answer to a request that arrives, or is still held, while the server stops: TRY_AGAIN_LATER, retry in 1 s.
    static func shuttingDown() -> HTTPResponse {
        var e = CKError(.serviceUnavailable, "the server is shutting down")
        e.retryAfter = 1
        let requestID = RequestID.next()
        var r = WireError.response(e, requestID: requestID)
        r.headers.append(("X-Apple-Request-UUID", requestID))
        return r
    }

    /// The reason phrase for a status line.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 409: return "Conflict"
        case 412: return "Precondition Failed"
        case 413: return "Payload Too Large"
        case 421: return "Misdirected Request"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return status < 400 ? "OK" : "Error"
        }
    }
}
