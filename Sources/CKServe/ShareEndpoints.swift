import CKModel
import CKServer

/// records/resolve and records/accept on `/public/` (sharing.md §10.3–10.4): share metadata by short GUID.
enum ShareEndpoints {
    /// One requested short GUID: `{value, shouldFetchRootRecord?, rootRecordDesiredKeys?}` or a bare string.
    struct Item {
        var value: String
        var fetchRoot: Bool
        var rootKeys: [String]?
    }

    /// `{shortGUIDs:[…]}` → `{results:[metadata or {shortGUID:{value}, reason, serverErrorCode}]}`, in request order.
    static func resolve(_ context: RequestContext) throws(CKError) -> JSON {
        try answer(context) { (db, guid) throws(CKError) in try db.resolveShare(guid) }
    }

    /// As resolve, accepting each share as the signed-in caller first.
    static func accept(_ context: RequestContext) throws(CKError) -> JSON {
        guard context.caller.userName != nil else {
            throw CKError(.notAuthenticated, "records/accept needs a signed-in user; this request has none (\(context.principal.logName))")
        }
        return try answer(context) { (db, guid) throws(CKError) in try db.acceptShare(guid) }
    }

    static func answer(_ context: RequestContext, _ perform: (CKDatabase, String) throws(CKError) -> ShareMetadata) throws(CKError) -> JSON {
        let items = try read(context.wire)
        // The core's accept writes the share through the handle's database: it must be the caller's private one
        // (a /public/ handle would write the owner's zone log under public/).
        let db = try context.container().database(.private, environment: context.environment, caller: context.caller)
        var out: [JSON] = []
        for item in items {
            do throws(CKError) {
                out.append(result(try perform(db, item.value), item: item, context: context))
            } catch {
                // No signed-in user refuses the whole request (421), as other routes do; the rest fail in place.
                if error.code == .notAuthenticated { throw error }
                out.append(WireError.item(context.failed(error), key: "shortGUID", id: .object(["value": .string(item.value)])))
            }
        }
        return .object(["results": .array(out)])
    }

    /// The request's items, read whole before any is performed.
    static func read(_ body: WireBody) throws(CKError) -> [Item] {
        guard let v = body.value("shortGUIDs") else {
            throw WireBody.bad("shortGUIDs", "missing: the request needs shortGUIDs [{\"value\": …}]")
        }
        guard case .array(let list) = v else { throw WireBody.bad("shortGUIDs", "expected an array, got \(v.kindName)") }
        guard !list.isEmpty else { throw WireBody.bad("shortGUIDs", "empty: name at least one short GUID") }
        guard list.count <= CKDatabase.maxOperationsPerRequest else {
            throw WireBody.bad("shortGUIDs", "\(list.count) short GUIDs in one request; ck takes at most \(CKDatabase.maxOperationsPerRequest)")
        }
        var items: [Item] = []
        for (i, entry) in list.enumerated() {
            let place = "shortGUIDs[\(i)]"
            // CloudKit JS sends bare strings, which it documents as `{value}`.
            if let s = entry.stringValue {
                items.append(Item(value: s, fetchRoot: true, rootKeys: nil))
                continue
            }
            guard case .object(let o) = entry else { throw WireBody.bad(place, "expected {\"value\": …} or a string, got \(entry.kindName)") }
            let item = WireBody(o, path: place)
            for k in o.keys where !["value", "shouldFetchRootRecord", "rootRecordDesiredKeys"].contains(k) {
                throw WireBody.bad(item.place(k), "unknown key '\(k)' (expected value, shouldFetchRootRecord, rootRecordDesiredKeys)")
            }
            guard let value = try item.string("value") else { throw WireBody.bad(item.place("value"), "missing: the short GUID") }
            items.append(Item(value: value, fetchRoot: try item.bool("shouldFetchRootRecord") ?? true,
                              rootKeys: try item.desiredKeys("rootRecordDesiredKeys")))
        }
        return items
    }

    /// The metadata dictionary with wire records: the share with the caller as `currentUserParticipant`, the root
    /// only when asked for, with the desired keys.
    static func result(_ meta: ShareMetadata, item: Item, context: RequestContext) -> JSON {
        var o = meta.json.objectValue ?? [:]
        // The records sit in the owner's private zone: their zone IDs are shown, as outside the public database.
        let encoder = WireRecordEncoder(context, scope: .private)
        o["shortGUID"] = .object(["value": .string(meta.entry.share.shortGUID ?? item.value), "shouldFetchRootRecord": .bool(item.fetchRoot)])
        o["zoneID"] = WireRecordEncoder.zoneID(meta.entry.zone.zoneID)
        o["share"] = encoder.record(meta.entry.share, viewer: meta.participant)
        if item.fetchRoot, let root = meta.root {
            o["rootRecord"] = encoder.record(root, keys: item.rootKeys)
        } else {
            o["rootRecord"] = nil
        }
        return .object(o)
    }
}
