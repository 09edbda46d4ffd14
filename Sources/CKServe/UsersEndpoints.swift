import CKModel

/// users/caller, users/current, users/discover and the users/lookup forms.
enum UsersEndpoints {
    static func caller(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: users/caller") }
    static func current(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: users/current") }
    static func discover(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: users/discover") }
    static func lookupEmail(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: users/lookup/email") }
    static func lookupID(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: users/lookup/id") }
    static func lookupContacts(_ context: RequestContext) throws(CKError) -> JSON { throw CKError(.internalError, "not built yet: users/lookup/contacts") }
}
