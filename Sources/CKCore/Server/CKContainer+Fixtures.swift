import Foundation

/// What `importFixtures` loaded.
public struct FixtureSummary: Sendable {
    public var zones: Int
    public var records: Int
    public var assets: Int
    public var users: Int
    public var subscriptions: Int
}

/// Fixtures: one JSON document per environment — schema, users, zones, records (Web Services shape) and
/// assets — so a CI job can commit a file and seed a fresh store with one command.
extension CKContainer {
    public static let fixtureFormat = "ck-fixtures/1"

    /// The whole environment as one JSON document, in a stable order (export → import → export is identical).
    /// `progress` is told bytes of zone logs read out of the total.
    public func exportFixtures(_ environment: Environment, progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> JSON {
        let env = environmentStore(environment)
        return try env.locked(exclusive: false) { () throws(CKError) -> JSON in
            let schema = try env.readSchema()
            let catalog = try env.readCatalog()
            var zones: [JSON] = []
            for z in catalog.zones.sorted(by: { ($0.zoneID.ownerRecordName, $0.zoneID.zoneName) < ($1.zoneID.ownerRecordName, $1.zoneID.zoneName) }) {
                zones.append(.object(["database": .string(z.database.rawValue), "ownerRecordName": .string(z.zoneID.ownerRecordName),
                                      "zoneName": .string(z.zoneID.zoneName),
                                      "capabilities": .array(z.capabilities.sorted().map { .string($0.rawValue) }),
                                      "created": .int(z.created)]))
            }
            var records: [JSON] = []
            var hashes = Set<String>()
            let paths = env.allLogPaths().sorted()
            let total = paths.reduce(0) { $0 + (FileIO.fileInfo($1)?.size ?? 0) }
            var done = 0
            for path in paths {
                let database = path.hasPrefix(env.dir + "/public/") ? "public" : "private"
                let live = CKDatabase.fold(try env.readLog(path).entries)
                for r in live.values.sorted(by: { $0.recordName.utf8.lexicographicallyPrecedes($1.recordName.utf8) }) {
                    records.append(.object(["database": .string(database), "record": r.json()]))
                    for v in r.fields.values { StoreDoctor.collectAssets(v, into: &hashes) }
                }
                done += FileIO.fileInfo(path)?.size ?? 0
                progress(done, total)
            }
            var assets: [String: JSON] = [:]
            for h in hashes.sorted() {
                guard let bytes = try FileIO.read(env.assetPath(h)) else {
                    throw CKError(.assetFileNotFound, "\(env.assetPath(h)): a record refers to this asset but its file is missing",
                                  hint: "run 'ck doctor'")
                }
                assets[h] = .string(Data(bytes).base64EncodedString())
            }
            return .object([
                "format": .string(CKContainer.fixtureFormat), "container": .string(identifier),
                "environment": .string(environment.rawValue), "schema": schema.json,
                "users": .array(try users().map { .object(["name": .string($0.name), "userRecordName": .string($0.userRecordName)]) }),
                "zones": .array(zones), "records": .array(records), "assets": .object(assets),
                "subscriptions": try SubscriptionFile.read(env.subscriptionsPath).json["subscriptions"] ?? .array([]),
            ])
        }
    }

    /// Loads a fixtures document into an environment. The whole document is checked first: if any part is
    /// invalid, nothing is written and every problem is listed with its JSON path. Without `replace`, the
    /// environment must hold no records or zones yet.
    @discardableResult
    /// `progress` is told records written out of the total.
    public func importFixtures(_ doc: JSON, into environment: Environment, replace: Bool, label: String,
                               progress: (Int, Int) -> Void = { _, _ in }) throws(CKError) -> FixtureSummary {
        var problems: [CKError.ItemFailure] = []
        func problem(_ path: String, _ why: String) { problems.append(.init(id: path, error: CKError.invalid(why))) }
        guard case .object(let o) = doc else { throw CKError.invalid("\(label): expected a JSON object (a ck fixtures document)") }
        if o["format"]?.stringValue != CKContainer.fixtureFormat {
            problem("$.format", "expected \"\(CKContainer.fixtureFormat)\"")
        }
        var schema = Schema()
        if case .object(let s)? = o["schema"] {
            do throws(CKError) { schema = try Schema(json: s, path: "$.schema") } catch { problem("$.schema", error.reason) }
        } else { problem("$.schema", "expected an object") }
        var users: [(String, String)] = []
        for (i, u) in (o["users"]?.arrayValue ?? []).enumerated() {
            guard let n = u["name"]?.stringValue, (try? Names.validateUserName(n)) != nil else { problem("$.users[\(i)].name", "expected a user name"); continue }
            users.append((n, CKContainer.userRecordName(for: n)))
        }
        var zones: [Zone] = []
        for (i, z) in (o["zones"]?.arrayValue ?? []).enumerated() {
            let path = "$.zones[\(i)]"
            do throws(CKError) {
                var withSeq = z.objectValue ?? [:]
                withSeq["seq"] = .int(0)
                let zone = try Zone(json: .object(withSeq), path: path)
                try Names.validateZoneName(zone.zoneID.zoneName)
                guard zone.database == .private, !zone.zoneID.isDefault else { throw CKError.invalid("custom zones exist only in the private database") }
                guard zone.zoneID.ownerRecordName == CKContainer.userRecordName(for: zone.zoneID.ownerRecordName) else {
                    throw CKError.invalid("ownerRecordName is not a user record name")
                }
                zones.append(zone)
            } catch { problem(path, error.reason) }
        }
        var records: [(DatabaseScope, Record)] = []
        var seen = Set<String>()
        for (i, item) in (o["records"]?.arrayValue ?? []).enumerated() {
            let path = "$.records[\(i)]"
            guard let db = item["database"]?.stringValue.flatMap(DatabaseScope.init(rawValue:)), db != .shared else {
                problem(path + ".database", "expected \"public\" or \"private\""); continue
            }
            guard let rj = item["record"] else { problem(path + ".record", "missing"); continue }
            do throws(CKError) {
                let r = try Record(json: rj, path: path + ".record")
                try Names.validateRecordName(r.recordName)
                try Names.validateRecordType(r.recordType)
                for k in r.fields.keys { try Names.validateFieldName(k) }
                if db == .public {
                    guard r.zoneID.isDefault, r.zoneID.ownerRecordName == CKContainer.publicOwner else {
                        throw CKError.invalid("public records live in _defaultZone owned by \(CKContainer.publicOwner)")
                    }
                } else {
                    guard r.zoneID.ownerRecordName == CKContainer.userRecordName(for: r.zoneID.ownerRecordName) else {
                        throw CKError.invalid("zoneID.ownerRecordName is not a user record name")
                    }
                    guard r.zoneID.isDefault || zones.contains(where: { $0.zoneID == r.zoneID }) else {
                        throw CKError.invalid("zone '\(r.zoneID.zoneName)' is not among $.zones")
                    }
                }
                guard seen.insert("\(db.rawValue)/\(r.zoneID.ownerRecordName)/\(r.zoneID.zoneName)/\(r.recordName)").inserted else {
                    throw CKError.invalid("record '\(r.recordName)' appears twice in its zone")
                }
                records.append((db, r))
            } catch { problem(path, error.reason) }
        }
        var assets: [String: [UInt8]] = [:]
        for (h, v) in o["assets"]?.objectValue ?? [:] {
            guard let s = v.stringValue, let d = Data(base64Encoded: s) else { problem("$.assets.\(h)", "expected base64 bytes"); continue }
            let bytes = [UInt8](d)
            guard SHA256.hex(bytes) == h else { problem("$.assets.\(h)", "the bytes' SHA-256 is not the key"); continue }
            assets[h] = bytes
        }
        let subscriptions = validateSubscriptions(o["subscriptions"], schema: schema, zones: zones, environment: environment, problem: problem)
        var referenced = Set<String>()
        for (_, r) in records { for v in r.fields.values { StoreDoctor.collectAssets(v, into: &referenced) } }
        let env = environmentStore(environment)
        for h in referenced.sorted() where assets[h] == nil && !FileIO.exists(env.assetPath(h)) {
            problem("$.assets", "no bytes for asset \(h), which a record refers to")
        }
        if !problems.isEmpty {
            throw CKError(.invalidArguments, "\(label): \(problems.count) problem\(problems.count == 1 ? "" : "s"); nothing was imported", items: problems)
        }
        let summary = try env.locked(exclusive: true) { () throws(CKError) -> FixtureSummary in
            var catalog = try env.readCatalog()
            var existing = false
            for p in env.allLogPaths() where !existing { existing = !CKDatabase.fold(try env.readLog(p).entries).isEmpty }
            let existingSubscriptions = !(try SubscriptionFile.read(env.subscriptionsPath).subscriptions.isEmpty)
            if !replace && (existing || !catalog.zones.isEmpty || existingSubscriptions) {
                throw CKError(.serverRecordChanged, "the \(environment.rawValue) environment of \(identifier) already has records or zones",
                              serverErrorCode: "EXISTS", hint: "pass --replace to replace everything in it")
            }
            var seq = try env.highestSeq(catalog: catalog)
            // Assets are named by their bytes: adding them first changes nothing a reader sees.
            for (h, bytes) in assets.sorted(by: { $0.key < $1.key }) { try env.storeAsset(sha256: h, bytes: bytes) }
            var byLog: [String: [LogEntry]] = [:]
            var order: [String] = []
            for (db, r) in records {
                let path = env.relative(env.logPath(database: db, zone: r.zoneID))
                if byLog[path] == nil { order.append(path) }
                seq += 1
                byLog[path, default: []].append(.save(seq: seq, record: r))
                // Imported tags stay as they were; later tags must not meet them.
                if let n = Int64(r.changeTag, radix: 36) { seq = max(seq, n) }
            }
            catalog.zones = zones.map { var z = $0; seq += 1; z.seq = seq; return z }
            catalog.deleted = []
            catalog.lastSeq = seq
            let writeSubscriptions = !subscriptions.isEmpty || FileIO.exists(env.subscriptionsPath)
            // The new environment is built aside and swapped in whole; notifications belong to what it replaces.
            let staging = ["public", "private", "schema.json", "zones.json"] + (writeSubscriptions ? ["subscriptions.json"] : [])
            try env.replaceData(operation: "import", staging: staging, remove: ["notifications"]) { (staged) throws(CKError) in
                for (name, path) in staged where !name.hasSuffix(".json") { try FileIO.makeDirectory(path) }
                var written = 0
                for rel in order {
                    guard let entries = byLog[rel], let top = rel.split(separator: "/").first, let root = staged[String(top)] else { continue }
                    let path = root + rel.dropFirst(top.count)
                    var tail = ZoneLogContents()
                    for start in stride(from: 0, to: entries.count, by: CKDatabase.maxOperationsPerRequest) {
                        let chunk = Array(entries[start..<min(start + CKDatabase.maxOperationsPerRequest, entries.count)])
                        let spans = try ZoneLog.append(path, chunk, after: tail, sync: false)
                        tail = ZoneLogContents.after(tail, spans: spans, count: chunk.count)
                        written += chunk.count
                        progress(written, records.count)
                    }
                }
                if let p = staged["schema.json"] { try JSONFile.write(p, schema.json) }
                if let p = staged["zones.json"] { try JSONFile.write(p, catalog.json) }
                if let p = staged["subscriptions.json"] {
                    var file = SubscriptionFile()
                    file.subscriptions = subscriptions
                    try file.write(p)
                }
            }
            return FixtureSummary(zones: zones.count, records: records.count, assets: assets.count, users: users.count,
                                  subscriptions: subscriptions.count)
        }
        for (name, _) in users { try register(user: name) }
        return summary
    }

    /// Checks `$.subscriptions` with the rules a save applies, against the document's own schema and zones.
    func validateSubscriptions(_ json: JSON?, schema: Schema, zones: [Zone], environment: Environment,
                               problem: (String, String) -> Void) -> [Subscription] {
        guard let json else { return [] }
        guard let list = json.arrayValue else { problem("$.subscriptions", "expected an array"); return [] }
        var out: [Subscription] = []
        var seen = Set<String>()
        for (i, item) in list.enumerated() {
            let path = "$.subscriptions[\(i)]"
            do throws(CKError) {
                let sub = try Subscription(json: item, path: path)
                try Subscription.validateID(sub.subscriptionID)
                guard sub.ownerRecordName == CKContainer.userRecordName(for: sub.ownerRecordName) else {
                    throw CKError.invalid("ownerRecordName is not a user record name")
                }
                let db = CKDatabase(container: self, scope: sub.database, environment: environment, user: sub.ownerRecordName)
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
