import CKModel

/// The HTTP transport over libevent's evhttp: binds, copies each request into an `HTTPRequest`, hands it to the
/// responder off the event loop, and sends the reply back on the loop.
public final class HTTPServer: @unchecked Sendable {
    public init(host: String, port: Int, timeout: Int32, responder: HTTPResponder) throws(CKError) {
        throw CKError(.internalError, "not built yet: HTTP transport")
    }

    /// The port bound (the one chosen when 0 was asked for).
    public var port: Int { 0 }

    /// Serves until `stop`; returns once requests in flight are answered.
    public func run() {}

    /// Asks `run` to finish; safe from any thread or a signal-handling queue.
    public func stop() {}
}
