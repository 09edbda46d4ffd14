import CKModel

extension CKDatabase {
    /// One page of a zone's changes since `token` (at most `limit`), as `zoneChanges(zone:since:limit:countingPending:)`
    /// answers it, with each save whose log line can stand for its record's JSON handed out as those bytes when
    /// `stored`: a device's pull stores them as they are, with no `Record` built (docs/sync.md, "Pulling from the
    /// log's bytes").
    package func storedZoneChangesPage(zone zoneName: String, since token: String?, limit: Int, countingPending: Bool,
                                       stored: Bool) throws(CKError) -> StoredZoneChanges {
        var answer: StoredZoneChanges? = nil
        try feed(zone: zoneName, since: token, limit: limit, desiredKeys: nil, pageSize: nil,
                 countingPending: countingPending, stored: stored) { (page) throws(CKError) in answer = page }
        guard let answer else { throw CKError.internalError("the change feed of zone '\(zoneName)' returned no page") }
        return answer
    }
}
