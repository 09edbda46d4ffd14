/// What APNs hands one device (docs/store.md, "Coalescing"): CloudKit pushes to every device of the user except
/// the one whose change caused the notification, and APNs, while a device is not reachable, keeps only the most
/// recent notification for the app: "each new notification causes the prior notification to be discarded".
extension SubscriptionNotification {
    /// The notifications `device` receives, given the times it fetched (`ck sync`, ms since 1970, oldest first).
    /// ck takes a device to be reachable only when it fetches: of the notifications made between two fetches (and
    /// before the first, and since the last), only the last one reaches it, marked `isPruned` when it stands for
    /// more than itself.
    public static func delivered(_ list: [SubscriptionNotification], to device: String, fetches: [Int64]) -> [SubscriptionNotification] {
        var out: [SubscriptionNotification] = []
        var window: Int? = nil
        for n in list where n.deviceID != device {
            // The window is the number of fetches before the notification was made.
            let w = fetches.partitionIndex { $0 < n.time }
            if w == window, !out.isEmpty {
                var survivor = n
                survivor.isPruned = true
                out[out.count - 1] = survivor
            } else {
                out.append(n)
                window = w
            }
        }
        return out
    }
}

extension Array where Element == Int64 {
    /// The number of leading elements (the array sorted) for which `before` holds.
    fileprivate func partitionIndex(_ before: (Int64) -> Bool) -> Int {
        var lo = 0, hi = count
        while lo < hi {
            let mid = (lo + hi) / 2
            if before(self[mid]) { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }
}
