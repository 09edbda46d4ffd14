import CKCore
import Foundation

/// `ck subscription`: query, zone and database subscriptions of the acting user, per database.
enum SubscriptionCommand {
    static let idOption = OptionSpec("id", value: "id", help: "Subscription ID (default: a new UUID); an existing ID is replaced.")
    static let typeOption = OptionSpec("type", value: "record-type", help: "Only changes to records of this type.", completion: .recordType)
    static let infoOptions: [OptionSpec] = [
        OptionSpec("alert", value: "text", help: "Alert body of the notifications."),
        OptionSpec("alert-key", value: "key", help: "Localization key of the alert body (alertLocalizationKey)."),
        OptionSpec("alert-arg", value: "value", help: "Argument of the alert body's localization key (repeatable).", repeatable: true),
        OptionSpec("title", value: "text", help: "Alert title."),
        OptionSpec("title-key", value: "key", help: "Localization key of the title (titleLocalizationKey)."),
        OptionSpec("title-arg", value: "value", help: "Argument of the title's localization key (repeatable).", repeatable: true),
        OptionSpec("subtitle", value: "text", help: "Alert subtitle."),
        OptionSpec("subtitle-key", value: "key", help: "Localization key of the subtitle (subtitleLocalizationKey)."),
        OptionSpec("subtitle-arg", value: "value", help: "Argument of the subtitle's localization key (repeatable).", repeatable: true),
        OptionSpec("action-key", value: "key", help: "Localization key of the alert's action button (alertActionLocalizationKey)."),
        OptionSpec("launch-image", value: "file", help: "Launch image shown when the alert opens the app (alertLaunchImage)."),
        OptionSpec("sound", value: "name", help: "Sound played with the alert (soundName)."),
        OptionSpec("category", value: "name", help: "Notification category: the actions the alert offers."),
        OptionSpec("badge", help: "Notifications increment the app badge (shouldBadge)."),
        OptionSpec("content-available", help: "Silent background notifications (shouldSendContentAvailable)."),
    ]

    static let spec = CommandSpec(
        "subscription", summary: "Create, list, show and delete subscriptions.",
        discussion: """
        A subscription asks the server to notify its owner of changes: a query subscription for records of a type matching a predicate (public and private databases), a zone subscription for any change in one custom zone with fetchChanges (private database), a database subscription for any change in the custom zones of the database (private and shared). A subscription belongs to the user (--as) and database (--db) that saved it. Notifications are read with 'ck notification list'.

        A query subscription follows the rules of 'ck query': the type must exist, filter fields must be QUERYABLE, and TRUEPREDICATE needs ___recordID QUERYABLE. Without -z it watches every zone of the database (CloudKit's default); -z limits it to one zone. In production the type and indexes must be deployed.
        """,
        examples: [("ck subscription create query Note \"priority >= 5\" --id hot --alert Urgent", "Notify on urgent notes."),
                   ("ck -z Work subscription create zone --id work", "Notify on any change in zone Work."),
                   ("ck subscription list", "This user's subscriptions in the private database.")],
        subcommands: [
            CommandSpec("create", summary: "Create (or replace) a subscription.", subcommands: [
                CommandSpec("query", summary: "Subscribe to records of a type matching a predicate.",
                            arguments: [ArgumentSpec("record-type", help: "Record type.", completion: .recordType),
                                        ArgumentSpec("predicate", help: "NSPredicate format string (default TRUEPREDICATE).", optional: true)],
                            options: [idOption,
                                      OptionSpec("arg", value: "value", help: "Value for the next %@, %K, %d or %f (repeatable), as in 'ck query'.", repeatable: true),
                                      OptionSpec("fires-on", value: "events", help: "Comma-separated: create, update, delete (default: all three).",
                                                 rule: .list(Subscription.Event.allCases.map(\.rawValue))),
                                      OptionSpec("fires-once", help: "Delete the subscription after it fires once."),
                                      OptionSpec("zone-wide", help: "Watch every zone (the default unless -z is given)."),
                                      OptionSpec("desired-keys", value: "fields", help: "Comma-separated fields to carry in notifications.", completion: .field)]
                                + infoOptions,
                            run: createQuery),
                CommandSpec("zone", summary: "Subscribe to changes in the zone given with -z.",
                            options: [idOption, typeOption] + infoOptions, run: createZone),
                CommandSpec("database", summary: "Subscribe to changes in the database's custom zones.",
                            options: [idOption, typeOption] + infoOptions, run: createDatabase),
            ]),
            CommandSpec("list", summary: "List this user's subscriptions in the database.", run: list),
            CommandSpec("show", summary: "Show one subscription.",
                        arguments: [ArgumentSpec("id", help: "Subscription ID.", completion: .subscription)], run: show),
            CommandSpec("delete", summary: "Delete subscriptions.",
                        arguments: [ArgumentSpec("id", help: "Subscription ID.", repeatable: true, completion: .subscription)],
                        options: [OptionSpec("yes", short: "y", help: "Do not ask for confirmation.")],
                        run: delete),
        ])

    static func info(_ inv: Invocation, keys: [String] = []) -> NotificationInfo {
        var info = NotificationInfo(alertBody: inv.parsed.value("alert"), shouldBadge: inv.parsed.flag("badge"),
                                    shouldSendContentAvailable: inv.parsed.flag("content-available"), desiredKeys: keys)
        info.alertLocalizationKey = inv.parsed.value("alert-key")
        info.alertLocalizationArgs = inv.parsed.all("alert-arg")
        info.title = inv.parsed.value("title")
        info.titleLocalizationKey = inv.parsed.value("title-key")
        info.titleLocalizationArgs = inv.parsed.all("title-arg")
        info.subtitle = inv.parsed.value("subtitle")
        info.subtitleLocalizationKey = inv.parsed.value("subtitle-key")
        info.subtitleLocalizationArgs = inv.parsed.all("subtitle-arg")
        info.alertActionLocalizationKey = inv.parsed.value("action-key")
        info.alertLaunchImage = inv.parsed.value("launch-image")
        info.soundName = inv.parsed.value("sound")
        info.category = inv.parsed.value("category")
        return info
    }

    static func createQuery(_ inv: Invocation) throws -> Int32 {
        guard let type = inv.positionals.first, inv.positionals.count <= 2 else {
            throw UsageError("expected <record-type> [<predicate>] (quote the predicate)", command: inv.command.path)
        }
        // The parser has checked each event name.
        let events = inv.parsed.value("fires-on").map { Set(ValueRule.items($0).compactMap(Subscription.Event.init(rawValue:))) }
            ?? Set(Subscription.Event.allCases)
        // -z (or CK_ZONE) names one zone; without it CloudKit's query subscriptions watch every zone.
        let zone = inv.setting("zone", env: "CK_ZONE")
        if inv.parsed.flag("zone-wide") && inv.parsed.value("zone") != nil {
            throw UsageError("--zone and --zone-wide exclude each other", command: inv.command.path)
        }
        let predicate = inv.positionals.count > 1 ? inv.positionals[1] : "TRUEPREDICATE"
        let kind = Subscription.Kind.query(recordType: type, predicate: predicate, arguments: inv.parsed.all("arg"), firesOn: events,
                                           firesOnce: inv.parsed.flag("fires-once"),
                                           zoneName: inv.parsed.flag("zone-wide") ? nil : zone)
        return try save(Subscription(subscriptionID: inv.parsed.value("id") ?? "", kind: kind,
                                     notificationInfo: info(inv, keys: ValueRule.items(inv.parsed.value("desired-keys") ?? ""))), inv)
    }

    static func createZone(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("the zone comes from -z; no arguments", command: inv.command.path) }
        let kind = Subscription.Kind.recordZone(zoneName: inv.zone, recordType: inv.parsed.value("type"))
        return try save(Subscription(subscriptionID: inv.parsed.value("id") ?? "", kind: kind, notificationInfo: info(inv)), inv)
    }

    static func createDatabase(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("database subscriptions take no arguments", command: inv.command.path) }
        let kind = Subscription.Kind.database(recordType: inv.parsed.value("type"))
        return try save(Subscription(subscriptionID: inv.parsed.value("id") ?? "", kind: kind, notificationInfo: info(inv)), inv)
    }

    static func save(_ sub: Subscription, _ inv: Invocation) throws -> Int32 {
        let (saved, replaced) = try inv.database().saveSubscriptionReplacing(sub)
        if replaced { inv.note("subscription '\(saved.subscriptionID)' already existed; replaced, as CloudKit's save replaces it") }
        try inv.emit(Saved(subscription: saved, replaced: replaced))
        return ExitCode.success
    }

    /// What a subscription watches, in one line.
    static func watches(_ s: Subscription) -> String {
        switch s.kind {
        case .query(let type, let predicate, let args, let firesOn, let once, let zone):
            var text = "\(type) where \(predicate)"
            if !args.isEmpty { text += " [" + args.joined(separator: ", ") + "]" }
            text += zone.map { " in zone \($0)" } ?? " in all zones"
            text += " on " + firesOn.sorted().map(\.rawValue).joined(separator: ",")
            return once ? text + ", once" : text
        case .recordZone(let zone, let type):
            return "zone \(zone)" + (type.map { " (\($0) records)" } ?? "")
        case .database(let type):
            return "custom zones" + (type.map { " (\($0) records)" } ?? "")
        }
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        try inv.emit(List(subscriptions: try inv.database().subscriptions(), database: try inv.scope(), width: inv.terminal.width))
        return ExitCode.success
    }

    static func show(_ inv: Invocation) throws -> Int32 {
        try inv.emit(Show(subscription: try inv.database().subscription(try inv.single("subscription ID"))))
        return ExitCode.success
    }

    static func delete(_ inv: Invocation) throws -> Int32 {
        let ids = inv.positionals
        guard !ids.isEmpty else { throw UsageError("expected one or more subscription IDs", command: inv.command.path) }
        if ids.count > 1 && !inv.parsed.flag("yes") && !inv.confirm("Delete \(ids.count) subscriptions?") {
            inv.note("nothing deleted")
            return ExitCode.failure
        }
        let db = try inv.database()
        var failures: [CKError.ItemFailure] = []
        var deleted: [String] = []
        // One operation for all of them: a crash deletes all or none.
        for (id, error) in zip(ids, try db.deleteSubscriptions(ids)) {
            if let error { failures.append(.init(id: id, error: error)) } else { deleted.append(id) }
        }
        try inv.emit(Deleted(response: SubscriptionDeletions(deleted: deleted, errors: failures)))
        if let only = failures.first, ids.count == 1 { throw only.error }
        if !failures.isEmpty {
            throw CKError(.partialFailure, "Failed to delete \(failures.count) of \(ids.count) subscriptions", items: failures)
        }
        return ExitCode.success
    }
}
