import Synchronization

/// The body of a reply that stays open (server-sent events). The responder writes to it from any thread; the
/// transport sends what was written, in order, as chunks on its event loop. It is closed once: by the responder
/// (`end`), by the transport (the client left, the server stops, the reply was never sent) or because the reader
/// fell more than `maxBuffered` bytes behind. Close handlers run then, off every lock of the stream.
public final class HTTPStream: Sendable {
    /// How far a reader may fall behind, in bytes written but not yet sent, before the stream is dropped.
    public static let maxBuffered = 1 << 20

    private struct State {
        var pending: [UInt8] = []
        /// No more writes: ended by the responder, or closed.
        var closed = false
        /// The responder ended the stream: the transport sends what is pending, then the last chunk.
        var ended = false
        /// The reader fell too far behind: the transport drops the connection.
        var overflowed = false
        /// Tells the transport there is something to do (set once the reply has started).
        var wake: (@Sendable () -> Void)?
        /// A wake is on its way and has not yet taken the pending bytes: no second one is needed.
        var woken = false
        /// The transport is done with the stream and has run the close handlers.
        var finished = false
        var handlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    public init() {}

    /// Queues bytes to send; false once the stream is closed (the writer should stop). Past `maxBuffered` bytes
    /// queued, the stream is marked for dropping: the transport closes it on its loop.
    @discardableResult
    public func write(_ bytes: [UInt8]) -> Bool {
        let (open, wake) = state.withLock { s -> (Bool, (@Sendable () -> Void)?) in
            guard !s.closed else { return (false, nil) }
            if s.pending.count > HTTPStream.maxBuffered {
                s.overflowed = true
                s.closed = true
            } else {
                s.pending += bytes
            }
            return (!s.closed, take(wake: &s))
        }
        wake?()
        return open
    }

    /// The responder has nothing more to send: what is queued goes out, then the reply ends.
    public func end() {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            guard !s.closed else { return nil }
            s.closed = true
            s.ended = true
            return take(wake: &s)
        }
        wake?()
    }

    /// Runs `handler` once the stream is closed, whoever closes it (at once if it already is).
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.finished { return true }
            s.handlers.append(handler)
            return false
        }
        if now { handler() }
    }

    /// The wake to call if none is on its way.
    private func take(wake s: inout State) -> (@Sendable () -> Void)? {
        guard let wake = s.wake, !s.woken else { return nil }
        s.woken = true
        return wake
    }

    // MARK: Transport side

    /// The reply has started: `wake` is called (from any thread) whenever there is something to send.
    func attach(wake: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> (@Sendable () -> Void)? in
            s.wake = wake
            return s.pending.isEmpty && !s.closed ? nil : take(wake: &s)
        }
        now?()
    }

    /// What the transport does next: the bytes to send, and whether the stream ends (cleanly) or is dropped.
    func take() -> (bytes: [UInt8], ended: Bool, dropped: Bool) {
        state.withLock { s in
            s.woken = false
            defer { s.pending = [] }
            return (s.overflowed ? [] : s.pending, s.ended, s.overflowed)
        }
    }

    /// The transport is done with the stream (ended, dropped, client gone, or never started): no more writes, and
    /// the close handlers run (once).
    func close() {
        let handlers = state.withLock { s -> [@Sendable () -> Void] in
            guard !s.finished else { return [] }
            s.closed = true
            s.finished = true
            s.wake = nil
            s.pending = []
            defer { s.handlers = [] }
            return s.handlers
        }
        for h in handlers { h() }
    }
}
