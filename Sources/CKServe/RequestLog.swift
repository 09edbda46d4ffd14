import CKModel
import Synchronization

/// A ring buffer of the last requests: `GET /_ck/requests` and `ck serve log` read it, and
/// `GET /_ck/requests/events` streams it. Each entry kept also holds its request and response bodies (at most
/// `RequestLog.maxBodyText` bytes each, secrets redacted), so the bodies take at most capacity × 2 × 16 KiB.
public final class RequestLog: Sendable {
    /// One request: when, what, who, and how it ended.
    public struct Entry: Sendable {
        /// The entry's place in the log, from 1 up, never reused: a follower asks for the entries after the last it saw.
        public var seq: Int64 = 0
        public var time: Int64
        public var method: String
        public var path: String
        public var requestID: String
        public var container: String?
        public var database: String?
        public var operation: String?
        public var caller: String?
        public var status = 0
        public var serverErrorCode: String?
        public var reason: String?
        /// For a refusal, the rule that decided it (the grant, and the roles the caller holds).
        public var rule: String?
        /// Seconds from the request's arrival to its reply.
        public var duration: Double = 0
        /// Answered on the event loop that read it, without the hand-off to a worker (what waits on nothing).
        public var inPlace = false
        /// The request's body as text, cut at `maxBodyText` bytes; `"<N bytes>"` when it is not UTF-8; secrets
        /// redacted (`keepBodies`). nil when not kept (the entry has left the window, or was read from a list).
        public var requestBody: String?
        /// Whether `requestBody` was cut.
        public var requestBodyTruncated = false
        /// The response's body, kept as the request's is.
        public var responseBody: String?
        /// Whether `responseBody` was cut.
        public var responseBodyTruncated = false

        public init(time: Int64, method: String, path: String, requestID: String) {
            self.time = time
            self.method = method
            self.path = path
            self.requestID = requestID
        }

        /// The entry as `GET /_ck/requests` sends it: `{seq, time (ISO 8601), method, path, status, duration (ms),
        /// requestID}`, plus `container`, `database`, `operation`, `caller`, `serverErrorCode`, `reason` and `rule`
        /// when known, and `inPlace: true` for a request answered on the event loop.
        public var json: JSON {
            var o: [String: JSON] = ["seq": .int(seq), "time": .string(ISO8601.format(milliseconds: time)), "method": .string(method),
                                     "path": .string(path), "status": .int(Int64(status)), "requestID": .string(requestID),
                                     "duration": .double((duration * 1_000_000).rounded() / 1000)]
            if let container { o["container"] = .string(container) }
            if let database { o["database"] = .string(database) }
            if let operation { o["operation"] = .string(operation) }
            if let caller { o["caller"] = .string(caller) }
            if let serverErrorCode { o["serverErrorCode"] = .string(serverErrorCode) }
            if let reason { o["reason"] = .string(reason) }
            if let rule { o["rule"] = .string(rule) }
            if inPlace { o["inPlace"] = .bool(true) }
            return .object(o)
        }

        /// The entry as `GET /_ck/requests/<seq>` sends it: `json` plus `requestBody`, `responseBody` (text, `""` when
        /// empty or not kept) and `requestBodyTruncated`, `responseBodyTruncated`.
        public var detailJSON: JSON {
            guard case .object(var o) = json else { return json }
            o["requestBody"] = .string(requestBody ?? "")
            o["responseBody"] = .string(responseBody ?? "")
            o["requestBodyTruncated"] = .bool(requestBodyTruncated)
            o["responseBodyTruncated"] = .bool(responseBodyTruncated)
            return .object(o)
        }

        /// Reads an entry written by `json` or `detailJSON` (`ck serve log` reads the server's answer); nil when it is
        /// not one.
        public init?(json: JSON) {
            guard let seq = json["seq"]?.int64Value, let time = json["time"]?.stringValue.flatMap(ISO8601.parse),
                  let method = json["method"]?.stringValue, let path = json["path"]?.stringValue,
                  let requestID = json["requestID"]?.stringValue else { return nil }
            self.init(time: time, method: method, path: path, requestID: requestID)
            self.seq = seq
            container = json["container"]?.stringValue
            database = json["database"]?.stringValue
            operation = json["operation"]?.stringValue
            caller = json["caller"]?.stringValue
            status = json["status"]?.int64Value.map { Int($0) } ?? 0
            serverErrorCode = json["serverErrorCode"]?.stringValue
            reason = json["reason"]?.stringValue
            rule = json["rule"]?.stringValue
            duration = (json["duration"]?.doubleValue ?? 0) / 1000
            inPlace = json["inPlace"] == .bool(true)
            requestBody = json["requestBody"]?.stringValue
            responseBody = json["responseBody"]?.stringValue
            requestBodyTruncated = json["requestBodyTruncated"] == .bool(true)
            responseBodyTruncated = json["responseBodyTruncated"] == .bool(true)
        }

        /// Forgets the bodies (the entry has left the window readers see).
        mutating func dropBodies() {
            requestBody = nil
            responseBody = nil
        }
    }

    private struct State {
        var entries: [Entry] = []
        var lastSeq: Int64 = 0
        /// Open event streams, each sent every entry appended.
        var subscribers: [UInt64: HTTPStream] = [:]
        var nextSubscriber: UInt64 = 0
    }

    private let state: Mutex<State>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Mutex(State())
    }

    /// Whether a request is a read of this log itself (the list, an entry, the event stream) or of the console's
    /// page: not logged, so a follower or the console watching the log does not flood it.
    public static func isLogRead(method: String, path: String) -> Bool {
        guard method == "GET" || method == "HEAD" else { return false }
        return path == ControlPlane.requestsPath || path.hasPrefix(ControlPlane.requestsPath + "/")
            || path == "/" || path == "/index.html" || path.hasPrefix("/_ck/console/")
    }

    /// Adds a finished request with the next sequence number, dropping the oldest past capacity (reads of the log
    /// itself are not kept).
    public func append(_ entry: Entry) {
        if RequestLog.isLogRead(method: entry.method, path: entry.path) { return }
        state.withLock { s in
            var e = entry
            s.lastSeq += 1
            e.seq = s.lastSeq
            if !s.subscribers.isEmpty {
                // Written under the lock, so every stream gets the entries in sequence order.
                let event = RequestLog.event(e)
                for (id, stream) in s.subscribers where !stream.write(event) { s.subscribers[id] = nil }
            }
            s.entries.append(e)
            // Trimmed in bulk once twice the capacity is held: removing the oldest on every append moved the
            // whole buffer each time (half of a small request's instructions). Readers see the last `capacity`.
            if s.entries.count >= 2 * capacity { s.entries.removeFirst(s.entries.count - capacity) }
            // Only entries readers can see keep their bodies: that bounds the bodies' memory.
            if s.entries.count > capacity { s.entries[s.entries.count - capacity - 1].dropBodies() }
        }
    }

    /// The entry with sequence number `seq`, with its bodies, if it is still kept.
    public func entry(seq: Int64) -> Entry? {
        state.withLock { s in
            // Sequence numbers of the entries held are consecutive (reads of the log take none).
            guard let first = s.entries.first?.seq, seq >= first, seq - first < Int64(s.entries.count),
                  Int64(s.entries.count) - (seq - first) <= Int64(capacity) else { return nil }
            let e = s.entries[Int(seq - first)]
            return e.seq == seq ? e : nil
        }
    }

    /// An entry as a server-sent event: `id: <seq>`, `event: request`, `data: <json>` (one line: JSON escapes
    /// newlines), and the blank line that ends it.
    static func event(_ e: Entry) -> [UInt8] {
        Array("id: \(e.seq)\nevent: request\ndata: \(e.json.serialized())\n\n".utf8)
    }

    /// Sends `stream` the kept entries after `after` (nil: the last `backlog` of them; a number past the last given
    /// — a client of an earlier server — : all kept), then every entry appended until the stream closes.
    /// TRY_AGAIN_LATER when `limit` streams are open already.
    func subscribe(_ stream: HTTPStream, after: Int64?, backlog: Int, limit: Int) throws(CKError) {
        let id = try state.withLock { s throws(CKError) -> UInt64 in
            guard s.subscribers.count < limit else {
                var e = CKError(.serviceUnavailable, "\(ControlPlane.eventsPath): \(limit) event streams are open already, the most ck serve keeps; close one (another console tab?) and retry")
                e.retryAfter = 5
                throw e
            }
            var start = after ?? max(0, s.lastSeq - Int64(backlog))
            if start > s.lastSeq { start = 0 }
            for e in s.entries.suffix(capacity) where e.seq > start { stream.write(RequestLog.event(e)) }
            s.nextSubscriber += 1
            s.subscribers[s.nextSubscriber] = stream
            return s.nextSubscriber
        }
        stream.onClose { [weak self] in self?.unsubscribe(id) }
    }

    /// Stops sending a stream entries.
    private func unsubscribe(_ id: UInt64) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
    }

    /// The entries kept, oldest first.
    public var entries: [Entry] { state.withLock { Array($0.entries.suffix(capacity)) } }

    /// The entries after sequence number `after`, oldest first, at most `limit` of them (the oldest ones, so a
    /// follower pages forward); and the last sequence number given so far.
    public func entries(after: Int64, limit: Int) -> (entries: [Entry], lastSeq: Int64) {
        state.withLock { s in
            // Sequence numbers ascend through the buffer: the first entry after `after` is found by counting.
            let kept = s.entries.suffix(capacity)
            let start = kept.firstIndex { $0.seq > after } ?? kept.endIndex
            return (Array(kept[start...].prefix(max(0, limit))), s.lastSeq)
        }
    }

    /// Forgets every entry; sequence numbers go on from where they were, so a follower misses nothing new.
    public func clear() {
        state.withLock { $0.entries = [] }
    }
}
