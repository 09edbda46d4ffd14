import CKFiles
import CKModel

extension EnvironmentStore {
    /// The one writer of an environment: applies an operation's changes in order, each crash-safe. Call with the
    /// environment's exclusive lock held (faults: with `.faults.lock` held). Returns the log after each `.records`
    /// change, in order, so a streaming modify appends its next request after it.
    ///
    /// Order within a request of records (callers list them so): asset bytes, then the schema — a crash after
    /// them leaves a field or bytes with no records, never a record the schema lacks — then the lines. The lines'
    /// notifications are recorded durably before the lines (a crash between is finished by the next writer,
    /// delivered or dropped), the index follows the lines, and the notifications are delivered once the log is
    /// synced. Changes of several files (zone drops, replacements) go through one intent each.
    @discardableResult
    package func apply(_ changes: [StoreChange], progress: (Int) -> Void = { _ in }) throws(CKError) -> [ZoneLogContents] {
        var tails: [ZoneLogContents] = []
        for change in changes {
            switch change {
            case .asset(let hash, let bytes): try storeAsset(sha256: hash, bytes: bytes)
            case .schema(let s): try JSONFile.write(schemaPath, s.json)
            case .records(let path, let entries, let tail, let pending):
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
        let spans = try ZoneLog.append(path, entries, after: tail, sync: false)
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
