import CKModel

/// records/query, records/lookup, records/modify and the legacy records/changes.
enum RecordsEndpoints {
    static func query(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: records/query") }
    static func lookup(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: records/lookup") }
    static func modify(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: records/modify") }
    static func changes(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: records/changes") }
}
