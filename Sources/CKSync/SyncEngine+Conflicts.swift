import Foundation
import CKModel
import CKServer

/// Failed saves — the record changed on the server (`serverRecordChanged`) or was deleted there (`unknownItem`) —
/// handled as `--on-conflict` says: merged, given to the server or the client, run through the app's merge
/// program, or handed back to the app as CKSyncEngine does.
extension SyncEngine {
    /// Handles a failed save of `edit`; `server` is the server's record, nil when the server deleted it. Answers
    /// the operation to send again (with the merge to report once it is saved), or nil when the edit is settled
    /// or left pending as a conflict.
    package func failedSave(_ edit: PendingEdit, server: Record?, _ report: inout SyncReport) throws(CKError) -> (RecordOperation, SyncReport.Merge?)? {
        let keys = edit.fields.keys.sorted().joined(separator: ", ")
        switch onConflict {
        case .merge:
            guard let server else {
                // Deleted on the server while the device edited it: the deletion wins.
                try acknowledge(edit, saved: nil)
                report.dropped.append(.init(zoneName: edit.zone, recordName: edit.name,
                                            reason: "deleted on the server; the device's edit of \(keys) was dropped"))
                return nil
            }
            let (op, merge) = merged(edit, server: server)
            if let op { return (op, merge) }
            // Nothing of the device's is left to send: the server's record is the result.
            try acknowledge(edit, saved: server)
            report.merges.append(merge)
            return nil
        case .server:
            try acknowledge(edit, saved: server)
            let what = edit.isDelete ? "deletion" : "edit of \(keys)"
            report.dropped.append(.init(zoneName: edit.zone, recordName: edit.name, reason: server == nil
                ? "deleted on the server; the device's \(what) was dropped (--on-conflict server)"
                : "changed on the server; its record was kept and the device's \(what) was dropped (--on-conflict server)"))
            return nil
        case .client:
            let fields = device.clientFields(edit)
            guard let op = rewrite(edit, to: fields, server: server) else {
                try acknowledge(edit, saved: server)
                return nil
            }
            var merge = SyncReport.Merge(zoneName: edit.zone, recordName: edit.name, mergedKeys: [], conflicts: [], deleteKept: edit.isDelete ? true : nil)
            merge.conflicts = op.fields.keys.sorted().map { SyncReport.KeyConflict(key: $0, winner: .local) }
            if edit.isDelete { merge.conflicts = [.init(key: "(record deleted on the device)", winner: .local)] }
            return (op, merge)
        case .manual:
            try holdConflict(edit, server: server, why: nil, &report)
            return nil
        case .program(let command):
            let merged: [String: FieldValue]?
            do { merged = try runProgram(command, edit: edit, server: server) } catch {
                try holdConflict(edit, server: server, why: error.reason, &report)
                return nil
            }
            guard let op = rewrite(edit, to: merged, server: server) else {
                try acknowledge(edit, saved: server)
                return nil
            }
            return (op, SyncReport.Merge(zoneName: edit.zone, recordName: edit.name, mergedKeys: op.fields.keys.sorted(), conflicts: [],
                                         deleteKept: op.type == .delete ? true : nil))
        }
    }

    /// Leaves the edit pending with the server record stored beside it, and reports the conflict.
    package func holdConflict(_ edit: PendingEdit, server: Record?, why: String?, _ report: inout SyncReport) throws(CKError) {
        try device.transaction { () throws(CKError) in
            try device.putConflict(edit, server: server, error: why)
            // Deleted on the server: the edit becomes what keeping the device's version would take (a create), so
            // the pull, which drops edits of records deleted there, leaves it to the app.
            if server == nil, !edit.isDelete, let fields = device.clientFields(edit) {
                var p = edit
                p.fields = fields.mapValues { .some($0) }
                p.base = nil
                p.version += 1
                try device.putPending(p)
            }
        }
        let place = "record '\(edit.name)' in zone \(edit.zone)"
        let what = server.map { "changed on the server (tag \($0.changeTag))" } ?? "deleted on the server"
        let reason = (why.map { $0 + "; " } ?? "")
            + "\(place) was \(what) since device '\(device.name)' fetched it; its edit stays pending as a conflict"
            + (why == nil ? " (--on-conflict manual)" : "")
        let error = CKError(server == nil ? .unknownItem : .serverRecordChanged, reason,
                            hint: "'ck device conflicts \(device.name)' shows the ancestor, client and server records; "
                                + "'ck device resolve \(device.name) \(edit.name) -z \(edit.zone) --take server|client|FIELD,…' resolves it")
        report.conflicts.append(.init(zoneName: edit.zone, recordName: edit.name, serverChangeTag: server?.changeTag, error: error))
    }

    /// The operation that makes the server's record `fields` (nil: deleted): only the keys that differ, under the
    /// server's change tag; a create when the server has no record. Nil when nothing differs.
    package func rewrite(_ edit: PendingEdit, to fields: [String: FieldValue]?, server: Record?) -> RecordOperation? {
        guard let fields else {
            guard let server else { return nil }
            return RecordOperation(type: .delete, recordName: edit.name, recordType: server.recordType, changeTag: server.changeTag)
        }
        guard let server else {
            return RecordOperation(type: .create, recordName: edit.name, recordType: edit.type, fields: fields.mapValues { .value($0) })
        }
        var send: [String: FieldInput] = [:]
        for (k, v) in fields where server.fields[k] != v { send[k] = .value(v) }
        for k in server.fields.keys where fields[k] == nil { send[k] = .unset }
        if send.isEmpty { return nil }
        return RecordOperation(type: .update, recordName: edit.name, recordType: server.recordType, changeTag: server.changeTag, fields: send)
    }

    /// Runs the app's merge program on one conflict and reads the record it prints (nil: `null`, delete it).
    /// Any failure is an error naming the program and what it did.
    package func runProgram(_ command: String, edit: PendingEdit, server: Record?) throws(CKError) -> [String: FieldValue]? {
        let input = JSON.object(["ancestor": edit.base?.json() ?? .null, "client": device.clientJSON(edit) ?? .null,
                                 "server": server?.json() ?? .null])
        let program = ConflictProgram(command: command, timeout: conflictTimeout)
        let output = try program.run(Array((input.serialized() + "\n").utf8))
        let text = String(decoding: output, as: UTF8.self)
        let json: JSON
        do { json = try JSON.parse(text) } catch {
            throw program.failure("printed invalid JSON (\(error.message)); its output began: \(ConflictProgram.excerpt(output))")
        }
        if json.isNull { return nil }
        let name = json["recordName"]?.stringValue
        let type = json["recordType"]?.stringValue
        guard json.objectValue != nil, let name else {
            throw program.failure("printed \(ConflictProgram.excerpt(output)), not a record with a recordName")
        }
        guard name == edit.name, type == nil || type == edit.type else {
            throw program.failure("printed record '\(name)'\(type.map { " of type \($0)" } ?? ""), not '\(edit.name)' of type \(edit.type)")
        }
        do { return try SyncEngine.fields(of: json, path: "the output of conflict program '\(command)'") } catch {
            throw program.failure("printed a record whose fields are invalid: \(error.reason)")
        }
    }

    /// The fields of a Web Services record dictionary (its `fields` object; missing = none).
    package static func fields(of json: JSON, path: String) throws(CKError) -> [String: FieldValue] {
        guard let fj = json["fields"], !fj.isNull else { return [:] }
        guard case .object(let o) = fj else { throw CKError.invalid("\(path).fields: expected an object") }
        var out: [String: FieldValue] = [:]
        for (k, v) in o {
            try Names.validateFieldName(k)
            if let value = try FieldValue.from(fieldJSON: v, declared: nil, path: "\(path).fields.\(k)") { out[k] = value }
        }
        return out
    }

    /// Three-way merge against the server's current record; nil operation when nothing is left to send.
    package func merged(_ edit: PendingEdit, server: Record) -> (RecordOperation?, SyncReport.Merge) {
        var merge = SyncReport.Merge(zoneName: edit.zone, recordName: edit.name, mergedKeys: [], conflicts: [], deleteKept: nil)
        if edit.isDelete {
            // The server changed a record the device deleted: a conflict on the whole record.
            let keep = conflicts == .local
            merge.deleteKept = keep
            merge.conflicts = [.init(key: "(record deleted on the device)", winner: conflicts)]
            let op = RecordOperation(type: .delete, recordName: edit.name, recordType: server.recordType, changeTag: server.changeTag)
            return (keep ? op : nil, merge)
        }
        var send: [String: FieldInput] = [:]
        for key in edit.fields.keys.sorted() {
            guard let local = edit.fields[key] else { continue }
            let theirs = server.fields[key]
            if theirs == local { continue }  // both sides agree already
            let ancestor = edit.base?.fields[key]
            if theirs == ancestor {
                merge.mergedKeys.append(key)
                send[key] = local.map { .value($0) } ?? .unset
            } else {
                merge.conflicts.append(.init(key: key, winner: conflicts))
                if conflicts == .local { send[key] = local.map { .value($0) } ?? .unset }
            }
        }
        if send.isEmpty { return (nil, merge) }
        return (RecordOperation(type: .update, recordName: edit.name, recordType: edit.type, changeTag: server.changeTag, fields: send), merge)
    }
}
