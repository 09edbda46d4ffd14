import CKModel
import CKQuery

extension CKDatabase {
    /// Every record a query matches, page after page: what a delete by query would remove
    /// (cktool's delete-records, CKTool JS deleteRecordsByQuery). Each page is a query through the pipeline.
    public func allMatches(_ request: QueryRequest, zone zoneName: String = Names.defaultZoneName) throws(CKError) -> [Record] {
        var req = request
        req.limit = CKDatabase.maxQueryResults
        req.cursor = nil
        req.desiredKeys = nil
        var records: [Record] = []
        repeat {
            let page = try query(req, zone: zoneName)
            records += page.records
            req.cursor = page.cursor
        } while req.cursor != nil
        return records
    }

    /// Deletes records a query listed, in requests of at most 200 operations (CloudKit's limit per request), each
    /// operation on its own. Each delete is checked against the change tag the query saw, so a record changed
    /// since it was listed is refused with serverRecordChanged rather than deleted unseen. A listed record that an
    /// earlier deletion already removed through a DELETE_SELF reference is reported once, as that cascade (in the
    /// default zone, where the cascade runs after its request and is not reported, it is not sent again).
    /// `each` sees every request's results, in order.
    public func deleteListed(_ records: [Record], zone zoneName: String = Names.defaultZoneName,
                             each: (ModifyResult) throws(CKError) -> Void) throws(CKError) {
        let size = CKDatabase.maxOperationsPerRequest
        var cascaded = Set<String>()
        let requests = stride(from: 0, to: records.count, by: size).lazy.map { start -> [RecordOperation] in
            records[start..<min(start + size, records.count)]
                .filter { !cascaded.contains($0.recordName) }
                .map { RecordOperation(type: .delete, recordName: $0.recordName, changeTag: $0.changeTag) }
        }
        try modify(requests: requests, zone: zoneName, atomic: false) { (result) throws(CKError) in
            for case .deleted(let name, _, true) in result.results + result.removedAfter { cascaded.insert(name) }
            var kept = result
            kept.results = result.results.filter { r in
                !(r.error?.code == .unknownItem && cascaded.contains(r.recordName))
            }
            try each(kept)
        }
    }
}
