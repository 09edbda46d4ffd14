import CKModel
import CKServer

/// tokens/create and tokens/register (web notifications).
enum TokensEndpoints {
    /// `{apnsEnvironment, clientId?}` → `{apnsEnvironment, apnsToken, webcourierURL}`, the courier URL on this server.
    static func create(_ context: RequestContext) throws(CKError) -> JSON {
        let env = try apnsEnvironment(context.body)
        _ = try context.container()
        let token = context.server.courier.createToken(apnsEnvironment: env)
        return .object(["apnsEnvironment": .string(env), "apnsToken": .string(token),
                        "webcourierURL": .string(context.server.baseURL + WebCourier.path + "?tok=" + token + "&ttl=43200")])
    }

    /// `{apnsEnvironment, apnsToken, clientId?}`: links the token to the caller's notifications in this container and
    /// environment (from now on) → `{apnsEnvironment, apnsToken}`.
    static func register(_ context: RequestContext) throws(CKError) -> JSON {
        let env = try apnsEnvironment(context.body)
        guard let tv = context.body["apnsToken"] else { throw CKError.invalid("apnsToken: missing; pass the token tokens/create gave") }
        guard let token = tv.stringValue else { throw CKError.invalid("apnsToken: expected a string, got \(tv.kindName)") }
        guard context.server.courier.knows(token) else {
            throw CKError(.unknownItem, "apnsToken: '\(token.prefix(80))' was not made by tokens/create on this server",
                          hint: "tokens live in ck serve's memory: create a new one after a restart")
        }
        guard let user = context.caller.userName else {
            throw CKError(.notAuthenticated, "tokens/register needs a signed-in user; this request has none (\(context.principal.logName))")
        }
        let container = try context.container()
        let db = container.database(.private, environment: context.environment, caller: context.caller)
        // Only notifications made after registering reach the courier.
        let cursor = try db.notifications().last?.notificationID
        let link = WebCourier.Link(store: context.server.store, container: container.identifier, environment: context.environment,
                                   user: user, userRecordName: db.userRecordName, cursor: cursor)
        context.server.courier.register(token, apnsEnvironment: env, link: link)
        return .object(["apnsEnvironment": .string(env), "apnsToken": .string(token)])
    }

    /// `apnsEnvironment`: development or production.
    private static func apnsEnvironment(_ body: [String: JSON]) throws(CKError) -> String {
        guard let v = body["apnsEnvironment"] else { throw CKError.invalid("apnsEnvironment: missing; expected \"development\" or \"production\"") }
        guard let s = v.stringValue, s == "development" || s == "production" else {
            throw CKError.invalid("apnsEnvironment: expected \"development\" or \"production\", got \(v.serialized().prefix(80))")
        }
        return s
    }
}
