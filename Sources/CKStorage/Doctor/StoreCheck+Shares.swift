import CKFiles
import CKModel

/// Sharing consistency (sharing.md §7–8): each share where CloudKit keeps one, its root and the root's reference
/// in step, one share per record, and a participant list CloudKit would accept. Repair fixes only what CloudKit's
/// own rules settle (a share whose root is gone is deleted, as CloudKit deletes it with its root; a root's
/// reference to a share that isn't its own is cleared); the rest needs a person and is reported.
extension StoreCheck {
    package mutating func checkShares(_ env: EnvironmentStore) {
        for path in sharingLogs {
            // A log that can't be read was reported by checkLog.
            guard let contents = try? ZoneLog.read(path) else { continue }
            let live = ZoneLog.fold(contents.entries)
            let shares = live.values.filter(\.isShare).sorted { $0.recordName < $1.recordName }
            let pointing = live.values.filter { $0.share != nil && !$0.isShare }.sorted { $0.recordName < $1.recordName }
            guard !shares.isEmpty || !pointing.isEmpty else { continue }
            checkShares(path, env: env, contents: contents, live: live, shares: shares, pointing: pointing)
        }
    }

    /// The zone a log holds, as findings name it.
    private func zoneName(_ path: String, env: EnvironmentStore) -> (text: String, isPublic: Bool, isDefault: Bool) {
        let name = String(PathName.last(path).dropLast(".jsonl".count))
        let isPublic = path.hasPrefix(env.dir + "/public/")
        let owner = PathName.last(PathName.parent(path))
        return (isPublic ? "public zone \(name)" : "zone \(name) of \(owner)", isPublic, name == Names.defaultZoneName)
    }

    private mutating func checkShares(_ path: String, env: EnvironmentStore, contents: ZoneLogContents, live: [String: Record],
                                      shares: [Record], pointing: [Record]) {
        let zone = zoneName(path, env: env)
        let owner = PathName.last(PathName.parent(path))
        var fixes: [LogEntry] = []
        func problem(_ message: String, rule: String, fix: String) {
            note(.problem, path, "\(zone.text): \(message) (rule: \(rule))", fix: fix)
        }
        for s in shares {
            if zone.isPublic || zone.isDefault {
                problem("share '\(s.recordName)' is in the \(zone.isPublic ? "public database" : "default zone")",
                        rule: "a share lives in a custom zone of its owner's private database",
                        fix: "delete it by hand, or export the records and share them from a custom zone")
            }
            guard let info = s.shareInfo else {
                problem("share '\(s.recordName)' has no participants and no owner", rule: "a share lists its owner as a participant",
                        fix: "delete the share ('ck share delete') and share the record again")
                continue
            }
            if info.owner == nil || (!zone.isPublic && info.owner?.userRecordName != owner) {
                problem("share '\(s.recordName)' has no owner participant" + (info.owner.map { " of this zone (it names \($0.userRecordName))" } ?? ""),
                        rule: "a share lists its zone's owner as its owner participant",
                        fix: "delete the share ('ck share delete') and share the record again")
            }
            var seen = Set<String>()
            let twice = Set(info.participants.map(\.userRecordName).filter { !seen.insert($0).inserted }).sorted()
            if !twice.isEmpty {
                problem("share '\(s.recordName)' lists \(twice.joined(separator: ", ")) more than once", rule: "each user is a participant once",
                        fix: "remove the extra entry from the share's participants by hand")
            }
            if info.participants.count > Share.maxParticipants {
                problem("share '\(s.recordName)' has \(info.participants.count) participants",
                        rule: "a share has at most \(Share.maxParticipants) participants",
                        fix: "remove participants ('ck share remove') until \(Share.maxParticipants) are left")
            }
            if let rootName = info.rootRecordName, live[rootName] == nil {
                // CloudKit deletes a share with its root: the share's deletion is what that would have logged.
                if repair {
                    fixes.append(.delete(seq: 0, recordName: s.recordName, recordType: Share.recordType, at: now(), userRecordName: owner))
                }
                note(.problem, path, "\(zone.text): share '\(s.recordName)' shares '\(rootName)', which does not exist (rule: a share is deleted with its root)",
                     fix: repair ? "the share is deleted, as CloudKit deletes it with its root" : "'ck doctor --repair' deletes the share",
                     repaired: false)
            }
        }
        for root in pointing {
            guard let name = root.share else { continue }
            let target = live[name]
            let why: String?
            if target == nil || target?.isShare == false {
                why = "names share '\(name)', which does not exist"
            } else if let sharesRoot = target?.shareInfo?.rootRecordName, sharesRoot != root.recordName {
                why = "names share '\(name)', which shares '\(sharesRoot)'"
            } else if target?.shareInfo != nil, target?.shareInfo?.rootRecordName == nil {
                why = "names share '\(name)', which shares the whole zone, not one hierarchy"
            } else {
                why = nil
            }
            guard let why else { continue }
            if repair {
                var r = root
                r.share = nil
                fixes.append(.save(seq: 0, record: r))
            }
            note(.problem, path, "\(zone.text): record '\(root.recordName)' \(why) (rule: a root's share reference names the share of that root)",
                 fix: repair ? "the reference is cleared (the record keeps its short GUID)" : "'ck doctor --repair' clears the reference")
        }
        checkNestedShares(path, zone: zone.text, live: live, shares: shares)
        guard repair, !fixes.isEmpty else { return }
        apply(fixes, to: path, env: env, contents: contents)
    }

    /// A record reached by two shares: a hierarchy's root below another share's root, or any share in a zone
    /// shared whole. Nothing is repaired: which share should go is the owner's choice.
    private mutating func checkNestedShares(_ path: String, zone: String, live: [String: Record], shares: [Record]) {
        var roots: [String: String] = [:]
        for s in shares { if let r = s.shareInfo?.rootRecordName, live[r] != nil { roots[r] = s.recordName } }
        let whole = shares.first { $0.shareInfo != nil && $0.shareInfo?.rootRecordName == nil }
        for rootName in roots.keys.sorted() {
            guard let share = roots[rootName] else { continue }
            if let whole {
                note(.problem, path, "\(zone): '\(rootName)' and the records below it are reached by two shares, '\(share)' and the zone-wide '\(whole.recordName)' (rule: a record belongs to one share)",
                     fix: "delete one of the shares ('ck share delete')")
                continue
            }
            var seen: Set<String> = [rootName]
            var up = live[rootName]?.parent
            while let p = up, seen.insert(p).inserted {
                if let other = roots[p] {
                    note(.problem, path, "\(zone): '\(rootName)' and the records below it are reached by two shares, '\(share)' and '\(other)' (of '\(p)' above it) (rule: a record belongs to one share)",
                         fix: "delete one of the shares ('ck share delete'), or move '\(rootName)' out of '\(p)''s hierarchy")
                    break
                }
                up = live[p]?.parent
            }
        }
    }

    /// Appends a repair's lines to a zone log with fresh sequence numbers, as a writer would.
    private mutating func apply(_ fixes: [LogEntry], to path: String, env: EnvironmentStore, contents: ZoneLogContents) {
        do throws(CKError) {
            var seq = try env.highestSeq(catalog: ZoneCatalog())
            if let o = try JSONFile.readObject(env.zonesPath), let catalog = try? ZoneCatalog(json: o, path: env.zonesPath) {
                seq = max(seq, catalog.lastSeq)
            }
            var entries: [LogEntry] = []
            for f in fixes {
                seq += 1
                switch f {
                case .save(_, var r):
                    r.changeTag = String(seq, radix: 36)
                    r.modified = RecordStamp(timestamp: now(), userRecordName: r.modified.userRecordName, deviceID: RecordStamp.deviceID)
                    entries.append(.save(seq: seq, record: r))
                case .delete(_, let n, let t, let at, let u):
                    entries.append(.delete(seq: seq, recordName: n, recordType: t, at: at, userRecordName: u))
                }
            }
            _ = try env.apply([.records(path: path, entries: entries, tail: contents, notifications: nil), .syncLog(path)])
            try env.index()?.sync(path, warnings: &env.warnings)
            // Every finding about this zone's shares that the lines settle is marked repaired.
            for i in findings.indices where findings[i].place == path && findings[i].severity == .problem
                && (findings[i].message.contains("which does not exist") || findings[i].message.contains("which shares")) {
                findings[i].repaired = true
            }
        } catch {
            note(.problem, path, "could not repair the shares: \(error.reason)", fix: "check permissions")
        }
    }
}
