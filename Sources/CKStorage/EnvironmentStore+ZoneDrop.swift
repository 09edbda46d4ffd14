import CKFiles
import CKModel

extension EnvironmentStore {
    /// The writes of dropped zones, in one intent: the new catalog, the zones' logs removed and each owner's
    /// notification log with `notifications[owner]` appended, so a crash leaves every zone and its notifications
    /// both in place or both gone; then the index forgets the logs. Call with the exclusive lock held.
    func dropZoneFiles(operation: String, catalog: ZoneCatalog, logs: [String],
                       notifications: [String: [SubscriptionNotification]]) throws(CKError) {
        let intent = try Intent(base: dir, operation: operation)
        try JSONFile.write(intent.stage("zones.json"), catalog.json)
        for p in logs where FileIO.lexists(p) { intent.remove(relative(p)) }
        for (owner, list) in notifications.sorted(by: { $0.key < $1.key }) where !list.isEmpty {
            let path = notificationsPath(owner)
            try FileIO.atomicWrite(intent.stage(relative(path)), try NotificationLog.appending(path, list.map { .notify($0) }))
        }
        try intent.commit { () throws(CKError) in
            for p in logs { try index()?.sync(p, warnings: &warnings) }
        }
    }
}
