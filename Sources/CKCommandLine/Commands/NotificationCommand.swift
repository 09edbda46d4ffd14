import CKCore
import Foundation

/// `ck notification`: the acting user's notifications, and marking them read.
enum NotificationCommand {
    static let spec = CommandSpec(
        "notification", summary: "List notifications and mark them read.",
        discussion: "Subscriptions append notifications for their owner when a change matches. They are kept per user, for every database and zone, oldest first. Each carries the deviceID of the write that caused it: CloudKit pushes to every device of the user except that one, so a client filters on it.",
        examples: [("ck notification list --unread", "Notifications not yet marked read."),
                   ("ck notification list --device iphone", "What the device iphone is pushed."),
                   ("ck notification show \"$ID\" --payload", "The push payload an app receives for notification $ID."),
                   ("ck notification watch --subscription hot --timeout 2", "Print hot's notifications as they are made, for 2 seconds."),
                   ("ck notification read --all", "Mark every notification read.")],
        subcommands: [
            CommandSpec("list", summary: "List this user's notifications, oldest first.",
                        options: [OptionSpec("unread", help: "Only notifications not marked read."),
                                  OptionSpec("since", value: "id", help: "Only notifications after this one.", completion: .notification),
                                  OptionSpec("device", value: "name",
                                             help: "Only what this device receives: not its own changes, and of those since it last synced only the last (APNs coalesces).",
                                             completion: .device)],
                        run: list),
            CommandSpec("show", summary: "Show one notification, or with --payload the push an app receives.",
                        discussion: "The push payload is the dictionary APNs delivers and CKNotification(fromRemoteNotificationDictionary:) reads: aps (alert, badge, sound, category, content-available) and ck (container, subscription, notification ID, and for a query notification the reason, record, zone and desired keys). Desired keys that would pass APNs's 4096 bytes were left out when it was made, and the notification says isPruned.",
                        arguments: [ArgumentSpec("id", help: "Notification ID.", completion: .notification)],
                        options: [OptionSpec("payload", help: "Print only the push payload, as JSON.")],
                        run: show),
            CommandSpec("watch", summary: "Wait for notifications and print each as it is made.",
                        discussion: "Prints every notification made for this user from now on, by any process, as it is made: a line each (-o json or jsonl: an object a line, with its payload). It ends after --count notifications (exit 0), when --timeout seconds pass (exit 0, or 124 if --count notifications had not come), on Ctrl-C (exit 130) or SIGTERM (exit 143). If the store is deleted under it, it stops with an error (exit 3).",
                        options: [OptionSpec("subscription", value: "id", help: "Only notifications of this subscription.", completion: .subscription),
                                  OptionSpec("count", value: "n", help: "Stop after n notifications.", rule: .integer(min: 1)),
                                  OptionSpec("timeout", value: "seconds", help: "Stop after this many seconds.", rule: .number(min: 0))],
                        run: watch),
            CommandSpec("read", summary: "Mark notifications read (CKMarkNotificationsReadOperation).",
                        arguments: [ArgumentSpec("id", help: "Notification ID.", optional: true, repeatable: true, completion: .notification)],
                        options: [OptionSpec("all", help: "Mark every notification read.")],
                        run: read),
        ])

    /// What a notification is about, in one line.
    static func what(_ n: SubscriptionNotification) -> String {
        switch n.kind {
        case .query:
            return [n.reason?.rawValue, n.recordType, n.recordName].compactMap { $0 }.joined(separator: " ")
                + (n.zoneID.map { " in \($0.zoneName)" } ?? "")
        case .recordZone: return "zone \(n.zoneID?.zoneName ?? "?") changed"
        case .database: return "\(n.databaseScope.rawValue) database changed"
        }
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        var list = try inv.database().notifications(unreadOnly: inv.parsed.flag("unread"), since: inv.parsed.value("since"))
        let db = try inv.database()
        // CloudKit pushes to every device of the user except the one whose change caused the notification, and
        // APNs keeps only the last one for a device that is not fetching.
        if let device = inv.parsed.value("device") {
            try Names.validateDeviceName(device)
            list = SubscriptionNotification.delivered(list, to: device, fetches: try fetches(device, db))
        }
        try inv.emit(List(notifications: list, width: inv.terminal.width, database: db))
        return ExitCode.success
    }

    /// When a device of the user fetched (`ck sync`), ms since 1970, oldest first; none when it does not exist.
    static func fetches(_ device: String, _ db: CKDatabase) throws -> [Int64] {
        // Devices sync the private database (and the shared one apart); the private one says when it fetched.
        let priv = db.scope == .private ? db : db.container.database(.private, environment: db.environment, caller: db.caller)
        guard try Device.exists(device, for: priv) else { return [] }
        return try Device.open(device, database: priv, create: false).fetches()
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        let id = try inv.single("notification ID")
        let db = try inv.database()
        guard let n = try db.notifications().first(where: { $0.notificationID == id }) else {
            throw CKError(.unknownItem, "Notification not found: '\(id)'", hint: "'ck notification list' shows this user's notifications")
        }
        if inv.parsed.flag("payload") {
            inv.line(n.payload(container: db.container.identifier, environment: db.environment, userRecordName: db.userRecordName).pretty())
            return ExitCode.success
        }
        try inv.emit(Show(notification: n, response: NotificationsResponse(notifications: [n], database: db)))
        return ExitCode.success
    }

    static func read(_ inv: Invocation) throws -> Int32 {
        let all = inv.parsed.flag("all")
        guard all != !inv.positionals.isEmpty else {
            throw UsageError("give notification IDs or --all (not both)", command: inv.command.path)
        }
        try inv.emit(MarkedRead(ids: try inv.database().markNotificationsRead(all ? nil : inv.positionals)))
        return ExitCode.success
    }
}
