import CKModel

/// changes/database and changes/zone.
enum ChangesEndpoints {
    static func database(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: changes/database") }
    static func zone(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: changes/zone") }
}
