import CKModel
import CKServer

/// changes/database and changes/zone (private and shared databases only).
enum ChangesEndpoints {
    /// `{}` or `{syncToken, resultsLimit?}` → `{zones:[{zoneID, deleted?}], syncToken, moreComing}`.
    static func database(_ context: RequestContext) throws(CKError) -> JSON {
        let body = context.wire
        let token = try body.string("syncToken")
        let limit = try body.int("resultsLimit", in: 1...Int(Int32.max))
        let changes = try context.database().databaseChanges(since: token, limit: limit)
        // A zone the user purged is a deleted zone on the wire (pyicloud's strict mode rejects a `purged` key).
        let zones = changes.zones.map { z -> JSON in
            var o: [String: JSON] = ["zoneID": WireRecordEncoder.zoneID(z.zoneID)]
            if z.deleted { o["deleted"] = .bool(true) }
            return .object(o)
        }
        return .object(["zones": .array(zones), "syncToken": .string(changes.syncToken), "moreComing": .bool(changes.moreComing)])
    }

    /// `{zones:[{zoneID, syncToken?, desiredKeys?, desiredRecordTypes?, resultsLimit?}], …the same keys as defaults}` →
    /// `{zones:[{zoneID, syncToken, moreComing, records} or {zoneID, reason, serverErrorCode}]}`.
    static func zone(_ context: RequestContext) throws(CKError) -> JSON {
        let body = context.wire
        guard let items = try body.objects("zones") else {
            throw WireBody.bad("zones", "missing: changes/zone needs zones [{\"zoneID\": {\"zoneName\": …}}]")
        }
        guard items.count <= CKDatabase.maxOperationsPerRequest else {
            throw WireBody.bad("zones", "\(items.count) zones in one request; CloudKit allows at most \(CKDatabase.maxOperationsPerRequest)")
        }
        // Every item is read before any zone is: a malformed one refuses the request.
        var requests: [(zone: String, request: ZoneFeedRequest)] = []
        for item in items {
            guard let zone = try item.zoneName(required: true) else { throw WireBody.bad(item.place("zoneID"), "missing") }
            requests.append((zone, try ZoneFeedRequest(item, outer: body)))
        }
        var out: [JSON] = []
        for (zone, request) in requests {
            do {
                let page = try request.fetch(context, zone: zone)
                out.append(.object(["zoneID": WireRecordEncoder.zoneID(page.zoneID), "records": .array(page.records),
                                    "syncToken": .string(page.syncToken), "moreComing": .bool(page.moreComing)]))
            } catch where error.code == .zoneNotFound || error.code == .userDeletedZone || error.code == .permissionFailure {
                // A zone that can't be read fails in its place; a bad token or a default zone refuses the request.
                let id = try context.zoneID(named: zone)
                var e = error
                if e.code == .zoneNotFound { e.reason = "Zone '\(id.zoneName)' does not exist" }
                out.append(WireError.item(context.failed(e), key: "zoneID", id: WireRecordEncoder.zoneID(id)))
            }
        }
        return .object(["zones": .array(out)])
    }
}

/// One zone's change-feed request (changes/zone item, or the legacy records/changes body): its keys, else the
/// outer body's.
struct ZoneFeedRequest {
    var syncToken: String?
    var limit: Int
    var desiredKeys: [String]?
    var desiredRecordTypes: [String]?
    var numbersAsStrings: Bool

    init(_ item: WireBody, outer: WireBody?) throws(CKError) {
        // Each key from the item when it has it, else from the outer body.
        let sources = [item] + (outer.map { [$0] } ?? [])
        func from(_ key: String) -> WireBody { sources.first { $0.value(key) != nil } ?? item }
        syncToken = try from("syncToken").string("syncToken")
        limit = min(try from("resultsLimit").int("resultsLimit", in: 1...Int(Int32.max)) ?? RecordsEndpoints.maxResults,
                    RecordsEndpoints.maxResults)
        desiredKeys = try from("desiredKeys").desiredKeys()
        desiredRecordTypes = try from("desiredRecordTypes").desiredKeys("desiredRecordTypes")
        // changes/zone spells it numberAsStrings (sic, cloudkit.md §2.2); take either.
        let spelled = try from("numbersAsStrings").bool("numbersAsStrings")
        let sic = try from("numberAsStrings").bool("numberAsStrings")
        numbersAsStrings = spelled ?? sic ?? false
        if try from("reverse").bool("reverse") == true {
            throw WireBody.bad(from("reverse").place("reverse"), "reverse change feeds are not supported by ck")
        }
    }
    /// One page of the zone's feed as wire records and tombstones.
    struct Page {
        var zoneID: ZoneID
        var records: [JSON]
        var syncToken: String
        var moreComing: Bool
    }

    func fetch(_ context: RequestContext, zone: String) throws(CKError) -> Page {
        let db = try context.database()
        let changes = try db.zoneChanges(zone: zone, since: syncToken, limit: limit, desiredKeys: desiredKeys, countingPending: false)
        let encoder = WireRecordEncoder(context, desiredKeys: desiredKeys, numbersAsStrings: numbersAsStrings)
        var records: [JSON] = []
        for ch in changes.changes {
            // The token still moves past changes of other types: they are skipped, not held back.
            if let types = desiredRecordTypes, !types.contains(ch.recordType) { continue }
            if let r = ch.record { records.append(encoder.record(r)) } else {
                records.append(WireRecordEncoder.tombstone(ch.recordName, zoneID: changes.zoneID))
            }
        }
        return Page(zoneID: changes.zoneID, records: records, syncToken: changes.syncToken, moreComing: changes.moreComing)
    }
}
