import Foundation
import CKModel
import CKSQLite

/// A pending edit as stored: the keys a device changed (nil = removed), or a deletion.
package struct PendingEdit {
    package var zone: String
    package var name: String
    package var type: String
    package var isDelete: Bool
    package var fields: [String: FieldValue?]
    /// The server copy the first of these edits was made on (the ancestor of a merge); nil for a new record.
    package var base: Record?
    /// Bumped by every local edit: a push marks the edit done only if it is still the version it sent.
    package var version: Int64
}

extension Device {
    // MARK: Server copies (the ancestors)

    package func serverRecord(zone: String, name: String) throws(CKError) -> Record? {
        try rows("SELECT record FROM server_records WHERE zone = ?1 AND name = ?2", [zone, name]) { (s) throws(CKError) in
            try decodeRecord(s.text(0))
        }.first
    }

    package func serverRecords(zone: String?) throws(CKError) -> [Record] {
        let sqlText = zone == nil ? "SELECT record FROM server_records ORDER BY zone, name"
                                  : "SELECT record FROM server_records WHERE zone = ?1 ORDER BY name"
        return try rows(sqlText, zone.map { [$0] } ?? []) { (s) throws(CKError) in try decodeRecord(s.text(0)) }
    }

    /// The names of a zone's server copies (without decoding the records).
    package func serverRecordNames(zone: String) throws(CKError) -> [String] {
        try rows("SELECT name FROM server_records WHERE zone = ?1 ORDER BY name", [zone]) { $0.text(0) }
    }

    package func decodeRecord(_ text: String) throws(CKError) -> Record {
        let json: JSON
        do { json = try JSON.parse(text) } catch { throw CKError.corrupt(path: path, "a server record is not JSON: \(error.message)") }
        return try Record(json: json, path: path + ": server_records")
    }

    /// Stores a server copy, through `insert` (`putServerRecordSQL` prepared) when the caller holds one.
    package func putServerRecord(_ r: Record, with insert: SQLiteStatement? = nil) throws(CKError) {
        let values: [any SQLiteBindable] = [r.zoneID.zoneName, r.recordName, r.recordType, r.changeTag, r.json().serialized()]
        guard let insert else { return try run(Device.putServerRecordSQL, values) }
        do { try insert.run(values) } catch { throw fail(error) }
    }

    /// The statement that stores a server copy; a pull prepares it once a page (`putServerRecord(zone:stored:with:)`).
    package static let putServerRecordSQL = "INSERT OR REPLACE INTO server_records(zone, name, type, tag, record) VALUES(?1, ?2, ?3, ?4, ?5)"

    /// Stores a record pulled as its log line's bytes, which are its Web Services JSON as `putServerRecord` writes
    /// it (`StoredRecord`): nothing is decoded or rendered. `insert` is `putServerRecordSQL` prepared. Returns the
    /// record's name.
    package func putServerRecord(zone: String, stored r: StoredRecord, with insert: SQLiteStatement) throws(CKError) -> String {
        let name = r.string(r.name)
        do {
            try insert.run([zone, name, r.string(r.type), r.string(r.tag), String(decoding: r.bytes, as: UTF8.self)])
        } catch { throw fail(error) }
        return name
    }

    package func removeServerRecord(zone: String, name: String) throws(CKError) {
        try run("DELETE FROM server_records WHERE zone = ?1 AND name = ?2", [zone, name])
    }

    // MARK: Pending edits

    package func pendingEdits(zone: String?) throws(CKError) -> [PendingEdit] {
        let sqlText = zone == nil ? "SELECT zone, name, type, op, fields, version, base FROM pending ORDER BY zone, modified, name"
                                  : "SELECT zone, name, type, op, fields, version, base FROM pending WHERE zone = ?1 ORDER BY modified, name"
        return try rows(sqlText, zone.map { [$0] } ?? []) { (s) throws(CKError) in
            PendingEdit(zone: s.text(0), name: s.text(1), type: s.text(2), isDelete: s.text(3) == "delete",
                        fields: try decodeFields(s.text(4)), base: s.isNull(6) ? nil : try decodeRecord(s.text(6)), version: s.int(5))
        }
    }

    package func pendingEdit(zone: String, name: String) throws(CKError) -> PendingEdit? {
        try pendingEdits(zone: zone).first { $0.name == name }
    }

    package func putPending(_ p: PendingEdit) throws(CKError) {
        try run("INSERT OR REPLACE INTO pending(zone, name, type, op, fields, base, version, modified) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                [p.zone, p.name, p.type, p.isDelete ? "delete" : "save", encodeFields(p.fields), p.base?.json().serialized(),
                 p.version, database.container.store.now()])
    }

    /// Marks an edit done — only if no newer local edit replaced it meanwhile.
    package func clearPending(zone: String, name: String, version: Int64) throws(CKError) {
        try run("DELETE FROM pending WHERE zone = ?1 AND name = ?2 AND version = ?3", [zone, name, version])
    }

    /// After a push that a newer local edit overtook: the edit left is now based on what the server answered.
    package func rebasePending(zone: String, name: String, on record: Record) throws(CKError) {
        try run("UPDATE pending SET base = ?3 WHERE zone = ?1 AND name = ?2", [zone, name, record.json().serialized()])
    }

    package func dropPending(zone: String, name: String) throws(CKError) {
        try run("DELETE FROM pending WHERE zone = ?1 AND name = ?2", [zone, name])
    }

    package func encodeFields(_ fields: [String: FieldValue?]) -> String {
        var o: [String: JSON] = [:]
        for (k, v) in fields { o[k] = v?.fieldJSON ?? .null }
        return JSON.object(o).serialized()
    }

    package func decodeFields(_ text: String) throws(CKError) -> [String: FieldValue?] {
        let json: JSON
        do { json = try JSON.parse(text) } catch { throw CKError.corrupt(path: path, "pending fields are not JSON: \(error.message)") }
        guard let o = json.objectValue else { throw CKError.corrupt(path: path, "pending fields are not an object") }
        var out: [String: FieldValue?] = [:]
        for (k, v) in o {
            out[k] = v.isNull ? .some(nil) : .some(try FieldValue.from(fieldJSON: v, declared: nil, path: path + ": pending.fields." + k))
        }
        return out
    }

    // MARK: Tokens

    package func zoneToken(_ zone: String) throws(CKError) -> String? {
        try rows("SELECT token FROM zones WHERE zone = ?1", [zone]) { $0.isNull(0) ? nil : $0.text(0) }.first ?? nil
    }

    package func setZoneToken(_ zone: String, _ token: String?) throws(CKError) {
        try run("INSERT INTO zones(zone, token) VALUES(?1, ?2) ON CONFLICT(zone) DO UPDATE SET token = excluded.token", [zone, token])
    }

    /// Forgets the server's copy of a zone: records and token. Pending edits stay.
    package func wipeZone(_ zone: String) throws(CKError) {
        try run("DELETE FROM server_records WHERE zone = ?1", [zone])
        try run("DELETE FROM zones WHERE zone = ?1", [zone])
        try forgetConflicts(zone: zone)
    }

    /// Zones the device holds anything in (server copies, tokens or pending edits).
    package func knownZones() throws(CKError) -> [String] {
        try rows("SELECT zone FROM zones UNION SELECT zone FROM server_records UNION SELECT zone FROM pending ORDER BY 1") { $0.text(0) }
    }
}
