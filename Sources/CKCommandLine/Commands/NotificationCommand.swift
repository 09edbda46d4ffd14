import CKCore
import Foundation

/// `ck notification`: the acting user's notifications, and marking them read.
enum NotificationCommand {
    static let spec = CommandSpec(
        "notification", summary: "List notifications and mark them read.",
        discussion: "Subscriptions append notifications for their owner when a change matches. They are kept per user, for every database and zone, oldest first. Each carries the deviceID of the write that caused it: CloudKit pushes to every device of the user except that one, so a client filters on it.",
        examples: [("ck notification list --unread", "Notifications not yet marked read."),
                   ("ck notification list --device iphone", "What the device iphone is pushed."),
                   ("ck notification read --all", "Mark every notification read.")],
        subcommands: [
            CommandSpec("list", summary: "List this user's notifications, oldest first.",
                        options: [OptionSpec("unread", help: "Only notifications not marked read."),
                                  OptionSpec("since", value: "id", help: "Only notifications after this one.", completion: .notification),
                                  OptionSpec("device", value: "name",
                                             help: "Only what this device receives: not the changes it made itself.",
                                             completion: .device)],
                        run: list),
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
        // CloudKit pushes to every device of the user except the one whose change caused the notification.
        if let device = inv.parsed.value("device") {
            try Names.validateDeviceName(device)
            list = list.filter { $0.deviceID != device }
        }
        try inv.emit(List(notifications: list, width: inv.terminal.width))
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
