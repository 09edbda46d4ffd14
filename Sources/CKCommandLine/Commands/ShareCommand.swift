import CKCore

/// `ck share`: CKShare — share a record hierarchy or a whole zone, invite users, accept, leave.
enum ShareCommand {
    static let permissionHelp = "readOnly or readWrite"
    static let spec = CommandSpec(
        "share", summary: "Share records with other users (CKShare) and accept shares.",
        discussion: "A share is a record of type cloudkit.share in a custom zone of its owner's private database. It shares a root record and every record below it through parent references (custom references are ignored), or a whole zone. The owner invites users; an invited user accepts the share's URL, and the owner's zone then appears in that user's shared database (--db shared), holding only the shared records, read and written as the participant's permission allows. A share whose public permission is not none is joined by anyone with its URL. See 'ck help sharing'.",
        examples: [("ck -z Lists share create list-1 --title Groceries", "Share list-1 and every record below it."),
                   ("ck -z Lists share invite list-1 bob --permission readWrite", "Invite bob."),
                   ("ck --as bob share accept \"$URL\"", "bob accepts the URL ('ck share show' prints it): the zone appears in his shared database."),
                   ("ck --as bob --db shared -z Lists record list", "bob reads the shared records.")],
        subcommands: [
            CommandSpec("create", summary: "Share a record hierarchy (a root and every record below it by parent), or the whole zone.",
                        discussion: "With a root record, the share and the root are saved in one batch and the root's share field points at the share. Without one, the zone named by -z is shared whole (record name cloudkit.zoneshare; the zone needs --zone-wide-sharing). A record takes part in one share only: a root whose ancestor or descendant is already shared answers alreadyShared.",
                        arguments: [ArgumentSpec("root", help: "The root record (omit it to share the whole zone).", optional: true, completion: .recordName)],
                        options: [OptionSpec("public-permission", value: "permission", help: "Who else may join with the URL: none (only invited users; the default), readOnly or readWrite.",
                                             choices: ["none", "readOnly", "readWrite"]),
                                  OptionSpec("title", value: "text", help: "The share's title (cloudkit.title)."),
                                  OptionSpec("name", value: "name", help: "The share record's name (default: share-<root>).")],
                        run: create),
            CommandSpec("show", summary: "Show a share: URL, root, public permission and participants.",
                        arguments: [ArgumentSpec("share", help: "The share record, its root record (in -z's zone) or its URL.", completion: .share)],
                        run: show),
            CommandSpec("list", summary: "List the shares the user owns and those it takes part in.", run: list),
            CommandSpec("invite", summary: "Add a user to a share, or change a participant's permission.",
                        discussion: "Only while the share's public permission is none (CloudKit does not mix public and invited users). The user is pending until it accepts the URL.",
                        arguments: [ArgumentSpec("share", help: "The share record, its root record or its URL.", completion: .share),
                                    ArgumentSpec("user", help: "The user to invite.", completion: .user)],
                        options: [OptionSpec("permission", value: "permission", help: "readOnly (the default) or readWrite.", choices: ["readOnly", "readWrite"]),
                                  OptionSpec("administrator", help: "Make the participant an administrator (iOS 26: may add and remove participants).")],
                        run: invite),
            CommandSpec("remove", summary: "Remove a participant: its shared database loses the share's records.",
                        arguments: [ArgumentSpec("share", help: "The share record, its root record or its URL.", completion: .share),
                                    ArgumentSpec("user", help: "The participant to remove.", completion: .user)],
                        run: remove),
            CommandSpec("update", summary: "Change a share's public permission or title.",
                        discussion: "Changing the public permission removes pending participants; setting it to none removes every public participant, as CloudKit does.",
                        arguments: [ArgumentSpec("share", help: "The share record, its root record or its URL.", completion: .share)],
                        options: [OptionSpec("public-permission", value: "permission", help: "none, readOnly or readWrite.", choices: ["none", "readOnly", "readWrite"]),
                                  OptionSpec("title", value: "text", help: "The share's title (cloudkit.title).")],
                        run: update),
            CommandSpec("delete", summary: "Stop sharing: delete the share (the root's share field is cleared; the records stay).",
                        arguments: [ArgumentSpec("share", help: "The share record, its root record or its URL.", completion: .share)],
                        run: delete),
            CommandSpec("resolve", summary: "Look a share up by its URL without accepting it (records/resolve).",
                        arguments: [ArgumentSpec("url", help: "The share URL or its short GUID.")],
                        run: resolve),
            CommandSpec("accept", summary: "Accept a share as the acting user (records/accept).",
                        discussion: "An invited user's participation becomes accepted; anyone may join a share whose public permission is not none (as a public user). Anyone else is refused with permissionFailure.",
                        arguments: [ArgumentSpec("url", help: "The share URL or its short GUID.")],
                        run: accept),
            CommandSpec("leave", summary: "Leave a share as a participant (the share stays for the others).",
                        arguments: [ArgumentSpec("url", help: "The share URL or its short GUID.")],
                        run: leave),
        ])

    static func permission(_ text: String?) -> Share.Permission? { text.flatMap(Share.Permission.init(rawValue:)) }

    /// The owner's share named by a share record, a shared root or a URL, in the caller's private database.
    static func ownedShare(_ inv: Invocation, _ text: String) throws -> (db: CKDatabase, zone: String, share: Record) {
        try inv.database().ownedShare(text, zone: inv.zone)
    }

    static func create(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.count <= 1 else { throw UsageError("expected at most one root record", command: inv.command.path) }
        let db = try inv.database()
        let zone = inv.zone
        let root = inv.positionals.first
        var ops: [RecordOperation] = []
        let name: String
        if let root {
            // The root is saved in the same batch as the share, under its change tag.
            guard case .saved(let r)? = try db.fetch([root], zone: zone).first else {
                throw CKError(.unknownItem, "Record not found: '\(root)' in zone \(zone)", hint: "save the root record first, or name its zone with -z")
            }
            ops.append(RecordOperation(type: .update, recordName: root, recordType: r.recordType, changeTag: r.changeTag))
            name = inv.parsed.value("name") ?? "share-" + root
        } else {
            name = inv.parsed.value("name") ?? Share.zoneShareName
        }
        var op = RecordOperation(type: .create, recordName: name, recordType: Share.recordType)
        if let title = inv.parsed.value("title") { op.fields[Share.titleKey] = .value(.string(title)) }
        op.share = ShareInput(forRecord: root, publicPermission: permission(inv.parsed.value("public-permission")) ?? Share.Permission.none)
        let share = try db.saveShare(ops + [op], zone: zone)
        try inv.emit(Shown(share: share, viewer: share.shareInfo?.owner, zone: zone, verb: "Created share"))
        return ExitCode.success
    }

    /// Saves a request atomically and returns the share it saved; the first real failure is thrown.
    static func show(_ inv: Invocation) throws -> Int32 {
        let text = try inv.single("share")
        // A URL (or a short GUID no record of the zone is named by) shows the share as the caller sees it.
        func resolved(_ db: CKDatabase, _ guid: String) throws -> Int32 {
            let meta = try db.resolveShare(guid)
            try inv.emit(Shown(share: meta.entry.share, viewer: meta.participant, zone: meta.entry.zone.zoneID.zoneName))
            return ExitCode.success
        }
        if text.contains("/") { return try resolved(try inv.database(), text) }
        do {
            let (db, zone, share) = try ownedShare(inv, text)
            try inv.emit(Shown(share: share, viewer: share.shareInfo?.participant(db.userRecordName), zone: zone))
            return ExitCode.success
        } catch let error as CKError where error.code == .unknownItem {
            guard let guid = Share.shortGUID(from: text) else { throw error }
            return try resolved(try inv.database(), guid)
        }
    }

    static func list(_ inv: Invocation) throws -> Int32 {
        guard inv.positionals.isEmpty else { throw UsageError("list takes no arguments", command: inv.command.path) }
        try inv.emit(Listed(shares: try inv.database().shareList(), width: inv.terminal.width))
        return ExitCode.success
    }

    /// Saves the owner's share with a new participant list, under its change tag.
    static func change(_ inv: Invocation, _ text: String, verb: String,
                       _ edit: (inout [Share.Participant], inout ShareInput, inout RecordOperation) throws -> Void) throws -> Int32 {
        let (db, zone, share) = try ownedShare(inv, text)
        var participants = Array((share.shareInfo?.participants ?? []).filter { $0.role != .owner })
        var input = ShareInput()
        var op = RecordOperation(type: .update, recordName: share.recordName, recordType: Share.recordType, changeTag: share.changeTag)
        try edit(&participants, &input, &op)
        if input.participants == nil { input.participants = participants }
        op.share = input
        let saved = try db.saveShare([op], zone: zone)
        let viewer = saved.shareInfo?.participant(db.userRecordName) ?? saved.shareInfo?.owner
        try inv.emit(Shown(share: saved, viewer: viewer, zone: String(zone.prefix { $0 != ":" }), verb: verb))
        return ExitCode.success
    }

    static func pair(_ inv: Invocation) throws -> (String, String) {
        guard inv.positionals.count == 2 else { throw UsageError("expected a share and a user name", command: inv.command.path) }
        try Names.validateUserName(inv.positionals[1])
        return (inv.positionals[0], inv.positionals[1])
    }

    static func invite(_ inv: Invocation) throws -> Int32 {
        let (text, user) = try pair(inv)
        let permission = permission(inv.parsed.value("permission")) ?? .readOnly
        let role: Share.Role = inv.parsed.flag("administrator") ? .administrator : .privateUser
        return try change(inv, text, verb: "Invited \(user) to share") { participants, _, _ in
            let urn = Caller.userRecordName(for: user)
            if let i = participants.firstIndex(where: { $0.userRecordName == urn }) {
                participants[i].permission = permission
                if inv.parsed.flag("administrator") { participants[i].role = .administrator }
            } else {
                participants.append(Share.Participant(userRecordName: urn, userName: user, role: role, permission: permission, acceptance: .pending))
            }
        }
    }

    static func remove(_ inv: Invocation) throws -> Int32 {
        let (text, user) = try pair(inv)
        return try change(inv, text, verb: "Removed \(user) from share") { participants, _, _ in
            let urn = Caller.userRecordName(for: user)
            guard participants.contains(where: { $0.userRecordName == urn }) else {
                let names = participants.map(\.userName)
                throw CKError(.unknownItem, "user \(user) is not a participant of this share",
                              hint: names.isEmpty ? "the share has no participants besides its owner" : "participants: " + names.joined(separator: ", "))
            }
            participants.removeAll { $0.userRecordName == urn }
        }
    }

    static func update(_ inv: Invocation) throws -> Int32 {
        let text = try inv.single("share")
        let newPermission = permission(inv.parsed.value("public-permission"))
        let title = inv.parsed.value("title")
        guard newPermission != nil || title != nil else {
            throw UsageError("nothing to change: give --public-permission or --title", command: inv.command.path)
        }
        return try change(inv, text, verb: "Updated share") { _, input, op in
            input.publicPermission = newPermission
            if let title { op.fields[Share.titleKey] = .value(.string(title)) }
        }
    }

    static func delete(_ inv: Invocation) throws -> Int32 {
        let text = try inv.single("share")
        let (db, zone, share) = try ownedShare(inv, text)
        let result = try db.modify([RecordOperation(type: .delete, recordName: share.recordName, changeTag: share.changeTag)], zone: zone, atomic: true)
        if let e = result.results.compactMap(\.error).first { throw e }
        try inv.emit(Done(share: share.recordName, zone: zone, outcome: "deleted",
                          sentence: "Deleted share \(share.recordName) in zone \(zone): its participants no longer see the shared records"))
        return ExitCode.success
    }

    static func resolve(_ inv: Invocation) throws -> Int32 {
        let url = try inv.single("share URL")
        try inv.emit(Metadata(metadata: try inv.database().resolveShare(url), verb: nil))
        return ExitCode.success
    }

    static func accept(_ inv: Invocation) throws -> Int32 {
        let url = try inv.single("share URL")
        try inv.emit(Metadata(metadata: try inv.database().acceptShare(url), verb: "Accepted"))
        return ExitCode.success
    }

    static func leave(_ inv: Invocation) throws -> Int32 {
        let url = try inv.single("share URL")
        let container = try inv.container()
        let caller = try inv.caller()
        let env = try inv.environment()
        let meta = try container.database(.private, environment: env, caller: caller).resolveShare(url)
        guard meta.participant.role != .owner else {
            throw CKError.invalid("\(caller.description) owns this share; the owner stops sharing with 'ck share delete'")
        }
        guard meta.participant.acceptance == .accepted else {
            throw CKError(.unknownItem, "\(caller.description) has not accepted this share, so there is nothing to leave",
                          hint: "a pending invitation is declined by not accepting it")
        }
        let shared = container.database(.shared, environment: env, caller: caller)
        let zone = meta.entry.zone.zoneID.zoneName + ":" + meta.entry.zone.zoneID.ownerRecordName
        let share = meta.entry.share
        let result = try shared.modify([RecordOperation(type: .forceDelete, recordName: share.recordName)], zone: zone, atomic: true)
        if let e = result.results.compactMap(\.error).first { throw e }
        try inv.emit(Done(share: share.recordName, zone: meta.entry.zone.zoneID.zoneName, outcome: "left",
                          sentence: "Left share \(share.recordName) of \(meta.entry.info.owner?.userName ?? "its owner"): zone \(meta.entry.zone.zoneID.zoneName) is gone from your shared database"))
        return ExitCode.success
    }
}
