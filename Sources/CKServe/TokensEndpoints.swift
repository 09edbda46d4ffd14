import CKModel

/// tokens/create and tokens/register (web notifications).
enum TokensEndpoints {
    static func create(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: tokens/create") }
    static func register(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: tokens/register") }
}
