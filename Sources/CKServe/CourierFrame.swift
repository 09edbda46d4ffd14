import CKModel

/// One web-courier frame: a notification as the courier hands it to a polling client (web-services.md §8): the
/// notification's push payload (`SubscriptionNotification.payload`, docs/store.md "Push payload").
enum CourierFrame {
    static func make(_ n: SubscriptionNotification, container: String, environment: Environment, userRecordName: String) -> JSON {
        n.payload(container: container, environment: environment, userRecordName: userRecordName)
    }
}
