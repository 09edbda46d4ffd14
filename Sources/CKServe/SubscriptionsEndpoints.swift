import CKModel
import CKServer

/// subscriptions/list, subscriptions/lookup and subscriptions/modify.
enum SubscriptionsEndpoints {
    /// Most operations or lookups one request may carry (cloudkit.md §5.1).
    static let maxItems = 200

    /// `{subscriptions:[…]}`: the caller's subscriptions in this database.
    static func list(_ context: RequestContext) throws(CKError) -> JSON {
        let db = try context.database()
        return .object(["subscriptions": .array(try db.subscriptions().map { WireSubscription.encode($0, db: db) })])
    }

    /// `{subscriptions:[{subscriptionID}]}` → each subscription, or `{subscriptionID, reason, serverErrorCode}` in its place.
    static func lookup(_ context: RequestContext) throws(CKError) -> JSON {
        let items = try array(context.body, "subscriptions")
        let db = try context.database()
        let all = try db.subscriptions()
        var out: [JSON] = []
        for (i, item) in items.enumerated() {
            let path = "subscriptions[\(i)]"
            let id: String
            do throws(CKError) {
                guard case .object(let o) = item else { throw CKError.invalid("\(path): expected {subscriptionID}, got \(item.kindName)") }
                guard let s = try WireSubscription.subscriptionID(o, path: path) else { throw CKError.invalid("\(path).subscriptionID: missing") }
                id = s
            } catch {
                out.append(WireError.item(context.failed(error), key: "subscriptionID", id: .null))
                continue
            }
            if let s = all.first(where: { $0.subscriptionID == id }) {
                out.append(WireSubscription.encode(s, db: db))
            } else {
                out.append(WireError.item(context.failed(db.notFound(id)), key: "subscriptionID", id: .string(id)))
            }
        }
        return .object(["subscriptions": .array(out)])
    }

    /// `{operations:[{operationType, subscription}]}` → `{subscriptions:[…]}`, each saved subscription, a deletion
    /// `{subscriptionID, deleted:true}`, or a per-item error, in operation order. `create` replaces a subscription
    /// with the same ID (as a native save does); `update` needs one to exist.
    static func modify(_ context: RequestContext) throws(CKError) -> JSON {
        let ops = try array(context.body, "operations")
        let db = try context.database()
        var out: [JSON] = []
        for (i, op) in ops.enumerated() {
            let path = "operations[\(i)]"
            var id: JSON = .null
            do throws(CKError) {
                guard case .object(let o) = op else { throw CKError.invalid("\(path): expected {operationType, subscription}, got \(op.kindName)") }
                guard let type = o["operationType"]?.stringValue else {
                    throw CKError.invalid("\(path).operationType: expected \"create\", \"update\" or \"delete\"")
                }
                guard let subJSON = o["subscription"], case .object(let so) = subJSON else {
                    throw CKError.invalid("\(path).subscription: expected a subscription object")
                }
                if let s = try WireSubscription.subscriptionID(so, path: path + ".subscription") { id = .string(s) }
                switch type {
                case "create", "update":
                    let sub = try WireSubscription.decode(subJSON, path: path + ".subscription")
                    if type == "update" {
                        guard !sub.subscriptionID.isEmpty else { throw CKError.invalid("\(path).subscription.subscriptionID: an update names the subscription") }
                        _ = try db.subscription(sub.subscriptionID)
                    }
                    let saved = try db.saveSubscription(sub)
                    id = .string(saved.subscriptionID)
                    out.append(WireSubscription.encode(saved, db: db))
                case "delete":
                    guard case .string(let s) = id else { throw CKError.invalid("\(path).subscription.subscriptionID: a delete names the subscription") }
                    try db.deleteSubscription(s)
                    out.append(.object(["subscriptionID": .string(s), "deleted": .bool(true)]))
                default:
                    throw CKError.invalid("\(path).operationType: '\(type)' is not \"create\", \"update\" or \"delete\"")
                }
            } catch {
                out.append(WireError.item(context.failed(error), key: "subscriptionID", id: id))
            }
        }
        return .object(["subscriptions": .array(out)])
    }

    /// The body's array under `key`, with at most 200 items; BAD_REQUEST naming the key otherwise.
    static func array(_ body: [String: JSON], _ key: String) throws(CKError) -> [JSON] {
        guard let v = body[key] else { throw CKError.invalid("\(key): missing; expected an array") }
        guard let items = v.arrayValue else { throw CKError.invalid("\(key): expected an array, got \(v.kindName)") }
        guard items.count <= maxItems else {
            throw CKError.invalid("\(key): \(items.count) items; CloudKit takes at most \(maxItems) in one request")
        }
        return items
    }
}
