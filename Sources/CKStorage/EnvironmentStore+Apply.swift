import CKFiles
import CKModel

extension EnvironmentStore {
    /// The one writer of an environment: applies an operation's changes in order, each crash-safe. Call with the
    /// environment's exclusive lock held (faults: with `.faults.lock` held). Returns the log after each `.records`
    /// change, in order, so a streaming modify appends its next request after it.
    ///
    /// Order within a request of records (callers list them so): asset bytes — a crash after them leaves bytes
    /// with no records — then the lines. What takes effect with the lines (their notifications, the schema they
    /// grew, the fault counts spent) is recorded durably before them, in one pending record, and applied once the
    /// log is synced (a crash between is finished by the next writer: applied if the lines are whole, else
    /// dropped); the index follows the lines. Changes of several files (zone drops, replacements) go through one
    /// intent each.
    @discardableResult
    package func apply(_ changes: [StoreChange], progress: (Int) -> Void = { _ in }) throws(CKError) -> [ZoneLogContents] {
        var tails: [ZoneLogContents] = []
        for change in changes {
            switch change {
            case .asset(let hash, let bytes): try storeAsset(sha256: hash, bytes: bytes)
            case .schema(let s): try JSONFile.write(schemaPath, s.json)
            case .records(let path, let entries, let tail, var pending):
                // Counts the operation's fault stage spent take effect with these lines, or not at all.
                if let held = heldFaults, let first = entries.first {
                    if pending == nil { pending = PendingNotifications(log: relative(path), offset: tail.validLength, count: entries.count, firstSeq: first.seq) }
                    pending?.faults = held
                    heldFaults = nil
                }
                tails.append(try append(path, entries, after: tail, notifications: pending))
            case .syncLog(let path): try FileIO.sync(path)
            case .catalog(let c): try JSONFile.write(zonesPath, c.json)
            case .removeStrayLog(let path): try removeStrayLog(path)
            case .dropZones(let operation, let catalog, let logs, let notifications):
                try dropZoneFiles(operation: operation, catalog: catalog, logs: logs, notifications: notifications)
            case .subscriptions(let file): try file.write(subscriptionsPath)
            case .notificationsRead(let owner, let ids, let at): try NotificationLog.append(notificationsPath(owner), [.read(ids, at: at)])
            case .keyValue(var file): try file.write(keyValuePath(file.userRecordName))
            case .compactedLog(let path, let bytes): try rewriteLog(path, bytes)
            case .removeAsset(let hash): try FileIO.removeTree(assetPath(hash))
            case .replaceEnvironment(let r): try replaceData(r, progress: progress)
            case .faults(let json): try FaultsFile(envDir: dir).write(json)
            }
        }
        return tails
    }

    /// One request's lines: notifications recorded, lines appended (synced later), index in step, notifications delivered.
    private func append(_ path: String, _ entries: [LogEntry], after tail: ZoneLogContents,
                        notifications: PendingNotifications?) throws(CKError) -> ZoneLogContents {
        guard !entries.isEmpty else { return tail }
        try notifications?.record(self)
        let spans: [(offset: Int, length: Int)]
        do throws(CKError) { spans = try ZoneLog.append(path, entries, after: tail, sync: false) } catch {
            // A refused append (not a crash) settles its record now, as the next writer would: applied if the lines
            // are whole, dropped if not, so no failed write leaves one behind.
            if notifications != nil { _ = try? PendingNotifications.recover(self) }
            throw error
        }
        try index()?.appended(path, entries, spans: spans, after: tail)
        let next = ZoneLogContents.after(tail, spans: spans, count: entries.count)
        try notifications?.deliver(self, checkExisting: false)
        return next
    }

    /// Builds the replacement's files into a staged environment and swaps them in.
    private func replaceData(_ r: EnvironmentReplacement, progress: (Int) -> Void) throws(CKError) {
        try replaceData(operation: r.operation, staging: r.staging, remove: r.remove) { (staged) throws(CKError) in
            for name in r.trees { try staged.makeTree(name) }
            for f in r.files { try staged.writeBytes(f.name, f.bytes) }
            for kv in r.keyValue { try staged.write(kv.file, as: kv.name) }
            for log in r.logs { try staged.appendLog(log.name, log.entries, chunk: r.chunk, written: progress) }
            var catalog = r.catalog
            if let build = r.build {
                var tails: [String: ZoneLogContents] = [:]
                catalog = try build({ (name, bytes) throws(CKError) in try staged.writeBytes(name, bytes) },
                                    { (name, entries) throws(CKError) in
                                        tails[name] = try staged.appendRequest(name, entries, after: tails[name] ?? ZoneLogContents())
                                        progress(entries.count)
                                    })
            }
            if let s = r.schema { try staged.writeSchema(s) }
            if let c = catalog { try staged.writeCatalog(c) }
            if let file = r.subscriptions { try staged.write(file) }
        }
    }
}
