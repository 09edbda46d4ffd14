import CKModel

/// When the device fetched (each `ck sync` that ended): APNs reaches a device only while it is fetching, so the
/// notifications between two fetches coalesce into one (`SubscriptionNotification.delivered`).
extension Device {
    /// How many fetch times are kept: older ones are forgotten, and what came before them counts as received.
    static let fetchesKept = 1000

    /// The times of the device's fetches, ms since 1970, oldest first (meta `fetches`, a JSON array).
    public func fetches() throws(CKError) -> [Int64] {
        guard let text = try meta("fetches"), let json = try? JSON.parse(utf8: Array(text.utf8)) else {
            // A device from before fetch times were kept: its last sync is all that is known.
            return (try meta("lastSync")).flatMap { Int64($0) }.map { [$0] } ?? []
        }
        return (json.arrayValue ?? []).compactMap(\.int64Value)
    }

    /// Records a fetch (call inside the transaction that records the sync).
    package func recordFetch(at time: Int64) throws(CKError) {
        let times = (try fetches() + [time]).suffix(Self.fetchesKept)
        try setMeta("fetches", JSON.array(times.map { .int($0) }).serialized())
    }
}
