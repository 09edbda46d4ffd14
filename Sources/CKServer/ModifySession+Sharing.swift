import CKModel
import CKStorage

/// CloudKit's sharing rules for a modify request (docs/sharing.md): where a share may be saved, one share per
/// record, the participant list, a root's `share` reference, and what deleting a root or a share takes with it.
extension ModifySession {
    // MARK: Saving a share

    /// Refusals of a share record's save that come before the grants: the database, the zone and its capabilities.
    package func checkShareSave(_ name: String, existing: Record?, op: RecordOperation) throws(CKError) {
        switch db.scope {
        case .public:
            throw CKError(.badDatabase, "Shares can't be saved in the public database",
                          hint: "a share lives in a custom zone of its owner's private database (--db private -z <zone>)")
        case .shared:
            // A participant changes no share (the gate says so); leaving is a delete.
            return
        case .private: break
        }
        if zone.zoneID.isDefault {
            throw CKError(.badDatabase, "The default zone does not support sharing: share '\(name)' can't be saved there",
                          hint: "create a custom zone ('ck zone create <zone>') and keep the shared records in it")
        }
        guard zone.capabilities.contains(.sharing) else {
            throw CKError.invalid("zone \(zone.zoneID.zoneName) lacks the sharing capability, so share '\(name)' can't be saved there",
                                  hint: "share records of a zone created with sharing (the default capabilities of 'ck zone create')")
        }
        if name == Share.zoneShareName {
            guard zone.capabilities.contains(.zoneWideSharing) else {
                throw CKError.invalid("zone \(zone.zoneID.zoneName) lacks the zoneWideSharing capability, so it can't be shared whole",
                                      hint: "create the zone with 'ck zone create <zone> --zone-wide-sharing', or share a record hierarchy")
            }
            if op.share?.forRecord != nil {
                throw CKError.invalid("a zone-wide share (\(Share.zoneShareName)) shares the whole zone; it takes no forRecord")
            }
        } else if existing == nil {
            guard let root = op.share?.forRecord else {
                throw CKError.invalid("a new share names its root record (forRecord), saved in the same request",
                                      hint: "ck share create <root record> saves both; a zone-wide share is named \(Share.zoneShareName)")
            }
            // CloudKit: a new share and its root are saved in the same batch.
            guard requestSaves.contains(root) else {
                throw CKError.invalid("a new share is saved in the same request as its root record '\(root)'",
                                      hint: "send the root (an update with its change tag) in the request that creates the share; 'ck share create' does")
            }
        }
        if let existing, !existing.isShare {
            throw CKError.invalid("record '\(name)' exists with type '\(existing.recordType)'; a share is a new record of type \(Share.recordType)")
        }
    }

    /// The share keys of a share record about to be saved: the participant list after CloudKit's rules, the
    /// public permission, the root and the short GUID (the root's, so a reshare keeps its URL).
    package func shareKeys(_ name: String, existing: Record?, op: RecordOperation) throws(CKError) -> (Share, shortGUID: String) {
        let old = existing?.shareInfo
        let input = op.share ?? ShareInput()
        let rootName: String?
        if name == Share.zoneShareName {
            rootName = nil
        } else if let old {
            if let asked = input.forRecord, asked != old.rootRecordName {
                throw CKError.invalid("share '\(name)' shares '\(old.rootRecordName ?? "the zone")'; its root can't change to '\(asked)'")
            }
            rootName = old.rootRecordName
        } else {
            rootName = input.forRecord
        }
        if existing == nil { try checkNotShared(root: rootName, share: name) }
        var guid = existing?.shortGUID
        if guid == nil, let rootName, let root = try current(rootName) { guid = root.shortGUID }
        let ownerName = db.caller.userName ?? db.userRecordName
        let owner = Share.Participant(userRecordName: zone.zoneID.ownerRecordName, userName: ownerName, role: .owner,
                                      permission: .readWrite, acceptance: .accepted)
        var participants = old?.participants ?? [owner]
        let publicPermission = input.publicPermission ?? old?.publicPermission ?? .none
        if let asked = input.participants {
            // Participants are always compared as ifServerRecordUnchanged, whatever the save policy.
            func key(_ list: [Share.Participant]) -> Set<String> {
                Set(list.filter { $0.role != .owner }.map { "\($0.userRecordName) \($0.permission.rawValue)" })
            }
            if let existing, existing.changeTag != op.changeTag, key(asked) != key(old?.participants ?? []) {
                throw conflict(existing, op: op, verb: "updating the participants of share")
            }
            var next: [Share.Participant] = [participants.first { $0.role == .owner } ?? owner]
            var seen: Set<String> = [next[0].userRecordName]
            for p in asked {
                if p.role == .owner || p.userRecordName == zone.zoneID.ownerRecordName {
                    if p.userRecordName == zone.zoneID.ownerRecordName { continue }
                    throw CKError.invalid("participant \(p.userName): only the share's creator is its owner")
                }
                guard seen.insert(p.userRecordName).inserted else {
                    throw CKError.invalid("participant \(p.userName) appears twice in share '\(name)'")
                }
                guard Names.isUserRecordName(p.userRecordName) else {
                    throw CKError.invalid("participant '\(Names.describe(p.userRecordName))' is not a user record name")
                }
                if let was = old?.participant(p.userRecordName) {
                    // Acceptance is the server's; the owner changes role (administrator) and permission, and a
                    // participant who left is invited again.
                    var kept = was
                    kept.permission = p.permission
                    if kept.acceptance == .removed { kept.acceptance = .pending }
                    if p.role == .administrator || (was.role == .administrator && p.role == .privateUser) { kept.role = p.role }
                    next.append(kept)
                } else {
                    if publicPermission != .none {
                        throw CKError.invalid("share '\(name)' has publicPermission \(publicPermission.rawValue): participants are added only while it is none",
                                              hint: "anyone with the URL joins a public share; to invite users, set the public permission to none first")
                    }
                    if p.role == .publicUser {
                        throw CKError.invalid("participant \(p.userName): public users join through the share URL; they are not added")
                    }
                    if p.permission == .none {
                        throw CKError.invalid("participant \(p.userName): a participant's permission is readOnly or readWrite")
                    }
                    // A name one typo away from a user the container knows is a typo, not a new user.
                    if p.userRecordName == Caller.userRecordName(for: p.userName) {
                        try db.container.refuseNearMiss(user: p.userName, in: try db.container.info())
                    }
                    next.append(Share.Participant(userRecordName: p.userRecordName, userName: p.userName, role: p.role,
                                                  permission: p.permission, acceptance: .pending))
                }
            }
            participants = next
        }
        if let old, old.publicPermission != publicPermission {
            // CloudKit removes pending participants when the public permission changes, and every public user
            // when it becomes none.
            participants.removeAll { $0.role != .owner && $0.acceptance == .pending }
            if publicPermission == .none { participants.removeAll { $0.role == .publicUser } }
        }
        if participants.count > Share.maxParticipants {
            throw CKError(.tooManyParticipants, "share '\(name)' would have \(participants.count) participants; CloudKit allows \(Share.maxParticipants)",
                          serverErrorCode: "BAD_REQUEST", hint: "remove participants, or use a public share (anyone with the URL joins)")
        }
        return (Share(publicPermission: publicPermission, participants: participants, rootRecordName: rootName), guid ?? Share.makeShortGUID())
    }

    /// A record takes part in one share only (alreadyShared): the root, an ancestor or a descendant of it must not
    /// be a share's root, and a zone-wide share excludes every other share of its zone.
    package func checkNotShared(root: String?, share: String) throws(CKError) {
        let others = try zoneShares().filter { $0.recordName != share }
        func refuse(_ why: String, _ other: Record) -> CKError {
            CKError(.alreadyShared, "\(why), so share '\(share)' can't be saved", serverErrorCode: "BAD_REQUEST",
                    hint: "a record takes part in one share only: add participants to '\(other.recordName)' instead, or delete it first",
                    details: ["share": .string(other.recordName)])
        }
        if let zoneShare = others.first(where: { $0.recordName == Share.zoneShareName }) {
            throw refuse("zone \(zone.zoneID.zoneName) is shared whole by \(Share.zoneShareName)", zoneShare)
        }
        guard let root else {
            if let other = others.first { throw refuse("zone \(zone.zoneID.zoneName) already holds share '\(other.recordName)'", other) }
            return
        }
        guard let rootRecord = try current(root) else {
            throw CKError(.referenceViolation, "share '\(share)': its root record '\(root)' does not exist in zone \(zone.zoneID.zoneName)",
                          hint: "save the root in the same request as the share")
        }
        if rootRecord.recordType == Share.recordType { throw CKError.invalid("share '\(share)': a share can't be the root of a share") }
        let roots = Dictionary(others.compactMap { s in s.shareInfo?.rootRecordName.map { ($0, s) } }) { a, _ in a }
        // The root and its ancestors.
        var seen = Set<String>()
        var next: String? = root
        while let n = next, seen.insert(n).inserted {
            if let other = roots[n] {
                throw refuse(n == root ? "record '\(root)' is already shared by '\(other.recordName)'"
                                       : "record '\(root)' is below '\(n)', which share '\(other.recordName)' shares", other)
            }
            next = try current(n)?.parent
        }
        // Descendants: another share's root whose parent chain reaches this root.
        for (otherRoot, other) in roots {
            var seenBelow = Set<String>()
            var up = try current(otherRoot)?.parent
            while let n = up, seenBelow.insert(n).inserted {
                if n == root { throw refuse("record '\(otherRoot)' below '\(root)' is already shared by '\(other.recordName)'", other) }
                up = try current(n)?.parent
            }
        }
    }

    /// The live shares of the session's zone, as this request sees them.
    package func zoneShares() throws(CKError) -> [Record] {
        var names = Set<String>()
        if let index = try db.env.index() {
            if try index.holds(logPath, recordType: Share.recordType) {
                names.formUnion(CKDatabase.fold(try db.env.readLog(logPath).entries).values.filter(\.isShare).map(\.recordName))
            }
        } else {
            names.formUnion(CKDatabase.fold(try db.env.readLog(logPath).entries).values.filter(\.isShare).map(\.recordName))
        }
        for (n, r) in overlay where r?.isShare == true { names.insert(n) }
        var out: [Record] = []
        for n in names.sorted() { if let r = try current(n), r.isShare { out.append(r) } }
        return out
    }

    /// After a share is saved: its root points at it (a new version of the root, in the same request).
    package mutating func linkRoot(of share: Record) throws(CKError) {
        guard let rootName = share.shareInfo?.rootRecordName, let root = try current(rootName) else { return }
        if root.share == share.recordName && root.shortGUID == share.shortGUID { return }
        if let other = root.share, other != share.recordName, try current(other) != nil {
            throw CKError(.alreadyShared, "record '\(rootName)' is already shared by '\(other)'", serverErrorCode: "BAD_REQUEST")
        }
        var linked = root
        linked.share = share.recordName
        linked.shortGUID = share.shortGUID
        // The root saved earlier in this request takes the reference in the same version.
        if let i = entries.lastIndex(where: { if case .save(_, let r) = $0 { return r.recordName == rootName }; return false }),
           case .save(let s, _) = entries[i] {
            entries[i] = .save(seq: s, record: linked)
            setOverlay(rootName, linked)
            return
        }
        rewrite(linked)
    }

    /// A new version of a record the server changes itself (a root's share reference, a share's participants).
    package mutating func rewrite(_ record: Record) {
        var r = record
        seq += 1
        r.changeTag = CKDatabase.changeTag(seq: seq)
        r.modified = stamp
        setOverlay(r.recordName, r)
        entries.append(.save(seq: seq, record: r))
    }

    /// In the shared database a record outside the caller's shares is not there: an update or delete of it finds
    /// nothing, and a create of its name is refused without showing it.
    package func sharedView(_ name: String, _ existing: Record?, op: RecordOperation) throws(CKError) -> Record? {
        guard db.scope == .shared, let existing, let view = gate.shares, view.access(existing) == nil else { return existing }
        if op.type == .create {
            throw CKError(.permissionFailure, "CREATE operation not permitted", serverErrorCode: "ACCESS_DENIED",
                          hint: "choose another record name",
                          details: ["context": .string("the name '\(name)' is taken in the owner's zone by a record outside your share"),
                                    "rule": .string("shared database: a record name outside the caller's shares can't be created")])
        }
        throw CKError(.unknownItem, "Record not found: '\(name)' in the shared zone \(zone.zoneID.zoneName)")
    }

    // MARK: Deleting

    /// In the shared database only the owner deletes a hierarchy's root (permissionFailure).
    package func checkSharedDelete(_ record: Record) throws(CKError) {
        guard db.scope == .shared, let view = gate.shares, view.isRoot(record.recordName) else { return }
        throw CKError(.permissionFailure, "delete operation not permitted", serverErrorCode: "ACCESS_DENIED",
                      hint: "only the share's owner deletes the root of a shared hierarchy; a participant leaves with 'ck share leave'",
                      details: ["context": .string("record '\(record.recordName)' is the root of a shared hierarchy"),
                                "rule": .string("shared database: only the owner deletes a shared hierarchy's root")])
    }

    /// A participant deleting a share from its shared database leaves it: the share stays for the others.
    package mutating func leave(_ share: Record) throws(CKError) -> RecordResult {
        guard var info = share.shareInfo, let i = info.participants.firstIndex(where: { $0.userRecordName == db.userRecordName }),
              info.participants[i].acceptance == .accepted else {
            throw CKError(.unknownItem, "Record not found: '\(share.recordName)'")
        }
        info.participants[i].acceptance = .removed
        var r = share
        r.shareInfo = info
        rewrite(r)
        return .deleted(recordName: share.recordName, recordType: share.recordType, cascade: false)
    }

    /// What a deletion in the owner's zone takes with it: deleting a root deletes its share; deleting a share
    /// clears its root's `share` reference (the root keeps its short GUID, so a reshare keeps the URL).
    package mutating func shareCascade(_ deleted: Record) throws(CKError) -> [RecordResult] {
        guard db.scope == .private else { return [] }
        if deleted.isShare, let rootName = deleted.shareInfo?.rootRecordName, var root = try current(rootName), root.share == deleted.recordName {
            root.share = nil
            rewrite(root)
            return []
        }
        if let shareName = deleted.share, let share = try current(shareName), share.isShare {
            removeRecord(share)
            return [.deleted(recordName: shareName, recordType: share.recordType, cascade: true)]
        }
        return []
    }
}
