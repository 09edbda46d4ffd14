import CKCore

extension SubscriptionCommand {
    /// `subscription create`: the subscription saved, as Web Services answers it.
    struct Saved: OutcomeOutput {
        var subscription: Subscription
        /// An existing subscription of that ID was replaced.
        var replaced: Bool

        var json: JSON { subscription.json }
        var line: String { subscription.subscriptionID }
        var sentence: String {
            "\(replaced ? "Replaced" : "Created") \(subscription.kind.name) subscription \(subscription.subscriptionID): \(watches(subscription))"
        }
    }

    /// `subscription list`: `{"subscriptions": [subscription]}`; jsonl a subscription a line; plain
    /// `id<TAB>kind<TAB>watches`; names the IDs.
    struct List: CommandOutput {
        var subscriptions: [Subscription]
        /// The database listed, which people are told is empty.
        var database: DatabaseScope
        var width: Int?

        var json: JSON { SubscriptionsResponse(subscriptions: subscriptions).json }
        var jsonLines: [JSON] { SubscriptionsResponse(subscriptions: subscriptions).jsonLines }
        var names: [String] { subscriptions.map(\.subscriptionID) }
        private func rows(_ headers: [String]) -> Table {
            var t = Table(headers)
            for s in subscriptions { t.add([s.subscriptionID, s.kind.name, watches(s)]) }
            return t
        }
        var plain: [String] { rows([]).plainLines }
        var table: String { subscriptions.isEmpty ? "" : rows(["ID", "KIND", "WATCHES"]).aligned(width: width) }
        var notes: [String] { subscriptions.isEmpty ? ["no subscriptions in the \(database.rawValue) database"] : [] }
    }

    /// `subscription show`: the subscription as Web Services answers it; rows for people and scripts.
    struct Show: RowsOutput {
        var subscription: Subscription

        var json: JSON { subscription.json }
        var names: [String] { [subscription.subscriptionID] }
        var rows: [(String, String)] {
            let s = subscription
            let info = s.notificationInfo
            var rows: [(String, String)] = [("id", s.subscriptionID), ("kind", s.kind.name), ("database", s.database.rawValue),
                                            ("owner", s.ownerRecordName), ("watches", watches(s))]
            if let a = info.alertBody { rows.append(("alert", a)) }
            if info.shouldBadge { rows.append(("badge", "yes")) }
            if info.shouldSendContentAvailable { rows.append(("content", "available")) }
            if !info.desiredKeys.isEmpty { rows.append(("desired keys", info.desiredKeys.joined(separator: ","))) }
            rows.append(("created", ISO8601.format(milliseconds: s.created)))
            return rows
        }
    }

    /// `subscription delete`: `{"deleted": [id], "errors"?}` (SubscriptionDeletions); names the IDs deleted.
    struct Deleted: CommandOutput {
        var response: SubscriptionDeletions

        var json: JSON {
            var r = response
            r.errors = r.errors.map { .init(id: $0.id, error: $0.error.answering(CommandRequest.uuid)) }
            return r.json
        }
        var jsonLines: [JSON] { response.jsonLines }
        var names: [String] { response.deleted }
        var plain: [String] { response.deleted.map { $0 + "\tdeleted" } }
        var table: String { Self.text(response.deleted.map { "Deleted subscription \($0)" }) }
    }
}
