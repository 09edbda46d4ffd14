import CKModel
import CKServer

/// `POST /_ck/reset`: replaces an environment's data at once, with a fixtures document or with nothing, through
/// the same import-with-replace `ck import --replace --all-users` runs (built aside and swapped in whole, so a
/// failed or interrupted reset leaves the environment as it was).
extension ControlPlane {
    /// `{container?, environment?, fixtures?, user?}` → `{container, environment, created, loaded: {zones, records,
    /// assets, users, subscriptions, keyValueStores}}`. With a document: every user's records, zones, subscriptions,
    /// notifications and key-value stores and the schema become the document's. Without one: they are all removed
    /// and the schema is kept. Users, roles, account states, quotas and fault rules are kept either way. `user`
    /// (default `default`) is the acting user of `ck import --all-users`: it owns what the document leaves unowned.
    static func reset(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try self.body(request)
        let store = server.store
        let given = try environment(request, body: body)
        let containerID = try parameter("container", request, body: body)
        // A hand-written document may leave owners and creators out (docs/fixtures.md); a user supplies them.
        let caller = try Caller.user(try parameter("user", request, body: body) ?? CKContainer.defaultUserName)
        let fixtures: JSON
        let environment: Environment
        var createdContainer: String? = nil
        switch body["fixtures"] {
        case .object(let doc)?:
            let documented = try CKContainer.fixtureEnvironment(.object(doc))
            if let given, let documented, given != documented {
                throw CKError(.invalidArguments, "fixtures: the document holds \(documented.rawValue) data, but environment names \(given.rawValue)",
                              hint: "leave environment out, or change the document's environment key")
            }
            environment = given ?? documented ?? .development
            fixtures = .object(doc)
            // A document may name a container the store lacks: the reset makes it, as `ck import` does.
            if containerID == nil, let named = doc["container"]?.stringValue, try !store.containerIDs().contains(named) {
                createdContainer = named
            }
        case nil, .null?:
            environment = given ?? .development
            fixtures = .null
        case let v?:
            throw CKError(.invalidArguments, "fixtures: expected a fixtures document (an object, as 'ck export' writes it), got \(v.kindName)")
        }
        let label = "fixtures"
        let summary: FixtureSummary
        let id: String
        if let createdContainer {
            summary = try store.importFixtures(intoNewContainer: createdContainer, fixtures, into: environment, as: caller,
                                               allUsers: true, replace: true, label: label)
            id = createdContainer
        } else {
            // The container named, else the one the document names, else the current one.
            var chosen = containerID
            if chosen == nil, let named = fixtures["container"]?.stringValue, try store.containerIDs().contains(named) { chosen = named }
            let container = try store.container(chosen)
            var doc = fixtures
            if doc.isNull {
                // Nothing but the schema: every user's data goes, the record types and their grants stay.
                doc = .object(["format": .string(CKContainer.fixtureFormat), "environment": .string(environment.rawValue),
                               "schema": try container.schema(environment).json])
            }
            summary = try container.importFixtures(doc, into: environment, as: caller, allUsers: true, replace: true, label: label)
            id = container.identifier
        }
        return .object(["container": .string(id), "environment": .string(environment.rawValue), "created": .bool(createdContainer != nil),
                        "loaded": .object(["zones": .int(Int64(summary.zones)), "records": .int(Int64(summary.records)),
                                           "assets": .int(Int64(summary.assets)), "users": .int(Int64(summary.users)),
                                           "subscriptions": .int(Int64(summary.subscriptions)),
                                           "keyValueStores": .int(Int64(summary.keyValueStores))])])
    }
}
