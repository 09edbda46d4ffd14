import CKModel
import CKServer

/// zones/list, zones/lookup, zones/modify and the legacy zones/changes.
enum ZonesEndpoints {
    /// A zones/list entry as api.apple-cloudkit.com sends it: `{zoneID, atomic, isEligibleForZoneShare,
    /// isEligibleForHierarchicalShare}`; all three false for a default zone (web-services.md §6.4).
    static func zone(_ z: Zone) -> JSON {
        .object(["zoneID": WireRecordEncoder.zoneID(z.zoneID),
                 "atomic": .bool(z.capabilities.contains(.atomic)),
                 "isEligibleForZoneShare": .bool(z.capabilities.contains(.zoneWideSharing)),
                 "isEligibleForHierarchicalShare": .bool(z.capabilities.contains(.sharing))])
    }

    /// GET, or POST `{}` → `{zones:[…]}`.
    static func list(_ context: RequestContext) throws(CKError) -> JSON {
        .object(["zones": .array(try context.database().zones().map(zone))])
    }

    /// `{zones:[zoneID]}` → `{zones:[zone or {zoneID, reason, serverErrorCode:"ZONE_NOT_FOUND"}]}`, in request order.
    static func lookup(_ context: RequestContext) throws(CKError) -> JSON {
        let body = context.wire
        guard let items = try body.objects("zones") else { throw WireBody.bad("zones", "missing: zones/lookup needs zones [{\"zoneName\": …}]") }
        guard items.count <= CKDatabase.maxOperationsPerRequest else {
            throw WireBody.bad("zones", "\(items.count) zones in one request; CloudKit allows at most \(CKDatabase.maxOperationsPerRequest)")
        }
        var names: [String] = []
        for item in items {
            // Each item is a zone ID; a zone dictionary `{zoneID: {…}}` is read too.
            names.append(item.value("zoneID") != nil ? try item.zoneName(required: true) ?? "" : try item.asZoneName())
        }
        let zones = try context.database().zones()
        var out: [JSON] = []
        for name in names {
            // In the shared database a name may carry its owner (`NAME:OWNER`, from the zone ID's ownerRecordName).
            let id = try context.zoneID(named: name)
            let owned = context.scope == .shared && name.contains(":")
            if let z = zones.first(where: { $0.zoneID.zoneName == id.zoneName && (!owned || $0.zoneID.ownerRecordName == id.ownerRecordName) }) {
                out.append(zone(z))
                continue
            }
            out.append(WireError.item(context.failed(CKError(.zoneNotFound, "Zone '\(id.zoneName)' does not exist")), key: "zoneID",
                                      id: WireRecordEncoder.zoneID(id)))
        }
        return .object(["zones": .array(out)])
    }

    /// `{operations:[{operationType:"create"|"delete", zone:{zoneID, atomic?}, purge?}]}` → one entry per operation:
    /// create `{zoneID, syncToken, atomic}`, delete `{zoneID, deleted:true}`, or `{zoneID, reason, serverErrorCode}`.
    static func modify(_ context: RequestContext) throws(CKError) -> JSON {
        let body = context.wire
        guard let items = try body.objects("operations") else {
            throw WireBody.bad("operations", "missing: zones/modify needs operations [{\"operationType\", \"zone\"}]")
        }
        guard items.count <= CKDatabase.maxOperationsPerRequest else {
            throw WireBody.bad("operations", "\(items.count) operations in one request; CloudKit allows at most \(CKDatabase.maxOperationsPerRequest)")
        }
        // Read whole first: a malformed operation refuses the request before any zone changes.
        var ops: [(create: Bool, name: String)] = []
        var seen = Set<String>()
        for item in items {
            for k in item.object.keys where !["operationType", "zone", "purge"].contains(k) {
                throw WireBody.bad(item.place(k), "unknown key '\(k)' in a zone operation (expected operationType, zone, purge)")
            }
            let type = try item.string("operationType")
            guard type == "create" || type == "delete" else {
                throw WireBody.bad(item.place("operationType"), type.map { "unknown operationType '\($0)' (expected create or delete)" } ?? "missing")
            }
            _ = try item.bool("purge")
            guard let z = try item.object("zone") else { throw WireBody.bad(item.place("zone"), "missing: each operation needs a zone {\"zoneID\": …}") }
            _ = try z.bool("atomic")
            guard let name = try z.zoneName(required: true) else { throw WireBody.bad(z.place("zoneID"), "missing") }
            guard seen.insert(name).inserted else {
                throw WireBody.bad(item.place("zone"), "only one operation per zone is allowed; zone '\(name)' appears twice")
            }
            ops.append((type == "create", name))
        }
        let db = try context.database()
        var out: [JSON] = []
        for op in ops {
            let id = WireRecordEncoder.zoneID(db.zoneID(op.name))
            do throws(CKError) {
                if op.create {
                    let (zone, _) = try db.createZone(op.name)
                    let token = ChangeToken(kind: .zone, environment: db.environment, database: db.scope, owner: zone.zoneID.ownerRecordName,
                                            zoneName: zone.zoneID.zoneName, zoneSeq: zone.seq, compacted: zone.compactedSeq,
                                            position: max(zone.seq, zone.compactedSeq))
                    out.append(.object(["zoneID": WireRecordEncoder.zoneID(zone.zoneID), "syncToken": .string(token.encoded),
                                        "atomic": .bool(zone.capabilities.contains(.atomic))]))
                } else {
                    // `purge` (seen in iCloud.com traffic) deletes the zone and its records, as a delete does.
                    try db.deleteZone(op.name)
                    out.append(.object(["zoneID": id, "deleted": .bool(true)]))
                }
            } catch {
                var e = error
                // Zone rules of the database (no custom zones in public or shared) are a bad request on the wire.
                if e.code == .badDatabase { e.serverErrorCode = "BAD_REQUEST" }
                out.append(WireError.item(context.failed(e), key: "zoneID", id: id))
            }
        }
        return .object(["zones": .array(out)])
    }

    /// Legacy `{metaSyncToken?, resultsLimit?}` → `{zones, metaSyncToken, moreComing}`: zones changed since the token
    /// (a deleted one as `{zoneID, deleted:true}`).
    static func changes(_ context: RequestContext) throws(CKError) -> JSON {
        let body = context.wire
        let db = try context.database()
        let changes = try db.databaseChanges(since: try body.string("metaSyncToken"), limit: try body.int("resultsLimit", in: 1...Int(Int32.max)))
        let current = try db.zones()
        let zones = changes.zones.map { z -> JSON in
            if !z.deleted, let found = current.first(where: { $0.zoneID == z.zoneID }) { return zone(found) }
            return .object(["zoneID": WireRecordEncoder.zoneID(z.zoneID), "deleted": .bool(true)])
        }
        return .object(["zones": .array(zones), "metaSyncToken": .string(changes.syncToken), "moreComing": .bool(changes.moreComing)])
    }
}
