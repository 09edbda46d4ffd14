import CKModel
import Synchronization

/// A ring buffer of the last requests: `GET /_ck/requests` and `ck serve log` read it.
public final class RequestLog: Sendable {
    /// One request: when, what, who, and how it ended.
    public struct Entry: Sendable {
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
    }

    private let state: Mutex<[Entry]>
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        state = Mutex([])
    }

    /// Adds a finished request, dropping the oldest past capacity.
    public func append(_ entry: Entry) {
        state.withLock { entries in
            entries.append(entry)
            if entries.count > capacity { entries.removeFirst(entries.count - capacity) }
        }
    }

    /// The entries kept, oldest first.
    public var entries: [Entry] { state.withLock { $0 } }
}
