import CKModel

/// zones/list, zones/lookup, zones/modify and the legacy zones/changes.
enum ZonesEndpoints {
    static func list(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: zones/list") }
    static func lookup(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: zones/lookup") }
    static func modify(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: zones/modify") }
    static func changes(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: zones/changes") }
}
