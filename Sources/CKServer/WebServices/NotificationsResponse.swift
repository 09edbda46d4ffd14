import CKModel

/// The acting user's notifications (`{"notifications": […]}`), each with whether it was marked read.
public struct NotificationsResponse: Sendable {
    public var notifications: [SubscriptionNotification]

    public init(notifications: [SubscriptionNotification]) { self.notifications = notifications }

    public var json: JSON { .object(["notifications": .array(notifications.map { $0.json(withRead: true) })]) }
    public var jsonLines: [JSON] { notifications.map { $0.json(withRead: true) } }
}

/// Notifications marked read (CKMarkNotificationsReadOperation's answer).
public struct NotificationsMarkedRead: Sendable {
    public var notificationIDs: [String]

    public init(notificationIDs: [String]) { self.notificationIDs = notificationIDs }

    public var json: JSON { .object(["marked": .array(notificationIDs.map { .string($0) })]) }
    public var jsonLines: [JSON] { notificationIDs.map { .object(["notificationID": .string($0), "read": .bool(true)]) } }
}
