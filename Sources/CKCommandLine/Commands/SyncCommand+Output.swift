import CKCore

extension SyncCommand {
    /// A sync's report (`SyncReport`'s JSON, with the key-value sync under `keyValue` when given); plain a tagged
    /// line per thing done; for people a summary, a table per zone, and a line per merge, drop, retry or kept edit.
    struct Report: CommandOutput {
        var report: SyncReport
        /// The device's key-value sync, when it ran.
        var keyValue: KVSyncReport?

        var json: JSON { report.json(keyValue: keyValue) }

        var plain: [String] {
            let r = report
            var lines: [String] = []
            if let a = r.accountChange { lines.append("accountChange\t\(a.from.rawValue)\t\(a.to.rawValue)" + (a.type.map { "\t" + $0.rawValue } ?? "")) }
            for p in r.pushedSaves { lines.append("pushed\tsave\t\(p.zoneName)\t\(p.recordName)") }
            for p in r.pushedDeletes { lines.append("pushed\tdelete\t\(p.zoneName)\t\(p.recordName)") }
            for m in r.merges {
                let conflicts = m.conflicts.map { "\($0.key)=\($0.winner.rawValue)" }.joined(separator: ",")
                lines.append("merged\t\(m.zoneName)\t\(m.recordName)\t\(m.mergedKeys.joined(separator: ","))\t\(conflicts)")
            }
            for p in r.pulled { lines.append("pulled\t\(p.zoneName)\t\(p.saved)\t\(p.deleted)" + (p.zoneDeleted ? "\tzoneDeleted" : "")) }
            for z in r.refetched { lines.append("refetched\t\(z)") }
            for d in r.dropped { lines.append("dropped\t\(d.zoneName)\t\(d.recordName)\t\(RecordText.escape(d.reason))") }
            for k in r.kept { lines.append("kept\t\(k.zoneName)\t\(k.recordName ?? "-")\t\(k.error.code.name)\t\(RecordText.escape(k.error.reason))") }
            for c in r.conflicts { lines.append("conflict\t\(c.zoneName)\t\(c.recordName)\t\(c.serverChangeTag ?? "-")\t\(RecordText.escape(c.error.reason))") }
            for t in r.retries { lines.append("retried\t\(t.operation)\t\(t.zoneName ?? "-")\t\(t.code.name)\t\(t.wait)") }
            for z in r.recreated { lines.append("recreated\t\(z)") }
            for z in r.purged { lines.append("purged\t\(z)") }
            return lines + (keyValue.map(KVSyncCommand.plainLines) ?? [])
        }

        /// Nothing was pushed, pulled or reported: scripts get no lines, people get one saying so.
        var upToDate: Bool {
            let r = report
            return r.pulledSaves == 0 && r.pulledDeletes == 0 && !r.pulled.contains { $0.zoneDeleted }
                && plain.allSatisfy { $0.hasPrefix("pulled\t") }
        }

        var table: String {
            let r = report
            if upToDate { return "\(r.device) is up to date: nothing to push or pull\n" }
            var zones: [String] = []
            func add(_ z: String) { if !zones.contains(z) { zones.append(z) } }
            r.pushedSaves.forEach { add($0.zoneName) }
            r.pushedDeletes.forEach { add($0.zoneName) }
            r.pulled.forEach { add($0.zoneName) }
            r.kept.forEach { add($0.zoneName) }
            r.conflicts.forEach { add($0.zoneName) }
            var text = ""
            if let a = r.accountChange {
                text += "account changed: \(a.from.rawValue) → \(a.to.rawValue)" + (a.type.map { " (\($0.rawValue))" } ?? "") + "\n"
                if a.clearedPendingChanges + a.removedRecords > 0 {
                    text += "cleared \(plural(a.clearedPendingChanges, "pending edit")) and removed \(plural(a.removedRecords, "record")) of the previous account\n"
                }
            }
            text += "Synced \(r.device): pushed \(plural(r.pushedSaves.count, "save")) and \(plural(r.pushedDeletes.count, "delete")), pulled \(plural(r.pulledSaves, "save")) and \(plural(r.pulledDeletes, "delete"))\n"
            if !zones.isEmpty {
                var t = Table(["ZONE", "PUSHED", "PUSHED-DEL", "PULLED", "PULLED-DEL", "KEPT"])
                for z in zones.sorted() {
                    let pulled = r.pulled.filter { $0.zoneName == z }
                    let kept = r.kept.filter { $0.zoneName == z }.count + r.conflicts.filter { $0.zoneName == z }.count
                    t.add([z + (pulled.contains { $0.zoneDeleted } ? " (deleted)" : ""),
                           String(r.pushedSaves.filter { $0.zoneName == z }.count),
                           String(r.pushedDeletes.filter { $0.zoneName == z }.count),
                           String(pulled.reduce(0) { $0 + $1.saved }), String(pulled.reduce(0) { $0 + $1.deleted }),
                           String(kept)])
                }
                text += t.aligned()
            }
            var lines: [String] = []
            for m in r.merges { lines.append("merged \(m.recordName) in \(m.zoneName): \(mergeText(m))") }
            for z in r.refetched { lines.append("refetched \(z): its change token had expired") }
            for d in r.dropped { lines.append("dropped \(d.recordName) in \(d.zoneName): \(d.reason)") }
            for k in r.kept { lines.append("kept \(k.recordName ?? "edits") in \(k.zoneName): \(k.error.code.name): \(k.error.reason)") }
            for c in r.conflicts { lines.append("conflict \(c.recordName) in \(c.zoneName): \(c.error.reason)") }
            for t in r.retries { lines.append("retried \(t.operation)\(t.zoneName.map { " in \($0)" } ?? "") after \(t.code.name), waiting \(t.wait) seconds") }
            for z in r.recreated { lines.append("recreated \(z): the zone was gone from the server; uploaded what the device holds") }
            for z in r.purged { lines.append("purged \(z): the user deleted the zone from iCloud settings; the device wiped it and will not upload it again") }
            if let kv = keyValue, !kv.isEmpty { lines += [KVSyncCommand.summary(kv)] + KVSyncCommand.detailLines(kv) }
            return text + Self.text(lines)
        }
    }
}
