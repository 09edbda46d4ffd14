import CKCore

extension ShareCommand {
    /// One share: `-o json` is the Web Services share record with `currentUserParticipant` and `url`; rows for
    /// people (a `participant` row each: name, role, permission, acceptance); names the share record.
    struct Shown: RowsOutput {
        var share: Record
        var viewer: Share.Participant?
        var zone: String
        var verb: String? = nil

        var json: JSON { ShareResponse.json(share, viewer: viewer) }
        var names: [String] { [share.recordName] }
        var rows: [(String, String)] {
            let info = share.shareInfo
            var rows: [(String, String)] = []
            if let verb { rows.append(("result", verb + " " + share.recordName)) }
            rows += [("share", share.recordName), ("zone", zone), ("owner", info?.owner?.userName ?? share.zoneID.ownerRecordName),
                     ("root", info?.rootRecordName ?? "(the whole zone)"), ("url", share.shareURL ?? "-"),
                     ("publicPermission", info?.publicPermission.rawValue ?? "none")]
            if case .string(let title)? = share.fields[Share.titleKey] { rows.append(("title", title)) }
            for p in info?.participants ?? [] {
                rows.append(("participant", "\(p.userName) \(p.role.rawValue) \(p.permission.rawValue) \(p.acceptance.rawValue)"))
            }
            if let viewer, viewer.role != .owner {
                rows.append(("you", "\(viewer.role.rawValue) \(viewer.permission.rawValue) \(viewer.acceptance.rawValue)"))
            }
            rows.append(("recordChangeTag", share.changeTag))
            return rows
        }
    }

    /// `share list`: `{"shares": [...]}`; a table SHARE ZONE OWNER ROOT ROLE PERMISSION STATUS URL; names the shares.
    struct Listed: CommandOutput {
        var shares: [ShareListing]
        var width: Int?

        var json: JSON { ShareResponse.json(shares) }
        var jsonLines: [JSON] { shares.map { ShareResponse.json($0.entry.share, viewer: $0.participant) } }
        var names: [String] { shares.map(\.entry.share.recordName) }
        private func table(_ headers: [String]) -> Table {
            var t = Table(headers)
            for s in shares {
                let info = s.entry.info
                t.add([s.entry.share.recordName, s.entry.zone.zoneID.zoneName, info.owner?.userName ?? s.entry.zone.zoneID.ownerRecordName,
                       info.rootRecordName ?? "-", s.participant.role.rawValue, s.participant.permission.rawValue,
                       s.participant.acceptance.rawValue, s.entry.share.shareURL ?? "-"])
            }
            return t
        }
        var plain: [String] { table([]).plainLines }
        var table: String {
            if shares.isEmpty { return "No shares (create one with 'ck -z <zone> share create <root record>')\n" }
            return table(["SHARE", "ZONE", "OWNER", "ROOT", "ROLE", "PERMISSION", "STATUS", "URL"]).aligned(width: width)
        }
    }

    /// `share resolve` and `share accept`: the records/resolve result dictionary; rows for people.
    struct Metadata: RowsOutput {
        var metadata: ShareMetadata
        var verb: String?

        var json: JSON { metadata.json }
        var names: [String] { [metadata.entry.share.recordName] }
        var rows: [(String, String)] {
            let e = metadata.entry
            let p = metadata.participant
            var rows: [(String, String)] = []
            if let verb { rows.append(("result", "\(verb) share \(e.share.recordName) of \(e.info.owner?.userName ?? e.zone.zoneID.ownerRecordName)")) }
            rows += [("share", e.share.recordName), ("zone", e.zone.zoneID.zoneName),
                     ("owner", e.info.owner?.userName ?? e.zone.zoneID.ownerRecordName),
                     ("root", e.info.rootRecordName ?? "(the whole zone)"), ("url", e.share.shareURL ?? "-"),
                     ("database", metadata.databaseScope.rawValue), ("role", p.role.rawValue), ("permission", p.permission.rawValue),
                     ("status", p.acceptance.rawValue)]
            if case .string(let title)? = e.share.fields[Share.titleKey] { rows.append(("title", title)) }
            return rows
        }
    }

    /// `share delete` and `share leave`: `{"share", "zone", "outcome"}`; one line, one sentence.
    struct Done: OutcomeOutput {
        var share: String
        var zone: String
        var outcome: String
        var sentence: String

        var json: JSON { .object(["share": .string(share), "zone": .string(zone), "outcome": .string(outcome)]) }
        var names: [String] { [share] }
        var line: String { share + "\t" + outcome }
    }
}
