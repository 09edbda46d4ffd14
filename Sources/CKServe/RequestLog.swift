import CKModel
import Synchronization

/// A ring buffer of the last requests: `GET /_ck/requests` and `ck serve log` read it.
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

        public init(time: Int64, method: String, path: String, requestID: String) {
            self.time = time
            self.method = method
            self.path = path
            self.requestID = requestID
        }

        /// The entry as `GET /_ck/requests` sends it: `{seq, time (ISO 8601), method, path, status, duration (ms),
        /// requestID}`, plus `container`, `database`, `operation`, `caller`, `serverErrorCode`, `reason` and `rule`
        /// when known.
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
            return .object(o)
        }

        /// Reads an entry written by `json` (`ck serve log` reads the server's answer); nil when it is not one.
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
        }
    }

    private struct State {
        var entries: [Entry] = []
        var lastSeq: Int64 = 0
    }

    private let state: Mutex<State>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Mutex(State())
    }

    /// Whether a request is a read of this log itself: not logged, so a follower polling it does not flood it.
    public static func isLogRead(method: String, path: String) -> Bool {
        method == "GET" && path == ControlPlane.requestsPath
    }

    /// Adds a finished request with the next sequence number, dropping the oldest past capacity (reads of the log
    /// itself are not kept).
    public func append(_ entry: Entry) {
        if RequestLog.isLogRead(method: entry.method, path: entry.path) { return }
        state.withLock { s in
            var e = entry
            s.lastSeq += 1
            e.seq = s.lastSeq
            s.entries.append(e)
            // Trimmed in bulk once twice the capacity is held: removing the oldest on every append moved the
            // whole buffer each time (half of a small request's instructions). Readers see the last `capacity`.
            if s.entries.count >= 2 * capacity { s.entries.removeFirst(s.entries.count - capacity) }
        }
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
