import Foundation
import CKModel

/// `/_ck/requests`: the request log (`RequestLog`), which `ck serve log` reads and follows, one entry with its
/// bodies, and the log as server-sent events (the console's Requests section).
extension ControlPlane {
    /// How many entries one answer holds when `limit` is not given.
    static let defaultRequestsLimit: Int64 = 1000
    /// The event stream of the log.
    static let eventsPath = requestsPath + "/events"
    /// How many event streams may be open at once.
    static let maxEventStreams = 32
    /// How many of the latest entries a stream opened without a resume point starts with.
    static let eventsBacklog = 100
    /// Seconds between keep-alive comments on an idle stream (proxies and browsers drop silent connections).
    static let keepAliveSeconds = 15.0

    /// `GET ?after=<seq>&limit=<n>` → `{requests: [entry], lastSeq}`: the entries after `after` (default: all kept),
    /// oldest first, at most `limit`; `lastSeq` is the highest sequence number given so far, so a follower that
    /// starts fresh can ask for only what comes next. `DELETE` forgets every entry → `{cleared: n}`.
    static func requests(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        if request.method == "DELETE" {
            let n = server.requestLog.entries.count
            server.requestLog.clear()
            return .object(["cleared": .int(Int64(n))])
        }
        let after = try integer("after", request, min: 0) ?? 0
        let limit = try integer("limit", request, min: 1) ?? defaultRequestsLimit
        let (entries, last) = server.requestLog.entries(after: after, limit: Int(min(limit, Int64(Int32.max))))
        return .object(["requests": .array(entries.map(\.json)), "lastSeq": .int(last)])
    }

    /// `GET /_ck/requests/<seq>` → the entry with its bodies (`RequestLog.Entry.detailJSON`); NOT_FOUND once it has
    /// left the log. `GET /_ck/requests/events` → the event stream (`events`).
    static func requestsItem(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> HTTPResponse {
        if request.path == eventsPath { return try events(request, server: server) }
        let text = request.path.dropFirst(requestsPath.count + 1)
        guard let seq = Int64(text), seq >= 1 else {
            throw CKError(.invalidArguments, "\(request.path): expected /_ck/requests/<seq> (a whole number from 1) or /_ck/requests/events")
        }
        guard let entry = server.requestLog.entry(seq: seq) else {
            throw CKError(.unknownItem, "request \(seq) is not in the log (it keeps the last \(server.requestLog.capacity) requests; DELETE /_ck/requests forgets them all)",
                          serverErrorCode: "NOT_FOUND")
        }
        return .json(entry.detailJSON)
    }

    /// The log as server-sent events: each entry (without bodies) as `id: <seq>`, `event: request`,
    /// `data: <entry>`. It starts after the `Last-Event-ID` header's sequence number, else after `?after=`, else
    /// with the last `eventsBacklog` entries kept; then each new entry as it is logged; a `: keep-alive` comment
    /// every `keepAliveSeconds`. At most `maxEventStreams` at once (TRY_AGAIN_LATER, 503, past that).
    static func events(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> HTTPResponse {
        var after = try integer("after", request, min: 0)
        if let text = request.header("Last-Event-ID") {
            guard let n = Int64(text.trimmingCharacters(in: .whitespaces)), n >= 0 else {
                throw CKError(.invalidArguments, "Last-Event-ID: expected the id of an event of this stream (a whole number), not '\(text.prefix(80))'")
            }
            after = n
        }
        let stream = HTTPStream()
        try server.requestLog.subscribe(stream, after: after, backlog: eventsBacklog, limit: maxEventStreams)
        keepAlive(stream)
        var response = HTTPResponse(status: 200, headers: [("Content-Type", "text/event-stream; charset=UTF-8"), ("Cache-Control", "no-cache")])
        response.stream = stream
        return response
    }

    /// Writes a keep-alive comment every `keepAliveSeconds` until the stream closes.
    private static func keepAlive(_ stream: HTTPStream) {
        DispatchQueue.global().asyncAfter(deadline: .now() + keepAliveSeconds) {
            if stream.write(Array(": keep-alive\n\n".utf8)) { keepAlive(stream) }
        }
    }
}
