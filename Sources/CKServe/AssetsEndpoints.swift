import CKModel

/// assets/upload and assets/rereference.
enum AssetsEndpoints {
    static func upload(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: assets/upload") }
    static func rereference(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: assets/rereference") }
}
