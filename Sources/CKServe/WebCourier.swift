import Foundation
import Synchronization
import CKModel
import CKServer

/// The web courier: one FIFO of notification frames per APNs token, long-polled at `path?tok=…`.
///
/// Tokens come from tokens/create; tokens/register links one to a user in a container and environment. One
/// timer (every `interval` while any token is linked) reads each link's notifications after its cursor and queues
/// a frame per notification, so writes made by the command line in another process reach pollers too. A poll
/// takes the oldest frame, or is held (its reply kept, no thread blocked) until a frame is queued, the hold runs
/// out (204, no body) or the client goes away. Tokens, links, cursors and queues live in memory: they do not
/// survive a restart of `ck serve`.
public final class WebCourier: Sendable {
    /// Where `webcourierURL`s point, on the server's own port.
    public static let path = "/_ck/courier"
    /// How often linked tokens' notification logs are read, in seconds.
    static let interval = 0.15
    let hold: Double

    /// A token's tie to a user's notifications in one container and environment.
    struct Link: Sendable {
        var store: CKStore
        var container: String
        var environment: Environment
        var user: String
        var userRecordName: String
        /// The ID of the last notification queued; nil before any.
        var cursor: String?
    }

    struct Waiter: Sendable {
        var id: UInt64
        var reply: HTTPReply
    }

    struct Token: Sendable {
        var apnsEnvironment: String
        var links: [Link] = []
        var frames: [JSON] = []
        var waiters: [Waiter] = []
    }

    struct State: ~Copyable {
        var tokens: [String: Token] = [:]
        /// Whether the tick loop runs (it starts with the first link and never stops).
        var ticking = false
        var nextWaiter: UInt64 = 0
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "ck.serve.courier")

    init(hold: Double) { self.hold = hold }

    /// A new token (64 hex digits, like an APNs device token).
    func createToken(apnsEnvironment: String) -> String {
        var rng = SystemRandomNumberGenerator()
        let token = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &rng)) }.joined()
        state.withLock { $0.tokens[token] = Token(apnsEnvironment: apnsEnvironment) }
        return token
    }

    /// Whether a token may be registered or polled: made by tokens/create on this server, or already registered.
    func knows(_ token: String) -> Bool { state.withLock { $0.tokens[token] != nil } }

    /// Links a token to a user's notifications; only notifications after `cursor` are queued. Linking the same
    /// user, container and environment again keeps the existing cursor.
    func register(_ token: String, apnsEnvironment: String, link: Link) {
        let startTimer = state.withLock { s -> Bool in
            var t = s.tokens[token] ?? Token(apnsEnvironment: apnsEnvironment)
            t.apnsEnvironment = apnsEnvironment
            if !t.links.contains(where: { $0.container == link.container && $0.environment == link.environment && $0.user == link.user }) {
                t.links.append(link)
            }
            s.tokens[token] = t
            defer { s.ticking = true }
            return !s.ticking
        }
        if startTimer { start() }
    }

    /// Starts the tick loop: one `asyncAfter` at a time on the courier's queue, rescheduled while tokens are linked.
    private func start() {
        queue.asyncAfter(deadline: .now() + WebCourier.interval) { [weak self] in
            guard let self else { return }
            self.pump()
            self.start()
        }
    }

    /// One tick: reads every link's new notifications and queues their frames (on the courier's queue only).
    private func pump() {
        let links = state.withLock { s in s.tokens.flatMap { (token, t) in t.links.map { (token, $0) } } }
        for (token, link) in links {
            var cursor = link.cursor
            let found: [SubscriptionNotification]
            do throws(CKError) {
                let db = try link.store.container(link.container).database(.private, environment: link.environment, caller: try Caller.user(link.user))
                do throws(CKError) {
                    found = try db.notifications(since: cursor)
                } catch where error.code == .unknownItem && cursor != nil {
                    // The cursor's notification is gone (the log was replaced): start again after the newest.
                    cursor = try db.notifications().last?.notificationID
                    found = []
                }
            } catch {
                continue
            }
            if let last = found.last { cursor = last.notificationID }
            let frames = found.map { CourierFrame.make($0, container: link.container, environment: link.environment, userRecordName: link.userRecordName) }
            if frames.isEmpty && cursor == link.cursor { continue }
            deliver(frames, to: token, link: link, cursor: cursor)
        }
    }

    /// Queues frames for a token, moves its link's cursor, and answers held polls with the oldest frames.
    private func deliver(_ frames: [JSON], to token: String, link: Link, cursor: String?) {
        let ready = state.withLock { s -> [(HTTPReply, JSON)] in
            guard var t = s.tokens[token] else { return [] }
            if let i = t.links.firstIndex(where: { $0.container == link.container && $0.environment == link.environment && $0.user == link.user }) {
                t.links[i].cursor = cursor
            }
            t.frames.append(contentsOf: frames)
            var out: [(HTTPReply, JSON)] = []
            while !t.waiters.isEmpty && !t.frames.isEmpty {
                out.append((t.waiters.removeFirst().reply, t.frames.removeFirst()))
            }
            s.tokens[token] = t
            return out
        }
        for (reply, frame) in ready { reply(HTTPResponse.json(frame)) }
    }

    /// Answers a poll with the next frame, or holds it until one is queued (or the hold runs out).
    func poll(_ request: HTTPRequest, requestID: String, reply: @escaping HTTPReply, closed: HTTPClosedSignal) {
        guard request.method == "GET" || request.method == "POST" else {
            return reply(WireError.response(CKError(.invalidArguments, "the web courier answers GET, not \(request.method)",
                                                    serverErrorCode: "METHOD_NOT_ALLOWED"), requestID: requestID))
        }
        guard let token = request.query["tok"], !token.isEmpty else {
            return reply(WireError.response(CKError.invalid("the courier URL needs ?tok=TOKEN (the apnsToken of tokens/create)"), requestID: requestID))
        }
        enum Outcome { case frame(JSON), unknown, held(UInt64) }
        let outcome = state.withLock { s -> Outcome in
            guard var t = s.tokens[token] else { return .unknown }
            if !t.frames.isEmpty {
                let f = t.frames.removeFirst()
                s.tokens[token] = t
                return .frame(f)
            }
            s.nextWaiter += 1
            let id = s.nextWaiter
            t.waiters.append(Waiter(id: id, reply: reply))
            s.tokens[token] = t
            return .held(id)
        }
        switch outcome {
        case .frame(let f):
            reply(HTTPResponse.json(f))
        case .unknown:
            reply(WireError.response(CKError(.unknownItem, "no such courier token: '\(token.prefix(80))'",
                                             hint: "get one from tokens/create (tokens do not survive a restart of ck serve)"), requestID: requestID))
        case .held(let id):
            closed.onClose { [weak self] in _ = self?.release(token, id) }
            queue.asyncAfter(deadline: .now() + hold) { [weak self] in
                // The hold ran out with nothing queued: 204, no body (what Apple's courier answers is UNVERIFIED).
                if let r = self?.release(token, id) { r(HTTPResponse(status: 204)) }
            }
        }
    }

    /// Removes a held poll, returning its reply if it was still waiting.
    private func release(_ token: String, _ id: UInt64) -> HTTPReply? {
        state.withLock { s -> HTTPReply? in
            guard var t = s.tokens[token], let i = t.waiters.firstIndex(where: { $0.id == id }) else { return nil }
            let w = t.waiters.remove(at: i)
            s.tokens[token] = t
            return w.reply
        }
    }

    /// How many polls are held for a token (the request log and tests read it).
    func heldPolls(_ token: String) -> Int { state.withLock { $0.tokens[token]?.waiters.count ?? 0 } }
}
