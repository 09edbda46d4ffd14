import CKModel

/// `/_ck/requests`: the request log (`RequestLog`), which `ck serve log` reads and follows.
extension ControlPlane {
    /// How many entries one answer holds when `limit` is not given.
    static let defaultRequestsLimit: Int64 = 1000

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
}
