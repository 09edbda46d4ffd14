import Foundation
import CKModel
import CKStorage

/// What `collectGarbage` did (or, in a dry run, would do).
public struct GarbageReport: Sendable {
    /// Zone logs examined, and those rewritten.
    public var logs = 0
    public var compacted = 0
    /// Log lines and bytes before and after.
    public var linesBefore = 0
    public var linesAfter = 0
    public var bytesBefore = 0
    public var bytesAfter = 0
    /// Asset files no live record refers to, removed, and their bytes.
    public var assetsRemoved = 0
    public var assetBytesRemoved = 0
}

extension CKContainer {
    /// Compacts every zone log of an environment to its live records, and removes asset files no live record
    /// refers to. Change tokens older than a zone's compaction then answer changeTokenExpired, as CloudKit does
    /// once history is gone. `progress` is told bytes of logs done out of the total.
    @discardableResult
    package func collectGarbageBody(_ environment: Environment, dryRun: Bool = false,
                               progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> GarbageReport {
        let env = environmentStore(environment)
        return try writing(env) { (writes) throws(CKError) -> GarbageReport in
            var report = GarbageReport()
            var catalog = try env.readCatalog()
            // Compaction may drop the highest-numbered line; numbers must never be handed out again.
            let highest = try env.highestSeq(catalog: catalog)
            let paths = env.allLogPaths().sorted()
            let total = paths.reduce(0) { $0 + env.fileSize($1) }
            var done = 0
            var referenced = Set<String>()
            var rewrites: [(path: String, bytes: [UInt8], dropped: Int64)] = []
            for path in paths {
                let contents = try env.readLog(path)
                let size = env.fileSize(path)
                var latest: [String: LogEntry] = [:]
                for e in contents.entries { latest[e.recordName] = e }
                var kept: [LogEntry] = []
                for e in latest.values {
                    guard case .save(_, let r) = e else { continue }
                    kept.append(e)
                    for v in r.fields.values { v.collectAssetHashes(into: &referenced) }
                }
                kept.sort { $0.seq < $1.seq }
                let keptSeqs = Set(kept.map(\.seq))
                // An earlier gap line counts as dropped: its number is gone from the lines too.
                let dropped = max(contents.gapSeq, contents.entries.filter { !keptSeqs.contains($0.seq) }.map(\.seq).max() ?? 0)
                report.logs += 1
                report.linesBefore += contents.entries.count
                report.linesAfter += kept.count
                report.bytesBefore += size
                if kept.count < contents.entries.count || contents.tornBytes > 0 {
                    var out: [UInt8] = []
                    for e in kept {
                        e.write(into: &out, batch: nil)
                        out.append(0x0A)
                    }
                    // The log keeps the highest number it dropped, so a rebuilt zones.json (doctor) never hands
                    // it out again: numbers above the kept lines would otherwise be known only to zones.json.
                    if dropped > (kept.last?.seq ?? 0) { out += ZoneLog.gapLine(dropped) }
                    rewrites.append((path, out, dropped))
                    report.compacted += 1
                    report.bytesAfter += out.count
                } else {
                    report.bytesAfter += size
                }
                done += size
                progress(done, total)
            }
            let orphans = env.assetNames().filter { $0.count == 64 && !referenced.contains($0) }
            report.assetsRemoved = orphans.count
            report.assetBytesRemoved = orphans.reduce(0) { $0 + (env.assetSize($1) ?? 0) }
            if dryRun { return report }

            // The catalog first: a crash before a log is rewritten only expires tokens early, never lets an
            // old token read a log whose deletions are gone.
            var catalogChanged = highest > catalog.lastSeq
            catalog.lastSeq = max(catalog.lastSeq, highest)
            for (i, z) in catalog.zones.enumerated() {
                let path = env.logPath(database: z.database, zone: z.zoneID)
                guard let r = rewrites.first(where: { $0.path == path }), r.dropped > z.compactedSeq else { continue }
                catalog.zones[i].compactedSeq = r.dropped
                catalogChanged = true
            }
            if catalogChanged { writes.append(.catalog(catalog)) }
            writes += rewrites.map { .compactedLog(path: $0.path, bytes: $0.bytes) }
            writes += orphans.map { .removeAsset($0) }
            return report
        }
    }
}
