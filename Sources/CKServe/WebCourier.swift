import CKModel

/// The web courier: one FIFO of notification frames per APNs token, long-polled at `path?tok=…`.
public final class WebCourier: Sendable {
    /// Where `webcourierURL`s point, on the server's own port.
    public static let path = "/_ck/courier"
    let hold: Double

    init(hold: Double) { self.hold = hold }

    /// Answers a poll with the next frame, or holds it until one is queued (or the hold runs out).
    func poll(_ request: HTTPRequest, requestID: String, reply: @escaping HTTPReply, closed: HTTPClosedSignal) {
        reply(WireError.response(CKError(.internalError, "not built yet: web courier"), requestID: requestID))
    }
}
