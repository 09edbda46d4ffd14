import Foundation
import CKModel
import CKSchema
import CKStorage

/// What `importFixtures` loaded.
public struct FixtureSummary: Sendable {
    public var zones: Int
    public var records: Int
    public var assets: Int
    public var users: Int
    public var subscriptions: Int
    /// Users' key-value stores.
    public var keyValueStores: Int = 0
    /// Public records already there that the caller may not delete (its roles lack WRITE), kept by `--replace`.
    public var kept: Int = 0
}

/// Fixtures: one JSON document per environment — schema, users, zones, records (Web Services shape) and
/// assets — so a CI job can commit a file and seed a fresh store with one command.
extension CKContainer {
    public static let fixtureFormat = "ck-fixtures/1"

    /// The environment a fixtures document says it holds (`$.environment`), or nil when it says none.
    public static func fixtureEnvironment(_ doc: JSON) throws(CKError) -> Environment? {
        guard let value = doc["environment"], !value.isNull else { return nil }
        guard let name = value.stringValue, let env = Environment(rawValue: name) else {
            throw CKError.invalid("expected \"development\" or \"production\", found \(value.serialized())")
        }
        return env
    }

    /// Loads a fixtures document into an environment as `caller`: public records it created and its own private
    /// zones, records and subscriptions (`allUsers`, an administrator's load, takes everyone's). The whole
    /// document is checked first: if any part is invalid, nothing is written and every problem is listed with its
    /// JSON path. Without `replace`, what the caller could replace must hold no records or zones yet; `replace`
    /// replaces only that. `progress` is told records written out of the total.
    @discardableResult
    public func importFixtures(_ doc: JSON, into environment: Environment, as caller: Caller, allUsers: Bool = false,
                               replace: Bool, label: String, progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> FixtureSummary {
        try importFixtures(FixtureDocument(doc), into: environment, as: caller, allUsers: allUsers, replace: replace, label: label, progress: progress)
    }

    /// The same for a document read as the import goes (`FixtureDocument`): its records and assets are read one at
    /// a time, once to check them (a user's schema check reads them again only if the schema changed before the
    /// lock) and once more to write them a request at a time, so memory stays flat however many records it holds.
    @discardableResult
    public func importFixtures(_ doc: FixtureDocument, into environment: Environment, as caller: Caller, allUsers: Bool = false,
                               replace: Bool, label: String, progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> FixtureSummary {
        let me = caller.userRecordName
        let owns: (String) -> Bool = { owner in allUsers || owner == me }
        let foreign: (String) -> String = { owner in
            "it belongs to user \(owner), not to the acting \(caller.description); import as that user, or pass --all-users to load every user's data"
        }
        var problems: [CKError.ItemFailure] = []
        // Each problem is named by the file and the JSON path it is at; a reason that starts with a deeper path
        // than the one it was met at gives that path instead.
        func problem(_ path: String, _ why: String) {
            var at = path, reason = why
            if why.hasPrefix(path), let colon = why.range(of: ": ") {
                at = String(why[..<colon.lowerBound])
                reason = String(why[colon.upperBound...])
            }
            problems.append(.init(id: "\(label): \(at)", error: CKError.invalid(reason)))
        }
        guard doc.isObject else { throw CKError.invalid("\(label): expected a JSON object (a ck fixtures document)") }
        let o = doc.members
        if o["format"]?.stringValue != CKContainer.fixtureFormat {
            problem("$.format", "expected \"\(CKContainer.fixtureFormat)\"")
        }
        do throws(CKError) { _ = try CKContainer.fixtureEnvironment(.object(o)) } catch { problem("$.environment", error.reason) }
        let defaults = FixtureDefaults(caller: me, now: store.now())
        let db = database(.private, environment: environment, caller: caller)
        let env = db.env
        // A document without a schema gets the one its records make, as development's saves would: an
        // administrator's from nothing, a user's from the schema in force (a user never resets grants).
        var schema = allUsers ? Schema() : try env.readSchema()
        // The schema in force as first read: when it is still in force under the lock, the first read's growth
        // of it is the user's schema, and the records need not be read again for it.
        let schemaInForce = schema
        let declaresSchema: Bool
        switch o["schema"] {
        case nil, .null?: declaresSchema = false
        case .object(let s)?:
            declaresSchema = true
            do throws(CKError) { schema = try Schema(json: s, path: "$.schema") } catch { problem("$.schema", error.reason) }
        default: declaresSchema = true; problem("$.schema", "expected an object")
        }
        var users: [(String, String)] = []
        for (i, u) in (o["users"]?.arrayValue ?? []).enumerated() {
            guard let n = u["name"]?.stringValue, (try? Names.validateUserName(n)) != nil else { problem("$.users[\(i)].name", "expected a user name"); continue }
            guard allUsers || n == caller.userName else { problem("$.users[\(i)].name", foreign(CKContainer.userRecordName(for: n))); continue }
            users.append((n, CKContainer.userRecordName(for: n)))
        }
        var zones: [Zone] = []
        for (i, z) in (o["zones"]?.arrayValue ?? []).enumerated() {
            let path = "$.zones[\(i)]"
            do throws(CKError) {
                var withSeq = try defaults.zone(z, path: path).objectValue ?? [:]
                withSeq["seq"] = .int(0)
                let zone = try Zone(json: .object(withSeq), path: path)
                try Names.validateZoneName(zone.zoneID.zoneName)
                guard zone.database == .private, !zone.zoneID.isDefault else { throw CKError.invalid("custom zones exist only in the private database") }
                guard Names.isUserRecordName(zone.zoneID.ownerRecordName) else {
                    throw CKError.invalid("ownerRecordName is not a user record name")
                }
                guard owns(zone.zoneID.ownerRecordName) else { throw CKError.invalid(foreign(zone.zoneID.ownerRecordName)) }
                zones.append(zone)
            } catch { problem(path, error.reason) }
        }
        let zoneIDs = Set(zones.map { "\($0.zoneID.ownerRecordName)/\($0.zoneID.zoneName)" })
        // The schema before the records: every later read of them starts here, so each record is read exactly as
        // it was checked (its defaults depend on the schema the records before it made).
        let schemaBeforeRecords = schema
        /// One element of `$.records` as a record: nil, with `report` told why, when it is not a valid one.
        let readRecord = { (i: Int, item: JSON, schema: inout Schema, seen: inout Set<String>,
                            report: (String, String) -> Void) -> (db: DatabaseScope, record: Record, tagged: Bool)? in
            let path = "$.records[\(i)]"
            let dbName = item["database"] == nil ? DatabaseScope.private.rawValue : item["database"]?.stringValue
            guard let db = dbName.flatMap(DatabaseScope.init(rawValue:)), db != .shared else {
                report(path + ".database", "expected \"public\" or \"private\""); return nil
            }
            guard let given = item["record"] else { report(path + ".record", "missing"); return nil }
            do throws(CKError) {
                let (rj, tagged) = try defaults.record(given, database: db, schema: schema, path: path + ".record")
                let r = try Record(json: rj, path: path + ".record")
                try Names.validateRecordName(r.recordName)
                try Names.validateRecordType(r.recordType)
                // A share's system keys (cloudkit.title, …) are fields of cloudkit.share records only.
                for k in r.fields.keys where !(r.isShare && Share.systemFieldKeys.contains(k)) { try Names.validateFieldName(k) }
                if db == .public {
                    guard r.zoneID.isDefault, r.zoneID.ownerRecordName == CKContainer.publicOwner else {
                        throw CKError.invalid("public records live in _defaultZone owned by \(CKContainer.publicOwner)")
                    }
                    // A user loads only public records it created: nobody is made the creator of what it did not write.
                    guard owns(r.created.userRecordName) else { throw CKError.invalid("the record's creator is another user: " + foreign(r.created.userRecordName)) }
                } else {
                    guard Names.isUserRecordName(r.zoneID.ownerRecordName) else {
                        throw CKError.invalid("zoneID.ownerRecordName is not a user record name")
                    }
                    guard owns(r.zoneID.ownerRecordName) else { throw CKError.invalid(foreign(r.zoneID.ownerRecordName)) }
                    guard r.zoneID.isDefault || zoneIDs.contains("\(r.zoneID.ownerRecordName)/\(r.zoneID.zoneName)") else {
                        throw CKError.invalid("zone '\(r.zoneID.zoneName)' is not among $.zones")
                    }
                }
                guard seen.insert("\(db.rawValue)/\(r.zoneID.ownerRecordName)/\(r.zoneID.zoneName)/\(r.recordName)").inserted else {
                    throw CKError.invalid("record '\(r.recordName)' appears twice in its zone")
                }
                // The record's values must fit the schema; in development they extend it, as a save would.
                do throws(CKError) { _ = try schema.admit(recordType: r.recordType, values: r.fields, environment: environment) } catch {
                    throw CKError.invalid("\(path).record: \(error.reason)")
                }
                return (db, r, tagged)
            } catch { report(path, error.reason); return nil }
        }
        // The first read of the records: checked one at a time; what the later steps need is kept, not the records.
        var recordCount = 0
        var anyUntagged = false
        var highestTag: Int64 = 0
        var referenced = Set<String>()
        var publicItems: [(index: Int, name: String, type: String)] = []
        var privateUse = QuotaBudget(limit: 0, owner: "", raise: "", records: [])
        var publicUse = privateUse
        do {
            var seen = Set<String>()
            try doc.forEachRecord { (i, item) throws(CKError) in
                guard let (db, r, tagged) = readRecord(i, item, &schema, &seen, problem) else { return }
                recordCount += 1
                if !tagged { anyUntagged = true }
                if let n = Int64(r.changeTag, radix: 36) { highestTag = max(highestTag, n) }
                for v in r.fields.values { v.collectAssetHashes(into: &referenced) }
                if db == .public {
                    publicItems.append((i, r.recordName, r.recordType))
                    publicUse.add(r)
                } else {
                    privateUse.add(r)
                }
            }
        }
        // Every later read replays the first exactly (the document is the one checked: a file changed since is
        // refused), so a record that fails now means the document changed under the import.
        let replayRecords = { (body: (Int, DatabaseScope, Record, Bool) throws(CKError) -> Void) throws(CKError) -> Void in
            var replaySchema = schemaBeforeRecords
            var replaySeen = Set<String>()
            try doc.forEachRecord { (i, item) throws(CKError) in
                var changed: String?
                guard let (db, r, tagged) = readRecord(i, item, &replaySchema, &replaySeen, { changed = changed ?? "\($0): \($1)" }) else {
                    throw CKError.invalid("\(label): \(changed ?? "$.records[\(i)]"): the document changed while it was being imported; nothing was imported")
                }
                try body(i, db, r, tagged)
            }
        }
        var assetKeys = Set<String>()
        try doc.forEachAsset { (h, v) throws(CKError) in
            guard let s = v.stringValue, let d = Data(base64Encoded: s) else { problem("$.assets.\(h)", "expected base64 bytes"); return }
            guard SHA256.hex([UInt8](d)) == h else { problem("$.assets.\(h)", "the bytes' SHA-256 is not the key"); return }
            assetKeys.insert(h)
        }
        let subscriptions = validateSubscriptions(o["subscriptions"], schema: schema, zones: zones, environment: environment, defaultOwner: me,
                                                  owns: owns, foreign: foreign, problem: problem)
        let keyValueStores = validateKeyValueStores(o["keyValueStores"], defaultUser: me, owns: owns, foreign: foreign, problem: problem)
        for h in referenced.sorted() where !assetKeys.contains(h) && !env.hasAsset(h) {
            problem("$.assets", "no bytes for asset \(h), which a record refers to")
        }
        if !problems.isEmpty {
            throw CKError(.invalidArguments, "\(label): \(problems.count) problem\(problems.count == 1 ? "" : "s"); nothing was imported", items: problems)
        }
        var written = 0
        let summary = try db.perform(.fixturesImport, administrator: allUsers, progress: { (n) in
            written += n
            progress(written, recordCount)
        }) { (state) throws(CKError) -> FixtureSummary in
            // Every permission check uses the grants in force before the import, never the document's.
            // (The operation runs in the private database, so the public records are checked with the public gate.)
            let gate = state.gate.scoped(to: .public)
            let current = try env.readSchema()
            // The schema the import leaves: an administrator's is the document's; a user's may only grow as its
            // saves would grow it (checked below), so it never changes grants or roles.
            // `schema` is already grown by every record (the first read admitted each, in order, and admission only
            // adds types, with CloudKit's grants, and fields): the document's schema so grown, or the one in force
            // so grown when no other writer changed it since, admits the records again without change. Only a
            // schema changed since the first read needs them read again.
            let newSchema = allUsers ? schema
                : declaresSchema || current == schemaInForce
                ? try userSchema(schema, current: current, records: { _ throws(CKError) in }, environment: environment, caller: caller, label: label)
                : try userSchema(nil, current: current, records: { (body) throws(CKError) in
                    try replayRecords { (_, _, r, _) throws(CKError) in try body(r) }
                }, environment: environment, caller: caller, label: label)
            // A caller replaces only the public records it may delete: the others (another creator's, when the
            // type grants WRITE to _creator) stay.
            var kept: [Record] = []
            let publicDB = database(.public, environment: environment, caller: caller)
            let publicLog = env.logPath(database: .public, zone: publicDB.zoneID(Names.defaultZoneName))
            // Only where each live record's line is, and whether the caller may not delete it: the records are
            // not held, save the kept ones.
            let publicLive = try env.liveLines(publicLog) { allUsers ? false : gate.writeRefusal($0, schema: current) != nil }
            let keptLines = publicLive.keys.sorted().compactMap { name in publicLive[name].flatMap { $0.keep ? ($0.offset, $0.length) : nil } }
            try env.readRecords(publicLog, at: keptLines) { (r) throws(CKError) in kept.append(r) }
            let keptNames = Dictionary(kept.map { ($0.recordName, $0) }) { a, _ in a }
            let denied = publicItems.compactMap { (item) -> CKError.ItemFailure? in
                if let other = keptNames[item.name] {
                    return .init(id: "$.records[\(item.index)]", error: CKError(.permissionFailure,
                        "public record '\(other.recordName)' was created by \(other.created.userRecordName), and the acting \(caller.description) may not replace it",
                        serverErrorCode: "ACCESS_DENIED"))
                }
                guard let refusal = gate.createRefusal(type: item.type, schema: current) else { return nil }
                return .init(id: "$.records[\(item.index)]", error: refusal)
            }
            if !denied.isEmpty {
                throw CKError(.permissionFailure, "\(label): the acting \(caller.description) may not create \(denied.count) public record\(denied.count == 1 ? "" : "s"); nothing was imported",
                              serverErrorCode: "ACCESS_DENIED", items: denied)
            }
            var catalog = state.catalog
            // What this import may replace: the public database and the caller's private data (everything with allUsers).
            let mine = env.logPaths(ownedBy: owns)
            var existing = false
            // Public records the caller may not delete stay either way, so they are not "existing" records that
            // only --replace may replace.
            for p in mine where !existing {
                existing = env.relative(p) == env.relative(publicLog) ? publicLive.count > kept.count
                    : try !env.liveLines(p, keep: { _ in false }).isEmpty
            }
            let oldSubscriptions = try SubscriptionFile.read(env.subscriptionsPath).subscriptions
            let existingSubscriptions = oldSubscriptions.contains { owns($0.ownerRecordName) }
            let myZones = catalog.zones.filter { owns($0.zoneID.ownerRecordName) }
            if !replace && (existing || !myZones.isEmpty || existingSubscriptions || hasKeyValueStores(env, owns: owns)) {
                throw CKError(.serverRecordChanged, "the \(environment.rawValue) environment of \(identifier) already has records or zones",
                              serverErrorCode: "EXISTS", hint: "pass --replace to replace everything in it")
            }
            // A caller's import stays within its quotas, measured by the quota stage's own budget, as its saves
            // would; the administrator's load is not counted (docs/quotas.md).
            if !allUsers {
                if let budget = try db.quotaBudget(catalog: state.catalog, info: state.info) {
                    try budget.admitReplacement(using: privateUse)
                }
                if let budget = try publicDB.quotaBudget(catalog: state.catalog, info: state.info) {
                    var use = publicUse
                    for r in kept { use.add(r) }
                    try budget.admitReplacement(using: use)
                }
            }
            // Zones this import replaces go through the effects stage's bookkeeping: the database change feed
            // reports them deleted, so devices toss their copies.
            if replace { try db.recordDropped(myZones, catalog: &catalog) }
            var firstSeq = try env.highestSeq(catalog: catalog)
            // Numbers for untagged records come after every tag the document gives, so none meets another.
            if anyUntagged { firstSeq = max(firstSeq, highestTag) }
            let writeSubscriptions = !subscriptions.isEmpty || env.hasSubscriptionsFile
            // What is replaced: the public database and the caller's private tree and notifications (everyone's
            // with allUsers). The new trees are built aside and swapped in whole.
            let privateTrees = allUsers ? ["private"] : me.map { ["private/" + $0] } ?? []
            let notifications = allUsers ? ["notifications"] : me.map { ["notifications/" + $0 + ".jsonl"] } ?? []
            // New asset files and key-value stores go in with the rest, so a failed import leaves none behind.
            let newAssets = assetKeys.sorted().filter { !env.hasAsset($0) }
            let kvDir = env.relative(env.keyValueDir)
            let kvFiles = keyValueStores.map { kvDir + "/" + $0.userRecordName + ".json" }
            let oldKV = replace ? env.keyValueUsers().filter(owns).map { kvDir + "/" + $0 + ".json" }.filter { !kvFiles.contains($0) } : []
            let trees = ["public"] + privateTrees
            let staging = trees + ["schema.json", "zones.json"] + (writeSubscriptions ? ["subscriptions.json"] : [])
                + newAssets.map { env.relative(env.assetPath($0)) } + kvFiles
            var replacement = EnvironmentReplacement(operation: "import", staging: staging)
            replacement.remove = notifications + oldKV
            replacement.trees = trees
            replacement.keyValue = keyValueStores.map { (kvDir + "/" + $0.userRecordName + ".json", $0) }
            replacement.chunk = CKDatabase.maxOperationsPerRequest
            replacement.schema = newSchema
            let publicName = env.relative(publicLog)
            let chunk = replacement.chunk
            let wanted = Set(newAssets)
            // The lines and asset files are made as the one writer builds the new trees: the records are read from
            // the document a last time, each log's lines gathered into requests of `chunk` and written as they fill.
            replacement.build = { [catalog] (file, lines) throws(CKError) -> ZoneCatalog in
                if !wanted.isEmpty {
                    try doc.forEachAsset { (h, v) throws(CKError) in
                        guard wanted.contains(h), let s = v.stringValue, let d = Data(base64Encoded: s) else { return }
                        try file(env.relative(env.assetPath(h)), [UInt8](d))
                    }
                }
                var seq = firstSeq
                var pending: [String: [LogEntry]] = [:]
                var order: [String] = []
                func add(_ log: String, _ entry: LogEntry) throws(CKError) {
                    if pending[log] == nil { order.append(log) }
                    pending[log, default: []].append(entry)
                    if let full = pending[log], full.count >= chunk {
                        try lines(log, full)
                        pending[log] = []
                    }
                }
                // Kept records go into the new public log as they are, change tags included.
                for r in kept {
                    seq += 1
                    try add(publicName, .save(seq: seq, record: r))
                    if let n = Int64(r.changeTag, radix: 36) { seq = max(seq, n) }
                }
                try replayRecords { (_, db, given, tagged) throws(CKError) in
                    var r = given
                    seq += 1
                    if !tagged { r.changeTag = CKDatabase.changeTag(seq: seq) }
                    try add(env.relative(env.logPath(database: db, zone: r.zoneID)), .save(seq: seq, record: r))
                    // Imported tags stay as they were; later tags must not meet them.
                    if let n = Int64(r.changeTag, radix: 36) { seq = max(seq, n) }
                }
                for log in order { if let rest = pending[log], !rest.isEmpty { try lines(log, rest) } }
                var done = catalog
                done.zones.removeAll { owns($0.zoneID.ownerRecordName) }
                done.zones += zones.map { var z = $0; seq += 1; z.seq = seq; return z }
                done.lastSeq = seq
                return done
            }
            var file = SubscriptionFile()
            file.subscriptions = oldSubscriptions.filter { !owns($0.ownerRecordName) } + subscriptions
            replacement.subscriptions = file
            // The caller and the document's users are listed with the data, all or nothing.
            try stageRegistration(of: (caller.userName.map { [$0] } ?? []) + users.map { $0.0 }, info: state.info, in: &replacement, env: env)
            state.changes.append(.replaceEnvironment(replacement))
            return FixtureSummary(zones: zones.count, records: recordCount, assets: assetKeys.count, users: users.count,
                                  subscriptions: subscriptions.count, keyValueStores: keyValueStores.count, kept: kept.count)
        }
        try finishRegistration(env)
        return summary
    }

    /// The schema a user's import leaves: the document's (nil: the one in force) grown by the records as
    /// development's saves grow it. A user may only add what saves add — record types (with the grants CloudKit
    /// gives a new type) and fields, in development — so a document that would change roles, grants, indexes or
    /// types, or remove anything, is refused (permissionFailure, every change listed).
    func userSchema(_ declared: Schema?, current: Schema, records: ((Record) throws(CKError) -> Void) throws(CKError) -> Void,
                    environment: Environment, caller: Caller, label: String) throws(CKError) -> Schema {
        var target = declared ?? current
        // A type the document declares without grants gets CloudKit's defaults, as a save would give it.
        for (name, t) in target.recordTypes where t.grants.isEmpty && current.typesWithUsers[name] == nil {
            target.recordTypes[name]?.grants = RecordTypeSchema.defaultGrants
        }
        try records { (r) throws(CKError) in
            do throws(CKError) { _ = try target.admit(recordType: r.recordType, values: r.fields, environment: environment) } catch {
                throw CKError.invalid("\(label): record '\(r.recordName)': \(error.reason)")
            }
        }
        let defaults = RecordTypeSchema(name: "", grants: RecordTypeSchema.defaultGrants).normalizedGrants
        let refused = current.changes(to: target).filter { change in
            guard environment == .development else { return true }
            switch change {
            case .addType, .addField: return false
            case .changeGrants(let type, let from, let to): return !(from.isEmpty && to == defaults && current.typesWithUsers[type] == nil)
            default: return true
            }
        }
        guard refused.isEmpty else {
            throw CKError(.permissionFailure,
                          "\(label): the acting \(caller.description) may not change the \(environment.rawValue) schema (\(refused.count) change\(refused.count == 1 ? "" : "s")); nothing was imported",
                          serverErrorCode: "ACCESS_DENIED",
                          hint: environment == .development
                            ? "a user's import only adds record types and fields, as its saves would; import it as an administrator with --all-users, or change the schema with 'ck schema import'"
                            : "a user's import must fit the deployed schema; deploy the schema, or import it as an administrator with --all-users",
                          items: refused.map { .init(id: "\(label): $.schema", error: CKError(.permissionFailure, $0.summary, serverErrorCode: "ACCESS_DENIED")) })
        }
        return target
    }

    /// Checks `$.subscriptions` with the rules a save applies, against the document's own schema and zones.
    package func validateSubscriptions(_ json: JSON?, schema: Schema, zones: [Zone], environment: Environment, defaultOwner: String?,
                               owns: (String) -> Bool, foreign: (String) -> String,
                               problem: (String, String) -> Void) -> [Subscription] {
        guard let json else { return [] }
        guard let list = json.arrayValue else { problem("$.subscriptions", "expected an array"); return [] }
        var out: [Subscription] = []
        var seen = Set<String>()
        for (i, item) in list.enumerated() {
            let path = "$.subscriptions[\(i)]"
            do throws(CKError) {
                var given = item
                if case .object(var o) = item {
                    // A hand-written subscription may leave out its owner (the importing caller) and database.
                    if o["ownerRecordName"] == nil, let me = defaultOwner { o["ownerRecordName"] = .string(me) }
                    if o["database"] == nil { o["database"] = .string(DatabaseScope.private.rawValue) }
                    given = .object(o)
                }
                let sub = try Subscription(json: given, path: path)
                try Subscription.validateID(sub.subscriptionID)
                guard Names.isUserRecordName(sub.ownerRecordName) else {
                    throw CKError.invalid("ownerRecordName is not a user record name")
                }
                guard owns(sub.ownerRecordName) else { throw CKError.invalid(foreign(sub.ownerRecordName)) }
                let db = CKDatabase(container: self, scope: sub.database, environment: environment, owner: sub.ownerRecordName)
                try db.check(sub, schema: schema) { (name) throws(CKError) -> Zone in
                    let id = db.zoneID(name)
                    if id.isDefault { return Zone(zoneID: id, database: sub.database, capabilities: [], created: 0, seq: 0) }
                    guard sub.database == .private, let z = zones.first(where: { $0.zoneID == id }) else {
                        throw CKError(.zoneNotFound, "zone '\(name)' of \(sub.ownerRecordName) is not among $.zones")
                    }
                    return z
                }
                guard seen.insert(SubscriptionFile.key(sub)).inserted else {
                    throw CKError.invalid("subscription '\(sub.subscriptionID)' appears twice for its owner and database")
                }
                out.append(sub)
            } catch { problem(path, error.reason) }
        }
        return out
    }
}
