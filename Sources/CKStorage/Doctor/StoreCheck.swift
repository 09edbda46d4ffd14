import Foundation
#if canImport(Glibc)
import Glibc
import CKFiles
import CKModel
import CKSchema
#endif

/// Checks a store's files without changing them; with `repair`, moves bad data aside into
/// `<store>/lost+found/<time>/` (never deleting it) and rewrites what can be rebuilt. What ck makes is what
/// `StoreLayout` lists; anything else is reported as a stranger.
package struct StoreCheck {
    package let root: StoreRoot
    package let repair: Bool
    /// The store's clock, which rebuilt files are stamped with (lost+found is named by the real time).
    package let now: () -> Int64
    package let indexEnabled: Bool
    package var findings: [DoctorFinding] = []
    package var lostFound: String? = nil
    /// Where each sequence number of the environment being checked was met: numbers are unique per environment.
    package var seqSeen: [Int64: String] = [:]
    /// Checks a faults.json beyond its JSON: the rules are the server layer's, which reads them.
    package var checkFaultRules: (FaultsFile) throws(CKError) -> Void = { _ in }
    /// Logs of the environment being checked that hold a share or a shared root: only these are read whole for
    /// the sharing checks, so a store without shares costs nothing more.
    package var sharingLogs: [String] = []

    package init(root: StoreRoot, repair: Bool, now: @escaping () -> Int64, indexEnabled: Bool) {
        self.root = root
        self.repair = repair
        self.now = now
        self.indexEnabled = indexEnabled
    }

    package static func examine(_ root: StoreRoot, repair: Bool, now: @escaping () -> Int64, indexEnabled: Bool,
                                faultRules: @escaping (FaultsFile) throws(CKError) -> Void = { _ in }) throws(CKError) -> [DoctorFinding] {
        // A store of a newer format is not checked (nor "repaired") by rules that don't apply to it.
        if let f = (try? root.readConfig())??["format"]?.int64Value, f > StoreLayout.formatVersion {
            throw CKError(.incompatibleVersion, "\(root.configPath): store format \(f) is newer than this ck understands (\(StoreLayout.formatVersion))",
                          hint: "use a ck that understands it; nothing was checked or changed")
        }
        var d = StoreCheck(root: root, repair: repair, now: now, indexEnabled: indexEnabled)
        d.checkFaultRules = faultRules
        let lock = try FileLock(path: root.lockPath, exclusive: repair)
        defer { lock.unlock() }
        d.checkLinks()
        d.checkInterrupted(root.path, permits: IntentRules.root) { () throws(CKError) -> String? in try root.finishInterrupted() }
        d.checkRoot()
        for id in FileIO.list(root.path + "/" + StoreLayout.containersName) where !id.hasPrefix(".") {
            d.checkContainer(id)
        }
        return d.findings
    }

    /// Whether ck makes `path` (a data file, lock or cache the layout lists; not a temporary or leftover).
    package func isKnown(_ path: String) -> Bool {
        StoreLayout.entry(for: StoreCheck.relative(path, root.path), including: [.data, .lock, .cache]) != nil
    }

    package mutating func note(_ s: DoctorFinding.Severity, _ place: String, _ message: String, fix: String, repaired: Bool = false) {
        if repaired {
            // What was found about this file (any of its lines) is dealt with by this repair.
            let file = place.split(separator: ":").first.map(String.init) ?? place
            for i in findings.indices where findings[i].place.hasPrefix(file) && findings[i].severity == .problem { findings[i].repaired = true }
        }
        findings.append(DoctorFinding(severity: s, place: place, message: message, fix: fix, repaired: repaired))
    }

    /// Notes an error about a file: at the place the error names (a line of `path`, say), else at `path`.
    package mutating func note(_ s: DoctorFinding.Severity, _ error: CKError, at path: String, fix: String) {
        note(s, error.place ?? path, error.message, fix: fix)
    }

    /// Where repaired-away data goes; created on first use.
    package mutating func aside(_ path: String) -> String? {
        if lostFound == nil {
            // The real time, not the store's clock: a fixed clock would give two repairs one directory, and a
            // second move there would replace what the first kept.
            let real = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
            let stamp = ISO8601.format(milliseconds: real).replacingOccurrences(of: ":", with: "-")
            lostFound = root.path + "/lost+found/" + stamp
        }
        guard let base = lostFound else { return nil }
        let rel = path.hasPrefix(root.path + "/") ? String(path.dropFirst(root.path.count + 1)) : PathName.last(path)
        let dest = base + "/" + rel
        do throws(CKError) { try FileIO.makeDirectory(PathName.parent(dest)) } catch {
            // Nothing is repaired that would lose data: what needed lost+found stays as it was.
            let message = "can't keep what a repair removes: \(error.reason)"
            if !findings.contains(where: { $0.message == message }) {
                note(.problem, base, message, fix: "make \(root.path)/lost+found a directory, then run 'ck doctor --repair' again")
            }
            return nil
        }
        return dest
    }

    /// Moves a file aside; returns where it went.
    package mutating func moveAside(_ path: String) -> String? {
        guard let dest = aside(path), (try? FileIO.rename(path, dest)) != nil else { return nil }
        return dest
    }

    package static func relative(_ path: String, _ root: String) -> String {
        path.hasPrefix(root + "/") ? String(path.dropFirst(root.count + 1)) : path
    }

    // MARK: Checks

    package mutating func checkJSON(_ path: String, required: Bool) -> [String: JSON]? {
        do {
            guard let o = try JSONFile.readObject(path) else {
                if required { note(.problem, path, "missing", fix: "restore it, or run 'ck doctor --repair' to recreate it") }
                return nil
            }
            return o
        } catch {
            note(.problem, error, at: path,
                 fix: "fix it by hand, or run 'ck doctor --repair' to move it aside into lost+found and rebuild it")
            return nil
        }
    }

    /// Checks a JSON file whose absence means "nothing" (`without` says what that leaves), its object handed to
    /// `validate`: with repair, a damaged one is moved into lost+found, since no command can use it and none may
    /// overwrite it.
    package mutating func checkOptional(_ path: String, without: String, _ validate: ([String: JSON]) throws(CKError) -> Void) {
        let problem: CKError
        do throws(CKError) {
            guard let object = try JSONFile.readObject(path) else { return }
            try validate(object)
            return
        } catch { problem = error }
        if repair, let dest = moveAside(path) {
            note(.problem, problem.place ?? path, problem.message, fix: "moved to \(dest); \(without)", repaired: true)
        } else {
            note(.problem, problem, at: path, fix: "fix it by hand, or 'ck doctor --repair' moves it into lost+found (\(without))")
        }
    }

    package mutating func checkRoot() {
        let config = root.configPath
        let read = checkJSON(config, required: true)
        if let current = read?["currentContainer"]?.stringValue, !root.hasContainer(current) {
            checkCurrentContainer(current)
        }
        // A damaged clock.json leaves ck on the real time (with a warning at every command).
        let clock = ClockFile(root: root.path)
        checkOptional(clock.path, without: "the store's clock is then the real time") { (o) throws(CKError) in
            _ = try StoreClock(json: o, path: clock.path)
        }
        // serve.json is a cache, but a broken one stops 'ck serve log' until it is removed.
        let serve = root.path + "/serve.json"
        checkOptional(serve, without: "'ck serve log' then finds no server until one starts") { (o) throws(CKError) in
            guard o["url"]?.stringValue != nil, o["pid"]?.int64Value.flatMap({ Int32(exactly: $0) }) != nil else {
                throw CKError.corrupt(path: serve, "not a ck serve advertisement ({url, pid, started})")
            }
        }
        if read == nil, repair {
            let moved = FileIO.exists(config) ? moveAside(config) : nil
            let first = FileIO.list(root.path + "/" + StoreLayout.containersName).first { root.hasContainer($0) }
            do {
                try root.writeConfig(StoreRoot.config(current: first))
                note(.problem, config, "rewritten", fix: "a new ck.json points at \(first ?? "no container")" + (moved.map { "; the old file is \($0)" } ?? ""), repaired: true)
            } catch { note(.problem, config, "could not rewrite: \(error.reason)", fix: "check permissions") }
        }
        let entries = Set(checkEntries(root.path))
        for name in FileIO.list(root.path) where !isKnown(root.path + "/" + name) && entries.contains(name)
            && !name.hasPrefix(Intent.pendingPrefix) && name != Intent.fileName {
            note(.warning, root.path + "/" + name, "not a file ck makes", fix: "move it out of the store")
        }
    }

    /// ck.json names a current container the store lacks: every command without --container fails. Repair
    /// points ck.json at an existing container (the first), or at none, keeping the old file in lost+found.
    package mutating func checkCurrentContainer(_ current: String) {
        let config = root.configPath
        let containers = root.containerIDs()
        let message = "names '\(Names.describe(current))' as the current container, but the store has no such container"
        guard repair else {
            let use = containers.first.map { "'ck container use \($0)', " } ?? ""
            note(.problem, config, message, fix: "\(use)'ck container create \(Names.describe(current)) --use', or 'ck doctor --repair' to point it at "
                 + (containers.first.map { "'\($0)'" } ?? "no container"))
            return
        }
        // Under the root's exclusive lock, as the rewrite of a broken ck.json: no command sees it missing.
        guard let kept = moveAside(config) else {
            note(.problem, config, message, fix: "'ck container create \(Names.describe(current)) --use', or 'ck container use' another")
            return
        }
        do {
            try root.writeConfig(StoreRoot.config(current: containers.first))
            note(.problem, config, message, fix: "now points at \(containers.first.map { "'\($0)'" } ?? "no container"); the old file is \(kept)", repaired: true)
        } catch { note(.problem, config, "could not rewrite: \(error.reason)", fix: "check permissions") }
    }

    package mutating func checkContainer(_ id: String) {
        let dir = root.containerDir(id)
        let infoPath = root.containerInfoPath(id)
        if !FileIO.lexists(infoPath), FileIO.isDirectory(dir), StoreCheck.holdsNoData(dir) {
            // What a 'container create' killed before its container.json leaves (older ck built it in place).
            let what = "a half-made container: no container.json and no data (a 'container create' that was interrupted)"
            if repair, let dest = moveAside(dir) {
                note(.problem, dir, what, fix: "moved to \(dest); 'ck container create \(id)' makes it anew", repaired: true)
            } else {
                note(.problem, dir, what, fix: "'ck doctor --repair' moves it into lost+found, or 'ck container create \(id)' completes it")
            }
            return
        }
        let info = checkJSON(infoPath, required: true)
        var infoOK = info != nil
        if let o = info {
            do throws(CKError) { try ContainerFile.check(o, path: infoPath) } catch {
                infoOK = false
                if !repair { note(.problem, error, at: infoPath, fix: "'ck doctor --repair' moves it aside and writes a new one") }
            }
        }
        if !infoOK, repair {
            let moved = FileIO.exists(infoPath) ? moveAside(infoPath) : nil
            do {
                try ContainerFile(path: infoPath).write(ContainerFile.fresh(id, created: now()))
                note(.problem, infoPath, "rewritten with no users listed", fix: moved.map { "the old file is \($0)" } ?? "recreated", repaired: true)
            } catch { note(.problem, infoPath, "could not rewrite: \(error.reason)", fix: "check permissions") }
        }
        let authPath = root.serveAuthPath(id)
        checkOptional(authPath, without: "ck serve then has no tokens or keys for this container") { (_) throws(CKError) in
            _ = try ServeAuthFile(path: authPath).read()
        }
        for env in Environment.allCases {
            let envDir = dir + "/" + env.rawValue
            guard FileIO.isDirectory(envDir) else { continue }
            let envStore = EnvironmentStore(containerDir: dir, environment: env, indexEnabled: indexEnabled)
            do {
                try envStore.locked(exclusive: repair, recover: false) { () throws(CKError) in
                    checkPendingNotifications(envStore)
                    checkInterrupted(envStore.dir, permits: IntentRules.environment) { () throws(CKError) -> String? in try envStore.finishInterrupted() }
                    checkEnvironment(envStore)
                }
            } catch {
                note(.problem, error, at: envDir, fix: "check permissions and locks")
            }
        }
        let entries = Set(checkEntries(dir))
        for name in FileIO.list(dir) where !isKnown(dir + "/" + name) && entries.contains(name) {
            note(.warning, dir + "/" + name, "not a file ck makes", fix: "move it out of the store")
        }
    }

    /// Whether a container directory holds only what creating it makes (environments with empty trees, schema,
    /// zone catalog, lock): nothing a person could lose. Links are not followed.
    package static func holdsNoData(_ dir: String) -> Bool {
        for env in FileIO.list(dir) {
            let envDir = dir + "/" + env
            guard Environment(rawValue: env) != nil, FileIO.isDirectory(envDir) else { return false }
            for name in FileIO.list(envDir) {
                let path = envDir + "/" + name
                if StoreLayout.environmentTrees.contains(name) {
                    guard FileIO.isDirectory(path), FileIO.list(path).isEmpty else { return false }
                } else if name == "schema.json" || name == "zones.json" || name == StoreLayout.lockName || name.contains(".tmp-") {
                    guard !FileIO.isSymlink(path) else { return false }
                } else {
                    return false
                }
            }
        }
        return true
    }

    package mutating func checkEnvironment(_ env: EnvironmentStore) {
        seqSeen = [:]
        sharingLogs = []
        // Schema.
        if let o = checkJSON(env.schemaPath, required: false) {
            do { _ = try Schema(json: o, path: env.schemaPath) } catch {
                note(.problem, error, at: env.schemaPath, fix: "fix it by hand, or 'ck doctor --repair' moves it aside and starts an empty schema")
                repairSchema(env)
            }
        } else if FileIO.exists(env.schemaPath) {
            repairSchema(env)
        }
        // Zones.
        var zonesOK = true
        if let o = checkJSON(env.zonesPath, required: false) {
            do { _ = try ZoneCatalog(json: o, path: env.zonesPath) } catch {
                zonesOK = false
                note(.problem, error, at: env.zonesPath, fix: "'ck doctor --repair' rebuilds it from the zone logs")
            }
        } else if FileIO.exists(env.zonesPath) {
            zonesOK = false
        }
        if !zonesOK && repair { rebuildZones(env) }
        // Logs.
        var referenced = Set<String>()
        for path in env.allLogPaths() { checkLog(path, env: env, assets: &referenced) }
        checkShares(env)
        // Subscriptions and notifications.
        checkSubscriptions(env)
        for name in FileIO.list(env.notificationsDir).sorted() where !name.hasPrefix(".") && !FileIO.isSymlink(env.notificationsDir + "/" + name) {
            let path = env.notificationsDir + "/" + name
            if name.hasSuffix(".jsonl") { checkNotifications(path) } else { note(.warning, path, "not a file ck makes", fix: "move it out of the store") }
        }
        checkKeyValueStores(env)
        let faults = FaultsFile(envDir: env.dir)
        let faultRules = checkFaultRules
        checkOptional(faults.path, without: "the environment then has no fault rules") { (_) throws(CKError) in try faultRules(faults) }
        // Index.
        checkIndex(env)
        // Assets records refer to but the store lacks.
        let present = Set(FileIO.list(env.assetsDir).filter { !$0.hasPrefix(".") })
        for hash in referenced.sorted() where !present.contains(hash) {
            note(.problem, env.assetsDir + "/" + hash, "a record refers to this asset but its file is missing",
                 fix: "restore the file (its name is the SHA-256 of its bytes), or save the record again with the asset")
        }
        // Assets nobody refers to.
        for hash in FileIO.list(env.assetsDir) where !referenced.contains(hash) && !hash.hasPrefix(".") && !FileIO.isSymlink(env.assetsDir + "/" + hash) {
            let path = env.assetsDir + "/" + hash
            if repair, let dest = moveAside(path) {
                note(.warning, path, "asset no live record refers to", fix: "moved to \(dest)", repaired: true)
            } else {
                note(.warning, path, "asset no live record refers to", fix: "'ck gc' removes it, or 'ck doctor --repair' moves it into lost+found")
            }
        }
        // Leftovers and strangers.
        for sub in ["public", "assets", "notifications"] { _ = checkEntries(env.dir + "/" + sub) }
        for user in checkEntries(env.dir + "/private") { _ = checkEntries(env.dir + "/private/" + user) }
        // Pending trees and notifications were reported by checkInterrupted and checkPendingNotifications.
        for name in FileIO.list(env.dir) where !isKnown(env.dir + "/" + name) && name != PendingNotifications.fileName && !name.hasPrefix(Intent.pendingPrefix)
            && !name.hasPrefix(FileIO.deletingPrefix) && name != Intent.fileName {
            let path = env.dir + "/" + name
            if name.contains(".tmp-") {
                if repair, let dest = moveAside(path) {
                    note(.warning, path, "temporary file left by an interrupted write", fix: "moved to \(dest)", repaired: true)
                } else {
                    note(.warning, path, "temporary file left by an interrupted write", fix: "harmless; 'ck doctor --repair' moves it aside")
                }
            } else {
                note(.warning, path, "not a file ck makes", fix: "move it out of the store")
            }
        }
    }

    package mutating func repairSchema(_ env: EnvironmentStore) {
        guard repair else { return }
        let moved = moveAside(env.schemaPath)
        do {
            try env.apply([.schema(Schema())])
            note(.problem, env.schemaPath, "replaced by an empty schema", fix: "the broken file is \(moved ?? "gone"); fix it and put it back, or import a .ckdb", repaired: true)
        } catch { note(.problem, env.schemaPath, "could not rewrite: \(error.reason)", fix: "check permissions") }
    }

    package mutating func rebuildZones(_ env: EnvironmentStore) {
        // Sequence numbers must never repeat: the broken file's own lastSeq counts if it can still be read.
        let salvaged = ((try? FileIO.read(env.zonesPath)) ?? nil).map(StoreCheck.salvageLastSeq) ?? 0
        let moved = FileIO.exists(env.zonesPath) ? moveAside(env.zonesPath) : nil
        var catalog = ZoneCatalog()
        var seq = max(salvaged, (try? env.highestSeq(catalog: ZoneCatalog())) ?? 0)
        let highest = seq
        for user in FileIO.list(env.dir + "/private") where !user.hasPrefix(".") {
            for file in FileIO.list(env.dir + "/private/" + user) where file.hasSuffix(".jsonl") {
                let name = String(file.dropLast(6))
                if name == Names.defaultZoneName { continue }
                // A new number for each zone, so database tokens see it changed; and its history counts as
                // compacted up to now (what gc removed is unknown), so older zone tokens expire and devices refetch.
                seq += 1
                var zone = Zone(zoneID: ZoneID(zoneName: name, ownerRecordName: user), database: .private,
                                capabilities: ZoneCapability.defaults, created: now(), seq: seq)
                zone.compactedSeq = highest
                catalog.zones.append(zone)
            }
        }
        catalog.lastSeq = seq
        do {
            try env.apply([.catalog(catalog)])
            note(.problem, env.zonesPath, "rebuilt from \(catalog.zones.count) zone log(s) with default capabilities",
                 fix: moved.map { "the old file is \($0)" } ?? "recreated", repaired: true)
        } catch { note(.problem, env.zonesPath, "could not rewrite: \(error.reason)", fix: "check permissions") }
    }

    /// The largest `"lastSeq": N` in what is left of a broken zones.json (0 if none).
    package static func salvageLastSeq(_ bytes: [UInt8]) -> Int64 {
        let text = String(decoding: bytes, as: UTF8.self)
        var best: Int64 = 0
        var rest = Substring(text)
        while let r = rest.range(of: "\"lastSeq\"") {
            rest = rest[r.upperBound...]
            let digits = rest.drop { $0 == " " || $0 == ":" || $0 == "\n" || $0 == "\t" }.prefix { $0.isASCII && $0.isNumber }
            if let n = Int64(digits) { best = max(best, n) }
        }
        return best
    }

    /// Checks every line of a log; with repair, rewrites it without bad lines and cuts a torn tail,
    /// keeping what was removed in lost+found. The log is read in pieces and only what a finding needs is
    /// kept, so memory stays flat whatever its size (a repair holds the log's good lines while it rewrites it).
    package mutating func checkLog(_ path: String, env: EnvironmentStore, assets: inout Set<String>) {
        var removed = Set<Int>()
        var badLines: [Int] = []
        // The asset hashes of each live record that has any: the assets the log still refers to.
        var liveAssets: [String: Set<String>] = [:]
        var incomplete: [Int] = []
        var lastSeq: Int64 = 0
        var torn: (line: Int, bytes: Int)? = nil
        // The lines of a request of several lines ({"batch": count} on its first) wait until it is whole: a request
        // a crash cut short was never applied, and its whole lines stand or fall together with it.
        var group: (lines: [(number: Int, entry: LogEntry)], remaining: Int)? = nil
        // The log's last line that is not blank ends with a newline: nothing was cut short by a crash there.
        var endsWhole = true
        // A request whose last lines are missing though the log ends whole (a shortened log): its lines are data.
        var short: (first: Int, expected: Int, present: Int, entry: LogEntry, lastSeq: Int64)? = nil
        func count(_ number: Int, _ seq: Int64) {
            // Sequence numbers grow along a log and never repeat in an environment: change tags and tokens rest on it.
            let place = "\(path):\(number)"
            if seq <= lastSeq {
                note(.problem, place, "sequence number \(seq) does not follow \(lastSeq) (out of order or repeated)",
                     fix: "the log was edited or spliced by hand; restore it from a copy (doctor does not reorder history)")
            } else if let other = seqSeen[seq] {
                note(.problem, place, "sequence number \(seq) is used again (first at \(other))",
                     fix: "the logs were edited or copied by hand; restore them from a copy (doctor does not renumber history)")
            }
            lastSeq = max(lastSeq, seq)
            if seqSeen[seq] == nil { seqSeen[seq] = place }
        }
        func accept(_ number: Int, _ entry: LogEntry) {
            count(number, entry.seq)
            switch entry {
            case .save(_, let r):
                if (r.isShare || r.share != nil) && sharingLogs.last != path { sharingLogs.append(path) }
                var hashes = Set<String>()
                for v in r.fields.values { v.collectAssetHashes(into: &hashes) }
                liveAssets[r.recordName] = hashes.isEmpty ? nil : hashes
            case .delete(_, let n, _, _, _): liveAssets[n] = nil
            }
        }
        let read: Bool
        do {
            read = try JSONLines.forEach(path: path) { line in
                if line.isBlank { return }
                endsWhole = line.terminated
                let parsed = try? JSON.parse(utf8: line.bytes)
                if let parsed, let seq = ZoneLog.gapSeq(parsed) {
                    count(line.number, seq)
                    return
                }
                guard let json = parsed, let entry = try? LogEntry(json: json, path: path) else {
                    if line.terminated { badLines.append(line.number) } else { torn = (line.number, line.bytes.count) }
                    removed.insert(line.number)
                    return
                }
                if let count = json["batch"]?.int64Value, count > 1 {
                    // A new request: one still open before it was cut short (and its lines were never applied).
                    for held in group?.lines ?? [] { accept(held.number, held.entry) }
                    group = ([(line.number, entry)], Int(count) - 1)
                } else if var g = group {
                    g.lines.append((line.number, entry))
                    g.remaining -= 1
                    if g.remaining == 0 {
                        for held in g.lines { accept(held.number, held.entry) }
                        group = nil
                    } else {
                        group = g
                    }
                } else {
                    accept(line.number, entry)
                }
            }
        } catch {
            note(.problem, path, "can't be read: \(error.reason)", fix: "check permissions")
            return
        }
        guard read else {
            note(.problem, path, "can't be read", fix: "check permissions")
            return
        }
        if let g = group, torn == nil, endsWhole, let first = g.lines.first {
            // Only a line without its newline marks a write a crash cut short; whole lines are acknowledged data.
            for held in g.lines { accept(held.number, held.entry) }
            let expected = g.lines.count + g.remaining
            // A request's lines take consecutive numbers: the missing ones' are known, and never to be used again.
            short = (first.number, expected, g.lines.count, first.entry, first.entry.seq + Int64(expected - 1))
        } else if let g = group {
            incomplete = g.lines.map(\.number)
            removed.formUnion(incomplete)
        }
        for hashes in liveAssets.values { assets.formUnion(hashes) }
        // Repaired only once what was removed is kept: the findings below say so only then.
        var repaired = false
        let dest = repair && !removed.isEmpty ? aside(path) : nil
        if repair, dest != nil || (removed.isEmpty && short != nil) {
            do {
                var good: [UInt8] = [], cut: [UInt8] = []
                _ = try JSONLines.forEach(path: path) { line in
                    if line.isBlank { return }
                    if removed.contains(line.number) {
                        cut += line.bytes + [0x0A]
                    } else if let s = short, line.number == s.first {
                        // The request is recorded as the lines it has, so no reader waits for the missing ones.
                        s.entry.write(into: &good, batch: s.present > 1 ? s.present : nil)
                        good.append(0x0A)
                    } else {
                        good += line.bytes + [0x0A]
                    }
                }
                // The request's lines are the log's last ones: a gap line after them keeps the lost lines' numbers.
                if let s = short, s.lastSeq > lastSeq { good += ZoneLog.gapLine(s.lastSeq) }
                if let dest { try FileIO.atomicWrite(dest + ".removed-lines", cut) }
                try FileIO.atomicWrite(path, good)
                try env.index()?.sync(path, warnings: &env.warnings)
                repaired = true
            } catch {
                note(.problem, path, "could not rewrite: \(error.reason)", fix: "check permissions")
            }
        }
        if let torn {
            note(.warning, "\(path):\(torn.line)", "torn last line (\(torn.bytes) bytes, an interrupted write)",
                 fix: repaired ? "cut off" : "ck drops it on the next write; 'ck doctor --repair' cuts it now", repaired: repaired)
        }
        if let first = incomplete.first, let last = incomplete.last {
            note(.warning, "\(path):\(first)", "lines \(first)–\(last): an incomplete request of several lines (an interrupted write), never applied",
                 fix: repaired ? "moved to lost+found" : "the next write to this zone moves them to lost+found; 'ck doctor --repair' does it now",
                 repaired: repaired)
        }
        if let s = short {
            let missing = s.expected - s.present
            note(.problem, "\(path):\(s.first)",
                 "lines \(s.first)–\(s.first + s.present - 1): a request of \(s.expected) lines of which the last \(missing) \(missing == 1 ? "is" : "are") missing, "
                 + "though the log ends with a whole line: it was shortened after the request was acknowledged (a partial restore or a hand edit)",
                 fix: repaired ? "the \(s.present) lines left are kept and the request now counts \(s.present); the missing lines are lost, their numbers (up to \(s.lastSeq)) are never used again"
                     : "the \(s.present) lines left are read as data; restore the log from a whole copy, or 'ck doctor --repair' records the request as the lines it has",
                 repaired: repaired)
        }
        for n in badLines {
            note(.problem, "\(path):\(n)", "not a valid log line: reads of this zone fail until it is fixed",
                 fix: repaired ? "removed from the log (kept in lost+found)" : "fix the line by hand, or 'ck doctor --repair' moves it into lost+found",
                 repaired: repaired)
        }
    }

    package mutating func checkIndex(_ env: EnvironmentStore) {
        let path = env.dir + "/.index.sqlite"
        guard FileIO.exists(path), env.indexEnabled else { return }
        do {
            let index = try RecordIndex.open(envDir: env.dir)
            var stale: [String] = []
            for log in env.allLogPaths() where try !index.isCurrent(log) { stale.append(log) }
            if !stale.isEmpty {
                note(.warning, path, "out of date with \(stale.count) log(s): \(stale.map { StoreCheck.relative($0, env.dir) }.joined(separator: ", "))",
                     fix: repair ? "caught up" : "ck catches up on the next command; 'ck doctor --repair' does it now", repaired: repair)
                if repair { for log in stale { try index.sync(log, warnings: &env.warnings) } }
            }
        } catch {
            note(.problem, error, at: path, fix: "the index is a cache: ck rebuilds it; delete it if this persists")
        }
    }

    package mutating func checkSubscriptions(_ env: EnvironmentStore) {
        let path = env.subscriptionsPath
        var broken = false
        if let o = checkJSON(path, required: false) {
            do { _ = try SubscriptionFile(json: o, path: path) } catch {
                broken = true
                note(.problem, error, at: path, fix: "fix it by hand, or 'ck doctor --repair' moves it aside (the subscriptions are then gone)")
            }
        } else if FileIO.exists(path) {
            broken = true
        }
        guard broken, repair else { return }
        if let dest = moveAside(path) {
            note(.problem, path, "moved aside", fix: "the broken file is \(dest); fix it and put it back, or save the subscriptions again", repaired: true)
        }
    }

    /// Checks every line of a notification log; with repair, moves bad lines into lost+found and cuts a torn tail.
    package mutating func checkNotifications(_ path: String) {
        let c: NotificationLog.Contents
        do { c = try NotificationLog.read(path, tolerant: true) } catch {
            note(.problem, error, at: path, fix: "check permissions")
            return
        }
        // Repaired only once what was removed is kept: the findings say so only then.
        var repaired = false
        if repair, !c.badLines.isEmpty || c.tornBytes > 0, let bytes = try? FileIO.read(path), let dest = aside(path) {
            var good: [UInt8] = [], bad: [UInt8] = []
            let badLines = Set(c.badLines)
            let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
            for (i, line) in lines.enumerated() where !line.isEmpty {
                // The torn tail is the last, unterminated line.
                let torn = i == lines.count - 1 && c.tornBytes > 0
                if badLines.contains(i + 1) || torn { bad += line + [0x0A] } else { good += line + [0x0A] }
            }
            do {
                try FileIO.atomicWrite(dest + ".removed-lines", bad)
                try FileIO.atomicWrite(path, good)
                repaired = true
            } catch {
                note(.problem, path, "could not rewrite: \(error.reason)", fix: "check permissions")
            }
        }
        if c.tornBytes > 0 {
            note(.warning, path, "torn last line (\(c.tornBytes) bytes, an interrupted write)",
                 fix: repaired ? "cut off" : "ck cuts it on the next notification; 'ck doctor --repair' cuts it now", repaired: repaired)
        }
        for n in c.badLines {
            note(.problem, "\(path):\(n)", "not a valid notification line: listing this user's notifications fails until it is fixed",
                 fix: repaired ? "removed from the log (kept in lost+found)" : "fix the line by hand, or 'ck doctor --repair' moves it into lost+found",
                 repaired: repaired)
        }
    }
}
