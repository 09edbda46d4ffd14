import CKModel

/// One Web Services endpoint: the methods it answers and the body that performs it.
public struct WebServicesRoute: Sendable {
    /// GET and POST on every read-only endpoint (iCloud.com clients POST `{}` where Apple documents GET).
    public var methods: [String]
    /// Whether a caller with no user may reach it at all (public reads); the operation's own checks still apply.
    public var needsUser: Bool
    /// Decodes the request into operations, performs them, encodes the answer.
    public var handler: @Sendable (RequestContext) throws(CKError) -> JSON
}

/// The table of Web Services endpoints, by operation (`records/query`), and what each database allows.
enum WebServicesRoutes {
    static let read = ["GET", "POST"]
    static let write = ["POST"]

    static let table: [String: WebServicesRoute] = [
        "records/query": WebServicesRoute(methods: write, needsUser: false, handler: RecordsEndpoints.query),
        "records/lookup": WebServicesRoute(methods: write, needsUser: false, handler: RecordsEndpoints.lookup),
        "records/modify": WebServicesRoute(methods: write, needsUser: true, handler: RecordsEndpoints.modify),
        "records/changes": WebServicesRoute(methods: write, needsUser: true, handler: RecordsEndpoints.changes),
        "records/resolve": WebServicesRoute(methods: write, needsUser: false, handler: ShareEndpoints.resolve),
        "records/accept": WebServicesRoute(methods: write, needsUser: true, handler: ShareEndpoints.accept),
        "zones/list": WebServicesRoute(methods: read, needsUser: false, handler: ZonesEndpoints.list),
        "zones/lookup": WebServicesRoute(methods: write, needsUser: false, handler: ZonesEndpoints.lookup),
        "zones/modify": WebServicesRoute(methods: write, needsUser: true, handler: ZonesEndpoints.modify),
        "zones/changes": WebServicesRoute(methods: write, needsUser: true, handler: ZonesEndpoints.changes),
        "changes/database": WebServicesRoute(methods: write, needsUser: true, handler: ChangesEndpoints.database),
        "changes/zone": WebServicesRoute(methods: write, needsUser: true, handler: ChangesEndpoints.zone),
        "subscriptions/list": WebServicesRoute(methods: read, needsUser: true, handler: SubscriptionsEndpoints.list),
        "subscriptions/lookup": WebServicesRoute(methods: write, needsUser: true, handler: SubscriptionsEndpoints.lookup),
        "subscriptions/modify": WebServicesRoute(methods: write, needsUser: true, handler: SubscriptionsEndpoints.modify),
        "users/caller": WebServicesRoute(methods: read, needsUser: true, handler: UsersEndpoints.caller),
        "users/current": WebServicesRoute(methods: read, needsUser: true, handler: UsersEndpoints.current),
        "users/discover": WebServicesRoute(methods: read, needsUser: true, handler: UsersEndpoints.discover),
        "users/lookup/email": WebServicesRoute(methods: write, needsUser: true, handler: UsersEndpoints.lookupEmail),
        "users/lookup/id": WebServicesRoute(methods: write, needsUser: true, handler: UsersEndpoints.lookupID),
        "users/lookup/contacts": WebServicesRoute(methods: write, needsUser: true, handler: UsersEndpoints.lookupContacts),
        "assets/upload": WebServicesRoute(methods: write, needsUser: true, handler: AssetsEndpoints.upload),
        "assets/rereference": WebServicesRoute(methods: write, needsUser: true, handler: AssetsEndpoints.rereference),
        "tokens/create": WebServicesRoute(methods: write, needsUser: true, handler: TokensEndpoints.create),
        "tokens/register": WebServicesRoute(methods: write, needsUser: true, handler: TokensEndpoints.register),
    ]

    /// The route for an operation; nil when there is none (NOT_FOUND).
    static func route(_ operation: String, database: DatabaseScope?) -> WebServicesRoute? {
        table[operation]
    }
}
