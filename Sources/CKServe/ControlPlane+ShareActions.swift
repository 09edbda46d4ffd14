import CKModel
import CKServer

/// `POST /_ck/shares/create|invite|remove|update|delete|accept|leave`: what `ck share <action> --as USER` does, as
/// that user, through the same core calls (`modify` with a share input, `resolveShare`, `acceptShare`), so CloudKit's
/// rules refuse here exactly as on the command line.
extension ControlPlane {
    /// The user an action acts as and that user's private database: `user` is checked as `--as` checks a name (a
    /// near miss of a listed user refused).
    static func actingDatabase(_ request: HTTPRequest, body: [String: JSON], server: CloudKitServer)
        throws(CKError) -> (container: CKContainer, environment: Environment, db: CKDatabase) {
        let (container, environment) = try target(request, body: body, server: server)
        let caller = try Caller.named(try required("user", body), in: container, label: "user")
        return (container, environment, container.database(.private, environment: environment, caller: caller))
    }

    /// A permission the body may hold, refused by name unless it is one of `allowed`.
    static func permission(_ name: String, _ body: [String: JSON], allowed: [Share.Permission]) throws(CKError) -> Share.Permission? {
        guard let v = body[name], !v.isNull else { return nil }
        let text = try required(name, body)
        guard let p = Share.Permission(rawValue: text), allowed.contains(p) else {
            throw CKError(.invalidArguments, "\(name): '\(Names.describe(text))' is not one of " + allowed.map(\.rawValue).joined(separator: ", "))
        }
        return p
    }

    /// A string the body may hold (nil when absent), refused by name when of another type or empty.
    static func optional(_ name: String, _ body: [String: JSON]) throws(CKError) -> String? {
        guard let v = body[name], !v.isNull else { return nil }
        return try required(name, body)
    }

    /// The zone an action names (`ck -z`; the default zone when absent).
    static func zoneName(_ body: [String: JSON]) throws(CKError) -> String {
        try optional("zone", body) ?? Names.defaultZoneName
    }

    /// A share as `/_ck/shares` lists it.
    static func shareJSON(_ share: Record, zone: String, ownerRecordName: String) -> JSON {
        let info = share.shareInfo ?? Share(publicPermission: .none, participants: [], rootRecordName: nil)
        return .object([
            "recordName": .string(share.recordName), "zone": .string(zone),
            "owner": .string(info.owner?.userName ?? ownerRecordName), "ownerRecordName": .string(ownerRecordName),
            "rootRecord": info.rootRecordName.map { .string($0) } ?? .null,
            "publicPermission": .string(info.publicPermission.rawValue),
            "url": share.shareURL.map { .string($0) } ?? .null,
            "title": title(share),
            "participants": .array(info.participants.map { p in
                .object(["user": .string(p.userName), "userRecordName": .string(p.userRecordName), "role": .string(p.role.rawValue),
                         "permission": .string(p.permission.rawValue), "acceptance": .string(p.acceptance.rawValue)])
            }),
        ])
    }

    /// The answer of an action that leaves a share saved: `{user, share}`.
    static func savedShareAnswer(_ user: String, _ saved: Record, zone: String, db: CKDatabase) -> JSON {
        let bare = String(zone.prefix { $0 != ":" })
        // Through the shared database the zone is `name:owner`; else the acting user owns it.
        let owner = zone.contains(":") ? String(zone.drop { $0 != ":" }.dropFirst()) : db.userRecordName
        return .object(["user": .string(user), "share": shareJSON(saved, zone: bare, ownerRecordName: owner)])
    }

    /// `POST /_ck/shares/create` `{user, zone?, root?, publicPermission?, title?, name?}` → `{user, share}`, as
    /// `ck --as USER -z ZONE share create [ROOT]`.
    static func createShare(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["user", "zone", "root", "publicPermission", "title", "name"])
        let (_, _, db) = try actingDatabase(request, body: body, server: server)
        let user = try required("user", body)
        let zone = try zoneName(body)
        let root = try optional("root", body)
        let publicPermission = try permission("publicPermission", body, allowed: [.none, .readOnly, .readWrite]) ?? Share.Permission.none
        let title = try optional("title", body)
        var ops: [RecordOperation] = []
        let name: String
        if let root {
            // The root is saved in the same batch as the share, under its change tag.
            guard case .saved(let r)? = try db.fetch([root], zone: zone).first else {
                throw CKError(.unknownItem, "Record not found: '\(root)' in zone \(zone)", hint: "save the root record first, or name its zone")
            }
            ops.append(RecordOperation(type: .update, recordName: root, recordType: r.recordType, changeTag: r.changeTag))
            name = try optional("name", body) ?? "share-" + root
        } else {
            name = try optional("name", body) ?? Share.zoneShareName
        }
        var op = RecordOperation(type: .create, recordName: name, recordType: Share.recordType)
        if let title { op.fields[Share.titleKey] = .value(.string(title)) }
        op.share = ShareInput(forRecord: root, publicPermission: publicPermission)
        return savedShareAnswer(user, try db.saveShare(ops + [op], zone: zone), zone: zone, db: db)
    }

    /// Saves the share `share` names with its participants and fields edited, under its change tag (`ck share invite|
    /// remove|update`). The body is read whole before, so a bad one is refused before the store is.
    static func changeShare(_ request: HTTPRequest, server: CloudKitServer, body: [String: JSON],
                            _ edit: (inout [Share.Participant], inout ShareInput, inout RecordOperation) throws(CKError) -> Void)
        throws(CKError) -> JSON {
        let (_, _, mine) = try actingDatabase(request, body: body, server: server)
        let user = try required("user", body)
        let text = try required("share", body)
        let (db, zone, share) = try mine.ownedShare(text, zone: try zoneName(body))
        var participants = (share.shareInfo?.participants ?? []).filter { $0.role != .owner }
        var input = ShareInput()
        var op = RecordOperation(type: .update, recordName: share.recordName, recordType: Share.recordType, changeTag: share.changeTag)
        try edit(&participants, &input, &op)
        if input.participants == nil { input.participants = participants }
        op.share = input
        return savedShareAnswer(user, try db.saveShare([op], zone: zone), zone: zone, db: db)
    }

    /// An action's body with the keys every share change takes (`user`, `zone`, `share`) and `keys`; `user` and
    /// `share` must be there.
    static func shareChangeBody(_ request: HTTPRequest, keys: [String]) throws(CKError) -> [String: JSON] {
        let body = try actionBody(request, keys: ["user", "zone", "share"] + keys)
        _ = try required("user", body)
        _ = try required("share", body)
        _ = try zoneName(body)
        return body
    }

    /// `POST /_ck/shares/invite` `{user, zone?, share, participant, permission?, administrator?}` → `{user, share}`, as
    /// `ck --as USER share invite SHARE PARTICIPANT`.
    static func inviteToShare(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try shareChangeBody(request, keys: ["participant", "permission", "administrator"])
        let name = try required("participant", body)
        try Names.validateUserName(name)
        let permission = try permission("permission", body, allowed: [.readOnly, .readWrite]) ?? .readOnly
        let administrator = try flag("administrator", body) ?? false
        let urn = Caller.userRecordName(for: name)
        return try changeShare(request, server: server, body: body) { (participants, _, _) throws(CKError) in
            if let i = participants.firstIndex(where: { $0.userRecordName == urn }) {
                participants[i].permission = permission
                if administrator { participants[i].role = .administrator }
            } else {
                participants.append(Share.Participant(userRecordName: urn, userName: name, role: administrator ? .administrator : .privateUser,
                                                      permission: permission, acceptance: .pending))
            }
        }
    }

    /// `POST /_ck/shares/remove` `{user, zone?, share, participant}` → `{user, share}`, as `ck --as USER share remove
    /// SHARE PARTICIPANT`.
    static func removeFromShare(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try shareChangeBody(request, keys: ["participant"])
        let name = try required("participant", body)
        try Names.validateUserName(name)
        let urn = Caller.userRecordName(for: name)
        return try changeShare(request, server: server, body: body) { (participants, _, _) throws(CKError) in
            guard participants.contains(where: { $0.userRecordName == urn }) else {
                let names = participants.map(\.userName)
                throw CKError(.unknownItem, "user \(name) is not a participant of this share",
                              hint: names.isEmpty ? "the share has no participants besides its owner" : "participants: " + names.joined(separator: ", "))
            }
            participants.removeAll { $0.userRecordName == urn }
        }
    }

    /// `POST /_ck/shares/update` `{user, zone?, share, publicPermission?, title?}` → `{user, share}`, as `ck --as USER
    /// share update SHARE`.
    static func updateShare(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try shareChangeBody(request, keys: ["publicPermission", "title"])
        let newPermission = try permission("publicPermission", body, allowed: [.none, .readOnly, .readWrite])
        let title = try optional("title", body)
        guard newPermission != nil || title != nil else {
            throw CKError(.invalidArguments, "nothing to change: give publicPermission or title")
        }
        return try changeShare(request, server: server, body: body) { (_, input, op) throws(CKError) in
            input.publicPermission = newPermission
            if let title { op.fields[Share.titleKey] = .value(.string(title)) }
        }
    }

    /// `POST /_ck/shares/delete` `{user, zone?, share}` → `{user, share, zone, outcome: "deleted"}`, as `ck --as USER
    /// share delete SHARE`.
    static func deleteShare(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try shareChangeBody(request, keys: [])
        let (_, _, mine) = try actingDatabase(request, body: body, server: server)
        let user = try required("user", body)
        let (db, zone, share) = try mine.ownedShare(try required("share", body), zone: try zoneName(body))
        let result = try db.modify([RecordOperation(type: .delete, recordName: share.recordName, changeTag: share.changeTag)], zone: zone, atomic: true)
        if let e = result.results.compactMap(\.error).first { throw e }
        return .object(["user": .string(user), "share": .string(share.recordName), "zone": .string(String(zone.prefix { $0 != ":" })),
                        "outcome": .string("deleted")])
    }

    /// `POST /_ck/shares/accept` `{user, url}` → `{user, share}`, as `ck --as USER share accept URL`.
    static func acceptShare(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["user", "url"])
        let (_, _, db) = try actingDatabase(request, body: body, server: server)
        let user = try required("user", body)
        let meta = try db.acceptShare(try required("url", body))
        let zone = meta.entry.zone.zoneID
        return .object(["user": .string(user), "share": shareJSON(meta.entry.share, zone: zone.zoneName, ownerRecordName: zone.ownerRecordName)])
    }

    /// `POST /_ck/shares/leave` `{user, url}` → `{user, share, zone, outcome: "left"}`, as `ck --as USER share leave URL`.
    static func leaveShare(_ request: HTTPRequest, server: CloudKitServer) throws(CKError) -> JSON {
        let body = try actionBody(request, keys: ["user", "url"])
        let (container, environment, db) = try actingDatabase(request, body: body, server: server)
        let user = try required("user", body)
        let meta = try db.resolveShare(try required("url", body))
        guard meta.participant.role != .owner else {
            throw CKError.invalid("\(db.caller.description) owns this share; the owner stops sharing with 'ck share delete'")
        }
        guard meta.participant.acceptance == .accepted else {
            throw CKError(.unknownItem, "\(db.caller.description) has not accepted this share, so there is nothing to leave",
                          hint: "a pending invitation is declined by not accepting it")
        }
        let shared = container.database(.shared, environment: environment, caller: db.caller)
        let zone = meta.entry.zone.zoneID
        let share = meta.entry.share
        let result = try shared.modify([RecordOperation(type: .forceDelete, recordName: share.recordName)],
                                       zone: zone.zoneName + ":" + zone.ownerRecordName, atomic: true)
        if let e = result.results.compactMap(\.error).first { throw e }
        return .object(["user": .string(user), "share": .string(share.recordName), "zone": .string(zone.zoneName), "outcome": .string("left")])
    }
}
