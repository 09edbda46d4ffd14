import Foundation
import CKModel

/// Conflicts handed back to the app: the `conflicts` table, made on first use (as the kv tables are), so a device
/// file of an older ck needs no migration and an older ck still opens a file that has it.
extension Device {
    package func prepareConflicts() throws(CKError) {
        try exec("""
            CREATE TABLE IF NOT EXISTS conflicts(zone TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, server_tag TEXT,
                ancestor TEXT, client TEXT, server TEXT, error TEXT, created INTEGER NOT NULL, PRIMARY KEY(zone, name));
            """)
    }

    /// Forgets the conflicts of a zone the device wiped, or all of them when the account's data went: a conflict
    /// outliving its edit and server copy would be listed and resolved into a zone or account that is gone.
    package func forgetConflicts(zone: String? = nil) throws(CKError) {
        try prepareConflicts()
        if let zone { try run("DELETE FROM conflicts WHERE zone = ?1", [zone]) } else { try run("DELETE FROM conflicts") }
    }

    /// The pending conflicts, in one zone or all, by zone and name.
    public func conflicts(zone: String? = nil) throws(CKError) -> [PendingConflict] {
        if let zone { try Names.validateZoneName(zone) }
        try prepareConflicts()
        let text = "SELECT zone, name, type, server_tag, ancestor, client, server, error, created FROM conflicts"
            + (zone == nil ? " ORDER BY zone, name" : " WHERE zone = ?1 ORDER BY name")
        let stored = try rows(text, zone.map { [$0] } ?? []) { (s) throws(CKError) -> PendingConflict in
            func json(_ i: Int32) throws(CKError) -> JSON? {
                if s.isNull(i) { return nil }
                do { return try JSON.parse(s.text(i)) } catch { throw CKError.corrupt(path: path, "a conflict record is not JSON: \(error.message)") }
            }
            return PendingConflict(zoneName: s.text(0), recordName: s.text(1), recordType: s.text(2),
                                   serverChangeTag: s.isNull(3) ? nil : s.text(3), ancestor: try json(4), client: try json(5),
                                   server: try json(6), error: s.isNull(7) ? nil : s.text(7), created: s.int(8))
        }
        // The client's version is the edit as it is now: a local edit made since the conflict is part of it.
        var out: [PendingConflict] = []
        for var c in stored {
            if let p = try pendingEdit(zone: c.zoneName, name: c.recordName) { c.client = clientJSON(p) }
            out.append(c)
        }
        return out
    }

    /// Names of the records in conflict in a zone (or all zones, as `zone/name`): their edits are not sent.
    package func conflictKeys() throws(CKError) -> Set<String> {
        try prepareConflicts()
        return Set(try rows("SELECT zone, name FROM conflicts") { $0.text(0) + "/" + $0.text(1) })
    }

    /// The pending edits a push may send: those of records in conflict wait for `ck device resolve`.
    package func sendable(_ edits: [PendingEdit]) throws(CKError) -> [PendingEdit] {
        let held = try conflictKeys()
        return held.isEmpty ? edits : edits.filter { !held.contains($0.zone + "/" + $0.name) }
    }

    /// Forgets the held conflicts, so their edits are sent again and meet the sync's `--on-conflict` anew. An edit
    /// held as a create (its record deleted on the server) is based on its ancestor again, so that it meets the
    /// deletion rather than create the record behind the policy's back.
    package func releaseConflicts() throws(CKError) {
        try transaction { () throws(CKError) in
            for c in try conflicts() where c.server == nil {
                guard let a = c.ancestor, let p = try pendingEdit(zone: c.zoneName, name: c.recordName), p.base == nil else { continue }
                try rebasePending(zone: c.zoneName, name: c.recordName, on: try Record(json: a, path: path + ": conflicts.ancestor"))
            }
            try run("DELETE FROM conflicts")
        }
    }

    /// Stores a failed save for the app to resolve; the edit itself stays pending.
    package func putConflict(_ edit: PendingEdit, server: Record?, error: String?) throws(CKError) {
        try prepareConflicts()
        try run("INSERT OR REPLACE INTO conflicts(zone, name, type, server_tag, ancestor, client, server, error, created) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                [edit.zone, edit.name, edit.type, server?.changeTag, edit.base?.json().serialized(), clientJSON(edit)?.serialized(),
                 server?.json().serialized(), error, database.container.store.now()])
    }

    /// The device's version of an edited record: its ancestor with the edit on top; nil for a deletion.
    package func clientFields(_ edit: PendingEdit) -> [String: FieldValue]? {
        if edit.isDelete { return nil }
        var fields = edit.base?.fields ?? [:]
        for (k, v) in edit.fields { fields[k] = v }
        return fields
    }

    /// `clientFields` as a Web Services record: the ancestor's dictionary (tag included) with the device's fields.
    package func clientJSON(_ edit: PendingEdit) -> JSON? {
        guard let fields = clientFields(edit) else { return nil }
        var o: [String: JSON] = edit.base?.json().objectValue
            ?? ["recordName": .string(edit.name), "recordType": .string(edit.type), "zoneID": database.zoneID(edit.zone).json]
        var f: [String: JSON] = [:]
        for (k, v) in fields { f[k] = v.fieldJSON }
        o["fields"] = .object(f)
        return .object(o)
    }

    /// Resolves a conflict as `ck device resolve` does, in one transaction under the device's lock: the device
    /// takes the server's record as its copy, and what is kept of its own version becomes an edit based on the
    /// server record's change tag (a create when the server deleted it), which the next sync sends.
    /// Without `zone`, the record is looked for in every zone. Answers the record as the device now shows it.
    public func resolveConflict(_ name: String, zone: String?, take: ConflictTake) throws(CKError) -> LocalRecord? {
        try Names.validateRecordName(name)
        return try exclusively { () throws(CKError) -> LocalRecord? in
            let zoneName = try transaction { () throws(CKError) -> String in
                let found = try conflicts(zone: zone).filter { $0.recordName == name }
                guard let c = found.first else {
                    throw CKError(.unknownItem, "no conflict for record '\(name)'\(zone.map { " in zone \($0)" } ?? "") on device '\(self.name)'",
                                  hint: "'ck device conflicts \(self.name)' lists the pending conflicts; a sync with --on-conflict manual leaves them")
                }
                guard found.count == 1 else {
                    throw CKError.invalid("record '\(name)' is in conflict in zones \(found.map(\.zoneName).joined(separator: ", ")) on device '\(self.name)'",
                                          hint: "pass -z with one of them")
                }
                try apply(c, take: take)
                return c.zoneName
            }
            return try record(name, zone: zoneName)
        }
    }

    private func apply(_ c: PendingConflict, take: ConflictTake) throws(CKError) {
        let zone = c.zoneName, name = c.recordName
        let place = "record '\(name)' in zone \(zone) on device '\(self.name)'"
        let server = try c.server.map { (j) throws(CKError) in try Record(json: j, path: path + ": conflicts.server") }
        let pending = try pendingEdit(zone: zone, name: name)
        let client: [String: FieldValue]?
        if let pending { client = clientFields(pending) } else {
            client = try c.client.map { (j) throws(CKError) in try SyncEngine.fields(of: j, path: path + ": conflicts.client") }
        }
        var result: [String: FieldValue]?
        switch take {
        case .server: result = server?.fields
        case .client: result = client
        case .fields(let keys):
            guard let client else {
                throw CKError.invalid("\(place): the device deleted it, so there are no fields of its to take",
                                      hint: "take server (keep the record) or client (delete it)")
            }
            var fields = server?.fields ?? [:]
            for k in keys {
                try Names.validateFieldName(k)
                guard client[k] != nil || server?.fields[k] != nil else {
                    let known = Set(client.keys).union(server.map { Array($0.fields.keys) } ?? []).sorted()
                    throw CKError.invalid("\(place): neither version has a field '\(k)'",
                                          hint: "its fields: " + (known.isEmpty ? "none" : known.joined(separator: ", ")))
                }
                fields[k] = client[k]
            }
            result = fields
        }
        try run("DELETE FROM conflicts WHERE zone = ?1 AND name = ?2", [zone, name])
        if let server { try putServerRecord(server) } else { try removeServerRecord(zone: zone, name: name) }
        try dropPending(zone: zone, name: name)
        let version = (pending?.version ?? 0) + 1
        // What is kept, as an edit of the server's record: only what differs from it, based on its tag.
        guard let result else {
            // The device's deletion kept: delete the server's record (nothing to do when it is gone already).
            if take == .client, let server {
                try putPending(PendingEdit(zone: zone, name: name, type: c.recordType, isDelete: true, fields: [:], base: server, version: version))
            }
            return
        }
        var changed: [String: FieldValue?] = [:]
        for (k, v) in result where server?.fields[k] != v { changed[k] = .some(v) }
        for k in (server?.fields.keys).map(Array.init) ?? [] where result[k] == nil { changed[k] = .some(nil) }
        if changed.isEmpty && server != nil { return }
        try putPending(PendingEdit(zone: zone, name: name, type: c.recordType, isDelete: false, fields: changed, base: server, version: version))
    }
}
