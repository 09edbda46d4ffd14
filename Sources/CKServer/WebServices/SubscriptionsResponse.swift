import CKModel

/// A subscriptions/list or subscriptions/lookup response (`{"subscriptions": […]}`).
public struct SubscriptionsResponse: Sendable {
    public var subscriptions: [Subscription]

    public init(subscriptions: [Subscription]) { self.subscriptions = subscriptions }

    public var json: JSON { .object(["subscriptions": .array(subscriptions.map(\.json))]) }
    public var jsonLines: [JSON] { subscriptions.map(\.json) }
}

/// A subscriptions/modify response to deletions: the IDs deleted, and per-item errors kept apart as for records.
public struct SubscriptionDeletions: Sendable {
    public var deleted: [String]
    public var errors: [CKError.ItemFailure]

    public init(deleted: [String], errors: [CKError.ItemFailure]) {
        self.deleted = deleted
        self.errors = errors
    }

    /// Web Services' per-subscription error dictionary: `subscriptionID`, `reason`, `serverErrorCode` (and ck's `ckErrorCode`, `code`).
    package static func errorJSON(_ f: CKError.ItemFailure) -> JSON {
        var o: [String: JSON] = ["subscriptionID": .string(f.id), "serverErrorCode": .string(f.error.serverErrorCode),
                                 "reason": .string(f.error.reason), "ckErrorCode": .string(f.error.code.name),
                                 "code": .int(Int64(f.error.code.rawValue))]
        if let uuid = f.error.requestID { o["uuid"] = .string(uuid) }
        return .object(o)
    }

    /// `{"deleted": [ids]}`, plus `errors` when some failed.
    public var json: JSON {
        var o: [String: JSON] = ["deleted": .array(deleted.map { .string($0) })]
        if !errors.isEmpty { o["errors"] = .array(errors.map(SubscriptionDeletions.errorJSON)) }
        return .object(o)
    }

    public var jsonLines: [JSON] {
        deleted.map { .object(["subscriptionID": .string($0), "deleted": .bool(true)]) }
    }
}
