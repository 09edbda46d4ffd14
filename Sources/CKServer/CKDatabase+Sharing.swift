import CKModel
import CKStorage

/// What a user learns of a share by its URL (CKShare.Metadata; the Web Services records/resolve result).
public struct ShareMetadata: Sendable {
    public var containerIdentifier: String
    public var environment: Environment
    /// The owner's zone and the share record.
    public var entry: ShareEntry
    /// The hierarchy's root (nil for a zone-wide share, or a root the caller may not see yet).
    public var root: Record?
    /// The caller as the share sees it: its role, permission and acceptance (a public share's visitor is a
    /// publicUser with the public permission, not yet accepted).
    public var participant: Share.Participant
    /// `private` for the owner, `shared` for everybody else.
    public var databaseScope: DatabaseScope
}

/// A share as `ck share list` shows it: one the caller owns or takes part in.
public struct ShareListing: Sendable {
    public var entry: ShareEntry
    /// The caller's participation (the owner's for its own shares).
    public var participant: Share.Participant
}

extension CKDatabase {
    /// The shares the caller owns (in its private zones) and those it takes part in (invited, accepted or left).
    public func shareList() throws(CKError) -> [ShareListing] {
        try perform(.shareList) { (state) throws(CKError) -> [ShareListing] in
            let directory = try shareDirectory(state)
            return directory.entries.compactMap { e in
                e.info.participant(userRecordName).map { ShareListing(entry: e, participant: $0) }
            }
        }
    }

    /// Looks a share up by its URL or short GUID without accepting it (records/resolve).
    public func resolveShare(_ url: String) throws(CKError) -> ShareMetadata {
        let guid = try CKDatabase.shortGUID(url)
        return try perform(.shareResolve) { (state) throws(CKError) -> ShareMetadata in
            let directory = try shareDirectory(state)
            let entry = try findShare(guid, directory: directory)
            return try metadata(entry, participant: try visitor(entry))
        }
    }

    /// Accepts a share as the caller (records/accept): an invited user's participation becomes accepted; anyone
    /// may join a public share, as a publicUser. The share's zone then appears in the caller's shared database.
    public func acceptShare(_ url: String) throws(CKError) -> ShareMetadata {
        let guid = try CKDatabase.shortGUID(url)
        return try perform(.shareAccept) { (state) throws(CKError) -> ShareMetadata in
            let directory = try shareDirectory(state)
            let entry = try findShare(guid, directory: directory)
            var me = try visitor(entry)
            if me.role == .owner || me.acceptance == .accepted { return try metadata(entry, participant: me) }
            if me.acceptance == .removed {
                throw CKError(.permissionFailure, "\(caller.description) is no longer a participant of this share", serverErrorCode: "ACCESS_DENIED",
                              hint: "the owner invites the user again: ck share invite <share> \(user)")
            }
            me.acceptance = .accepted
            var info = entry.info
            if let i = info.participants.firstIndex(where: { $0.userRecordName == me.userRecordName }) {
                info.participants[i] = me
            } else {
                guard info.participants.count < Share.maxParticipants else {
                    throw CKError(.tooManyParticipants, "share '\(entry.share.recordName)' has \(Share.maxParticipants) participants already",
                                  serverErrorCode: "BAD_REQUEST")
                }
                info.participants.append(me)
            }
            var share = entry.share
            share.shareInfo = info
            let seq = try env.highestSeq(catalog: state.catalog) + 1
            share.changeTag = CKDatabase.changeTag(seq: seq)
            share.modified = RecordStamp(timestamp: store.now(), userRecordName: userRecordName, deviceID: deviceID)
            // The share lives in the owner's private zone (entry.zone), whichever database handle accepts it.
            var effects = try RecordEffects(db: self, zone: entry.zone, notify: true)
            try effects.commit([.save(seq: seq, record: share)], schema: try env.readSchema(), schemaChanged: false, assets: [:])
            try effects.sync()
            var updated = entry
            updated.share = share
            return try metadata(updated, participant: me)
        }
    }

    /// Every share of the environment, as the operation reads it under its lock.
    package func shareDirectory(_ state: PipelineState) throws(CKError) -> ShareDirectory {
        if let d = state.shares { return d }
        return try ShareDirectory(env: env, catalog: state.catalog)
    }

    /// A URL or short GUID, checked.
    package static func shortGUID(_ text: String) throws(CKError) -> String {
        guard let guid = Share.shortGUID(from: text) else {
            throw CKError.invalid("'\(Names.describe(text))' is not a share URL (https://www.icloud.com/share/<shortGUID>) or a short GUID",
                                  hint: "'ck share show <share>' prints a share's URL")
        }
        return guid
    }

    package func findShare(_ guid: String, directory: ShareDirectory) throws(CKError) -> ShareEntry {
        guard let entry = directory.share(shortGUID: guid) else {
            throw CKError(.unknownItem, "No share has the short GUID '\(guid)'", serverErrorCode: "NOT_FOUND",
                          hint: "the share may have been deleted, or the URL mistyped; 'ck share list --as <owner>' lists a user's shares")
        }
        return entry
    }

    /// The caller as a share sees it; refuses one who may not see the share at all.
    package func visitor(_ entry: ShareEntry) throws(CKError) -> Share.Participant {
        let info = entry.info
        if let me = info.participant(userRecordName) { return me }
        guard let name = caller.userName else {
            throw CKError(.notAuthenticated, "no iCloud user is signed in, so \(OperationKind.shareResolve.phrase)",
                          hint: "act as a signed-in user with --as NAME")
        }
        if info.publicPermission != .none {
            return Share.Participant(userRecordName: userRecordName, userName: name, role: .publicUser,
                                     permission: info.publicPermission, acceptance: .pending)
        }
        if info.participants.contains(where: { $0.acceptance == .pending }) {
            throw CKError(.participantMayNeedVerification, "\(caller.description) is not a participant of this share, and it has invitations not yet accepted",
                          serverErrorCode: "ACCESS_DENIED",
                          hint: "accept as the invited user (--as <invited user>), or ask the owner to invite \(name)")
        }
        throw CKError(.permissionFailure, "\(caller.description) is not invited to this share", serverErrorCode: "ACCESS_DENIED",
                      hint: "the owner invites the user first: ck share invite <share> \(name)")
    }

    package func metadata(_ entry: ShareEntry, participant: Share.Participant) throws(CKError) -> ShareMetadata {
        var root: Record? = nil
        if let rootName = entry.info.rootRecordName {
            root = try env.openZone(env.logPath(database: .private, zone: entry.zone.zoneID)).reader.record(rootName)
        }
        let scope: DatabaseScope = participant.role == .owner ? .private : .shared
        return ShareMetadata(containerIdentifier: container.identifier, environment: environment, entry: entry, root: root,
                             participant: participant, databaseScope: scope)
    }
}
