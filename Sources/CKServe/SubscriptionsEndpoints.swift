import CKModel

/// subscriptions/list, subscriptions/lookup and subscriptions/modify.
enum SubscriptionsEndpoints {
    static func list(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: subscriptions/list") }
    static func lookup(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: subscriptions/lookup") }
    static func modify(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: subscriptions/modify") }
}
