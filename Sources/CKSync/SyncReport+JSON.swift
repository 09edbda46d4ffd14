import CKModel

/// The sync report as `ck sync -o json` prints it (one object; `-o jsonl` prints the events instead: SyncEvent+JSON).
extension SyncReport {
    package static func json(_ r: RecordRef) -> JSON {
        .object(["zoneName": .string(r.zoneName), "recordName": .string(r.recordName)])
    }

    package static func json(_ m: Merge) -> JSON {
        var o: [String: JSON] = ["zoneName": .string(m.zoneName), "recordName": .string(m.recordName),
                                 "mergedKeys": .array(m.mergedKeys.map { .string($0) }),
                                 "conflicts": .array(m.conflicts.map { .object(["key": .string($0.key), "winner": .string($0.winner.rawValue)]) })]
        if let kept = m.deleteKept { o["deleteKept"] = .bool(kept) }
        return .object(o)
    }

    package static func json(_ p: ZonePull) -> JSON {
        var o: [String: JSON] = ["zoneName": .string(p.zoneName), "saved": .int(Int64(p.saved)), "deleted": .int(Int64(p.deleted)),
                                 "zoneDeleted": .bool(p.zoneDeleted),
                                 "modifiedRecordNames": .array(p.modifiedRecordNames.map { .string($0) }),
                                 "deletedRecordIDs": .array(p.deletedRecordIDs.map { .object(["recordName": .string($0.recordName), "recordType": .string($0.recordType)]) })]
        if let reason = p.deletionReason { o["deletionReason"] = .string(reason.rawValue) }
        return .object(o)
    }

    package static func json(_ d: Dropped) -> JSON {
        .object(["zoneName": .string(d.zoneName), "recordName": .string(d.recordName), "reason": .string(d.reason)])
    }

    package static func json(_ k: Kept) -> JSON {
        var o: [String: JSON] = ["zoneName": .string(k.zoneName), "error": k.error.json]
        if let n = k.recordName { o["recordName"] = .string(n) }
        return .object(o)
    }

    package static func json(_ e: ErrorMet) -> JSON {
        var o: [String: JSON] = ["operation": .string(e.operation), "error": e.error.json]
        if let z = e.zoneName { o["zoneName"] = .string(z) }
        return .object(o)
    }

    package static func json(_ t: Retry) -> JSON {
        var o: [String: JSON] = ["operation": .string(t.operation), "ckErrorCode": .string(t.code.name), "wait": .double(t.wait)]
        if let z = t.zoneName { o["zoneName"] = .string(z) }
        return .object(o)
    }

    package static func json(_ a: AccountChange) -> JSON {
        .object(["from": .string(a.from.rawValue), "to": .string(a.to.rawValue), "changeType": a.type.map { .string($0.rawValue) } ?? .null,
                 "clearedPendingChanges": .int(Int64(a.clearedPendingChanges)), "removedRecords": .int(Int64(a.removedRecords))])
    }

    /// The whole report; `keyValue` adds the device's key-value sync when it ran.
    public func json(keyValue: KVSyncReport? = nil) -> JSON {
        var o: [String: JSON] = [
            "device": .string(device), "syncedAt": .int(syncedAt),
            "pushed": .object(["saves": .array(pushedSaves.map(SyncReport.json)), "deletes": .array(pushedDeletes.map(SyncReport.json))]),
            "merges": .array(merges.map(SyncReport.json)), "pulled": .array(pulled.map(SyncReport.json)),
            "refetched": .array(refetched.map { .string($0) }), "dropped": .array(dropped.map(SyncReport.json)),
            "kept": .array(kept.map(SyncReport.json)), "conflicts": .array(conflicts.map(SyncReport.json)),
            "accountChange": accountChange.map(SyncReport.json) ?? .null,
            "errors": .array(errors.map(SyncReport.json)), "retries": .array(retries.map(SyncReport.json)),
            "waited": .double(waited), "recreated": .array(recreated.map { .string($0) }), "purged": .array(purged.map { .string($0) }),
            "quotaExceeded": .bool(quotaExceeded), "stopped": stopped.map(\.json) ?? .null,
        ]
        if let keyValue { o["keyValue"] = keyValue.json }
        return .object(o)
    }
}

/// The key-value sync of a device, as `ck kv sync -o json` prints it and `ck sync` nests under `keyValue`.
extension KVSyncReport {
    public var json: JSON {
        .object(["device": .string(device), "syncedAt": .int(syncedAt),
                 "pushed": .array(pushed.map { .string($0) }), "pulled": .array(pulled.map { .string($0) }),
                 "overridden": .array(overridden.map { .string($0) }),
                 "refused": .array(refused.map { .object(["key": .string($0.key), "reason": .string($0.reason)]) }),
                 "events": .array(events.map(\.json)), "skipped": skipped.map { .string($0) } ?? .null])
    }
}

extension KVEvent {
    /// An NSUbiquitousKeyValueStore.didChangeExternallyNotification as ck records it.
    public var json: JSON {
        .object(["id": .int(id), "at": .int(at), "name": .string(KVEvent.notificationName), "reason": .string(reason.rawValue),
                 "userInfo": userInfo])
    }
}
