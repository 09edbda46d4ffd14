import Foundation
import CKFiles
import CKModel
import CKServer

extension Device {
    /// Records on the device (server copies with pending edits on top), in one zone or all, by zone and name.
    public func records(zone: String? = nil) throws(CKError) -> [LocalRecord] {
        if let zone { try Names.validateZoneName(zone) }
        var byKey: [String: LocalRecord] = [:]
        for r in try serverRecords(zone: zone) {
            byKey[r.zoneID.zoneName + "/" + r.recordName] = LocalRecord(zoneName: r.zoneID.zoneName, recordName: r.recordName, recordType: r.recordType,
                                                                       fields: r.fields, changeTag: r.changeTag, pending: .none, serverRecord: r)
        }
        for p in try pendingEdits(zone: zone) {
            let key = p.zone + "/" + p.name
            var l = byKey[key] ?? LocalRecord(zoneName: p.zone, recordName: p.name, recordType: p.type, fields: [:],
                                              changeTag: nil, pending: .none, serverRecord: nil)
            if p.isDelete {
                l.pending = .delete
            } else {
                for (k, v) in p.fields { l.fields[k] = v }
                l.pending = .save(keys: p.fields.keys.sorted())
            }
            byKey[key] = l
        }
        return byKey.values.sorted { ($0.zoneName, $0.recordName) < ($1.zoneName, $1.recordName) }
    }

    /// One record as the device shows it, or nil.
    public func record(_ name: String, zone: String) throws(CKError) -> LocalRecord? {
        try Names.validateRecordName(name)
        return try records(zone: zone).first { $0.recordName == name }
    }

    /// Edits a record on the device only (offline): `fields` maps keys to values, nil removes a key.
    /// The edit stays pending until a sync pushes it. A nil name makes a new record with a UUID name.
    @discardableResult
    public func save(recordType: String, recordName: String? = nil, zone: String,
                     fields: [String: FieldValue?]) throws(CKError) -> LocalRecord {
        try Device.checkSyncZone(zone)
        try refuseNearMiss(zone: zone)
        try Names.validateRecordType(recordType)
        let name = recordName ?? UUID().uuidString
        try Names.validateRecordName(name)
        for k in fields.keys { try Names.validateFieldName(k) }
        // The device's lock, as a sync takes it: an edit and a sync of one device never interleave.
        return try exclusively { () throws(CKError) -> LocalRecord in
            try transaction { () throws(CKError) in
                let ancestor = try serverRecord(zone: zone, name: name)
                let previous = try pendingEdit(zone: zone, name: name)
                if let existing = ancestor?.recordType ?? previous?.type, existing != recordType {
                    throw CKError.invalid("record '\(name)' exists on device '\(self.name)' with type '\(existing)'; a record's type can't change to '\(recordType)'")
                }
                var changed = previous.map { $0.isDelete ? [:] : $0.fields } ?? [:]
                for (k, v) in fields {
                    // Removing a key the server never had is no change to send.
                    if v == nil && ancestor?.fields[k] == nil { changed[k] = nil } else { changed[k] = .some(v) }
                }
                // The first edit fixes the ancestor: later pulls refresh the server copy, not what the edit was made on.
                try putPending(PendingEdit(zone: zone, name: name, type: recordType, isDelete: false, fields: changed,
                                           base: previous == nil ? ancestor : previous?.base, version: (previous?.version ?? 0) + 1))
            }
            guard let saved = try record(name, zone: zone) else {
                throw CKError.internalError("device '\(self.name)': record '\(name)' vanished after saving it")
            }
            return saved
        }
    }

    /// Runs `body` holding the device's lock (the one `SyncEngine.sync` holds).
    package func exclusively<T>(_ body: () throws(CKError) -> T) throws(CKError) -> T {
        let lock = try FileLock(path: path + ".lock", exclusive: true)
        defer { lock.unlock() }
        return try body()
    }

    /// Deletes a record on the device only; a sync pushes the deletion. A record the server never saw
    /// is simply dropped. Answers what is now pending for it.
    @discardableResult
    public func delete(recordName name: String, zone: String) throws(CKError) -> LocalRecord.Pending {
        try Device.checkSyncZone(zone)
        try Names.validateRecordName(name)
        return try exclusively { () throws(CKError) -> LocalRecord.Pending in
            try transaction { () throws(CKError) -> LocalRecord.Pending in
                let ancestor = try serverRecord(zone: zone, name: name)
                let previous = try pendingEdit(zone: zone, name: name)
                guard let ancestor else {
                    guard previous != nil else {
                        throw CKError(.unknownItem, "Record not found on device '\(self.name)': '\(name)' in zone \(zone)",
                                      hint: "'ck device records \(self.name) -z \(zone)' lists what the device has; 'ck sync \(self.name)' fetches the server's records")
                    }
                    try dropPending(zone: zone, name: name)
                    return .none
                }
                try putPending(PendingEdit(zone: zone, name: name, type: ancestor.recordType, isDelete: true, fields: [:],
                                           base: previous == nil ? ancestor : previous?.base, version: (previous?.version ?? 0) + 1))
                return .delete
            }
        }
    }

    /// Types command-line text for a field the way `ck record save` does, with what the device knows as
    /// its schema: the type the field has on the device's records of that type, else `type`, else inferred.
    /// Assets are refused: a device keeps no asset bytes.
    public func fieldValue(_ text: String, type explicit: FieldType?, action: Reference.Action? = nil,
                           recordType: String, key: String) throws(CKError) -> FieldValue {
        var known: FieldType? = nil
        var knownEncrypted = false
        if explicit == nil {
            for r in try serverRecords(zone: nil) where r.recordType == recordType {
                if let v = r.fields[key] { known = v.type; knownEncrypted = v.isEncrypted; break }
            }
        }
        let type = explicit ?? known ?? ValueParser.inferType(text)
        if type.base == .asset {
            throw CKError.invalid("field '\(key)': a device cannot save assets (it keeps no asset bytes)",
                                  hint: "save assets on the server with 'ck record save … \(key):asset=@file'")
        }
        var parser = ValueParser()
        parser.now = database.container.store.now
        var v = try parser.parse(text, as: type, path: "fields.\(key)")
        if let action { v = Device.withAction(v, action) }
        // A field the server holds encrypted stays encrypted, as encryptedValues[key] = value.
        return knownEncrypted ? try v.encrypting(path: "fields.\(key)") : v
    }

    package static func withAction(_ v: FieldValue, _ action: Reference.Action) -> FieldValue {
        switch v {
        case .reference(var r): r.action = action; return .reference(r)
        case .list(let b, let items): return .list(b, items.map { withAction($0, action) })
        default: return v
        }
    }

    /// Refuses an edit in a zone neither the device nor the server knows when its name is a near miss of one they do
    /// (`-z notes` beside Notes): the next sync would create a second zone instead of editing the one meant.
    package func refuseNearMiss(zone: String) throws(CKError) {
        try Device.refuseNearMiss(zone: zone, database: database, local: try knownZones())
    }

    /// The same check for a device not made yet (`local` zones: none), so a refused edit leaves no device behind.
    package static func refuseNearMiss(zone: String, database: CKDatabase, local: [String] = []) throws(CKError) {
        if local.contains(zone) { return }
        // The server's zones as the device's user sees them; offline (or refused), the device's own zones decide.
        let server = ((try? database.zones()) ?? []).map(\.zoneID.zoneName)
        if server.contains(zone) { return }
        let close = Names.nearMisses(of: zone, among: local + server)
        guard !close.isEmpty else { return }
        throw Names.nearMissError(.zoneNotFound, what: "zone", name: zone, place: "in the private database of user '\(database.user)'",
                                  close: close, create: "ck zone create \(zone)")
    }

    /// Devices sync custom zones only: the default zone has no change feed in CloudKit.
    package static func checkSyncZone(_ zone: String) throws(CKError) {
        try Names.validateZoneName(zone)
        if zone == Names.defaultZoneName {
            throw CKError.invalid("devices sync custom zones only: _defaultZone has no change feed in CloudKit, so a sync engine cannot follow it",
                                  hint: "create a zone ('ck zone create Notes') and pass -z Notes")
        }
    }
}
