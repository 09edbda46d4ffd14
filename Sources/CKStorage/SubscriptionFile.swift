import CKFiles
import CKModel

/// `subscriptions.json`: every subscription of one environment, of every user and database.
package struct SubscriptionFile {
    package var subscriptions: [Subscription] = []

    package var json: JSON {
        let sorted = subscriptions.sorted { SubscriptionFile.key($0) < SubscriptionFile.key($1) }
        return .object(["format": .int(1), "subscriptions": .array(sorted.map(\.json))])
    }

    /// Sort and identity key: a subscription ID is unique per owner and database.
    package static func key(_ s: Subscription) -> String { s.ownerRecordName + "/" + s.database.rawValue + "/" + s.subscriptionID }

    package init() {}

    package init(json: [String: JSON], path: String) throws(CKError) {
        guard let list = json["subscriptions"]?.arrayValue else {
            throw CKError.corrupt(path: path, "expected {\"format\": 1, \"subscriptions\": [...]}")
        }
        var seen = Set<String>()
        for (i, s) in list.enumerated() {
            let sub: Subscription
            do throws(CKError) { sub = try Subscription(json: s, path: "subscriptions[\(i)]") } catch {
                throw CKError.corrupt(path: path, error.reason)
            }
            guard seen.insert(SubscriptionFile.key(sub)).inserted else {
                throw CKError.corrupt(path: path, "subscriptions[\(i)]: subscription '\(sub.subscriptionID)' appears twice for its owner and database")
            }
            subscriptions.append(sub)
        }
    }

    /// Reads the file; a missing file means no subscriptions.
    package static func read(_ path: String) throws(CKError) -> SubscriptionFile {
        guard let o = try JSONFile.readObject(path) else { return SubscriptionFile() }
        return try SubscriptionFile(json: o, path: path)
    }

    func write(_ path: String) throws(CKError) { try JSONFile.write(path, json) }
}
