import CKModel
import CKQuery
import CKSchema
import CKServer

/// records/query, records/lookup, records/modify and the legacy records/changes.
enum RecordsEndpoints {
    /// CloudKit's "maximum number of records in a response" (cloudkit.md §5.1): larger `resultsLimit`s are served as this.
    static let maxResults = 200

    /// `{query:{recordType, filterBy?, sortBy?}, zoneID?, resultsLimit?, desiredKeys?, zoneWide?, numbersAsStrings?,
    /// continuationMarker?}` → `{records, continuationMarker?}` (the marker only when more results wait).
    static func query(_ context: RequestContext) throws(CKError) -> JSON {
        let body = context.wire
        guard let q = try body.object("query") else { throw WireBody.bad("query", "missing: records/query needs a query {\"recordType\": …}") }
        guard let recordType = try q.string("recordType") else { throw WireBody.bad("query.recordType", "missing: a query needs its recordType") }
        for k in ["filterBy", "sortBy"] {
            if let v = q.value(k), v.arrayValue == nil { throw WireBody.bad(q.place(k), "expected an array, got \(v.kindName)") }
        }
        // A filter's `type` is optional, as a saved field's is: take it from the schema where the value alone can't say.
        let fields = (try? context.container().schema(context.environment))?.recordTypes[recordType]?.fields ?? [:]
        let parsed = try QueryFilter.webServices(.object(typingFilterValues(q.object, fields: fields)), label: "query")
        if context.scope == .shared && body.value("zoneID") == nil {
            throw WireBody.bad("zoneID", "missing: queries in the shared database must name a zone; cross-zone queries are not supported there")
        }
        let zone = try body.zoneName() ?? Names.defaultZoneName
        let limit = try body.int("resultsLimit", in: 1...Int(Int32.max)).map { min($0, maxResults) }
        let keys = try body.desiredKeys()
        let request = QueryRequest(recordType: recordType, filters: parsed.filters, sort: parsed.sort, limit: limit,
                                   cursor: try body.string("continuationMarker"),
                                   // zoneWide "is ignored if zoneID is non-null"
                                   zoneWide: body.value("zoneID") == nil ? try body.bool("zoneWide") ?? false : false,
                                   desiredKeys: keys)
        let encoder = WireRecordEncoder(context, desiredKeys: keys, numbersAsStrings: try body.bool("numbersAsStrings") ?? false)
        let db = try context.database()
        let page = try db.query(request, zone: zone)
        var o: [String: JSON] = ["records": .array(page.records.map { encoder.record($0) })]
        if let marker = page.cursor { o["continuationMarker"] = .string(marker) }
        return try withSyncToken(o, context)
    }

    /// The query with a `type` added to each untyped filter value on a TIMESTAMP or BYTES field (or list of them):
    /// bare JSON reads a number as INT64 and a string as STRING, so `{value: 1767225600000}` would not match a
    /// TIMESTAMP field. A list value (IN, LIST_CONTAINS_ANY…) gets the list type; anything malformed is left for
    /// the filter reader to refuse.
    static func typingFilterValues(_ query: [String: JSON], fields: [String: FieldSchema]) -> [String: JSON] {
        guard case .array(let filters)? = query["filterBy"] else { return query }
        var out = query
        out["filterBy"] = .array(filters.map { f -> JSON in
            guard case .object(var o) = f, case .object(var fv)? = o["fieldValue"], fv["type"] == nil, let value = fv["value"],
                  let name = o["fieldName"]?.stringValue ?? o["systemFieldName"]?.stringValue.flatMap({ QueryFilter.systemFieldNames[$0] }),
                  fields[name]?.encrypted != true,
                  let base = (fields[name]?.type ?? RecordTypeSchema.systemFields[name])?.base, base == .timestamp || base == .bytes else { return f }
            fv["type"] = .string(FieldType(base, list: value.arrayValue != nil).wsName)
            o["fieldValue"] = .object(fv)
            return .object(o)
        })
        return out
    }

    /// `{records:[{recordName, desiredKeys?}] (or one object), zoneID?, desiredKeys?, numbersAsStrings?}` → one entry
    /// per requested name, in request order: the record or `{recordName, reason, serverErrorCode}`.
    static func lookup(_ context: RequestContext) throws(CKError) -> JSON {
        let body = context.wire
        guard let items = try body.objects("records", single: true) else {
            throw WireBody.bad("records", "missing: records/lookup needs records [{\"recordName\": …}]")
        }
        guard items.count <= maxResults else {
            throw WireBody.bad("records", "\(items.count) records in one lookup; CloudKit allows at most \(maxResults)")
        }
        var names: [String] = []
        var itemKeys: [[String]?] = []
        for item in items {
            guard let name = try item.string("recordName") else { throw WireBody.bad(item.place("recordName"), "missing: each record to look up needs its recordName") }
            names.append(name)
            itemKeys.append(try item.desiredKeys())
        }
        let zone = try body.zoneName() ?? Names.defaultZoneName
        let encoder = WireRecordEncoder(context, desiredKeys: try body.desiredKeys(), numbersAsStrings: try body.bool("numbersAsStrings") ?? false)
        let results = try context.database().fetch(names, zone: zone)
        var out: [JSON] = []
        for (i, r) in results.enumerated() {
            switch r {
            case .saved(let rec): out.append(encoder.record(rec, keys: itemKeys[i]))
            case .deleted(let name, _, _): out.append(WireRecordEncoder.deletion(name))
            case .failed(let name, var error):
                // CloudKit's own words for a missing record (the CloudyKit fixture); ck's message names the zone.
                if error.code == .unknownItem { error.reason = "Record not found" }
                out.append(WireRecordEncoder.error(context.failed(error), recordName: name))
            }
        }
        return try withSyncToken(["records": .array(out)], context)
    }

    /// `{operations:[{operationType, record, desiredKeys?}], zoneID?, atomic?, desiredKeys?, numbersAsStrings?}` →
    /// one entry per operation, in order: the saved record, `{recordName, deleted:true}`, or a per-record error.
    static func modify(_ context: RequestContext) throws(CKError) -> JSON {
        let body = context.wire
        var decoded = try WireModify(body)
        try decoded.nameParticipants(try context.container().users())
        let db = try context.database()
        let result = try db.modify(decoded.operations, zone: decoded.zone, atomic: decoded.atomic)
        let encoder = WireRecordEncoder(context, desiredKeys: decoded.desiredKeys, numbersAsStrings: decoded.numbersAsStrings)
        var out: [JSON] = []
        // The results past the operations are DELETE_SELF cascades: CloudKit answers one entry per operation.
        for (i, r) in result.results.prefix(decoded.operations.count).enumerated() {
            switch r {
            case .saved(let rec): out.append(encoder.record(rec, keys: decoded.operationKeys[i] ?? decoded.desiredKeys))
            case .deleted(let name, _, _): out.append(WireRecordEncoder.deletion(name))
            case .failed(let name, let error): out.append(WireRecordEncoder.error(context.failed(error), recordName: name))
            }
        }
        return try withSyncToken(["records": .array(out)], context)
    }

    /// Legacy `{zoneID, syncToken?, resultsLimit?, desiredKeys?, desiredRecordTypes?, numbersAsStrings?}` →
    /// `{records, syncToken, moreComing}`; deletions are tombstones `{recordName, deleted:true, zoneID}`.
    static func changes(_ context: RequestContext) throws(CKError) -> JSON {
        let body = context.wire
        guard let zone = try body.zoneName(required: true) else { throw WireBody.bad("zoneID", "missing") }
        let request = try ZoneFeedRequest(body, outer: nil)
        let page = try request.fetch(context, zone: zone)
        return .object(["records": .array(page.records), "syncToken": .string(page.syncToken), "moreComing": .bool(page.moreComing)])
    }

    /// With `?getCurrentSyncToken=true`, the database's current sync token as a top-level `syncToken`
    /// (iCloud.com does so; whether api.apple-cloudkit.com does is UNVERIFIED). The public database has no
    /// change feed, so it gets none.
    static func withSyncToken(_ o: [String: JSON], _ context: RequestContext) throws(CKError) -> JSON {
        guard context.wantsSyncToken, context.scope != .public else { return .object(o) }
        var out = o
        out["syncToken"] = .string(try context.database().databaseChanges().syncToken)
        return .object(out)
    }
}

/// A records/modify body read whole before anything is applied: a bad operation refuses the request.
struct WireModify {
    var operations: [RecordOperation] = []
    /// Each operation's own desiredKeys (nil = the request's).
    var operationKeys: [[String]?] = []
    var zone: String
    var atomic: Bool
    var desiredKeys: [String]?
    var numbersAsStrings: Bool

    /// Whether two zone names read from zone IDs are one zone: equal, or in the shared database one naming the
    /// owner (`NAME:OWNER`) and the other only the name.
    static func sameZone(_ a: String, _ b: String) -> Bool {
        func name(_ s: String) -> Substring { s.split(separator: ":", maxSplits: 1).first ?? Substring(s) }
        return a == b || (a.contains(":") != b.contains(":") && name(a) == name(b))
    }

    /// Record keys clients send or echo that a save ignores (pyicloud sends pluginFields with each record).
    static let ignoredRecordKeys: Set<String> = ["pluginFields", "shortGUID", "expirationTime", "isEncrypted"]

    /// Gives participants named by user record name alone the name the container knows them by (a share shows it
    /// as the identity's given name).
    mutating func nameParticipants(_ users: [ContainerUser]) throws(CKError) {
        for i in operations.indices {
            guard var input = operations[i].share, var list = input.participants else { continue }
            for j in list.indices where list[j].userName == list[j].userRecordName {
                if let u = users.first(where: { $0.userRecordName == list[j].userRecordName }) { list[j].userName = u.name }
            }
            input.participants = list
            operations[i].share = input
        }
    }

    init(_ body: WireBody) throws(CKError) {
        guard let items = try body.objects("operations") else {
            throw WireBody.bad("operations", "missing: records/modify needs operations [{\"operationType\", \"record\"}]")
        }
        guard items.count <= CKDatabase.maxOperationsPerRequest else {
            throw WireBody.bad("operations", "\(items.count) operations in one request; CloudKit allows at most \(CKDatabase.maxOperationsPerRequest)")
        }
        desiredKeys = try body.desiredKeys()
        numbersAsStrings = try body.bool("numbersAsStrings") ?? false
        let requestZone = try body.zoneName()
        var recordZone: (name: String, place: String)? = nil
        for item in items {
            guard item.value("operationType") != nil else { throw WireBody.bad(item.place("operationType"), "missing") }
            guard let record = try item.object("record") else { throw WireBody.bad(item.place("record"), "missing: each operation needs a record") }
            if let z = try record.zoneName() {
                if let requestZone, !WireModify.sameZone(z, requestZone) {
                    throw WireBody.bad(record.place("zoneID"), "the record is in zone '\(z)' but the request's zoneID is '\(requestZone)'")
                }
                if let rz = recordZone, !WireModify.sameZone(rz.name, z) {
                    throw WireBody.bad(record.place("zoneID"), "zone '\(z)' differs from '\(rz.name)' at \(rz.place): one request modifies one zone")
                }
                // The name that names the owner (shared database `NAME:OWNER`) is the one kept.
                if recordZone == nil || z.contains(":") { recordZone = (z, record.place("zoneID")) }
            }
            var recordObject = record.object
            for k in WireModify.ignoredRecordKeys { recordObject[k] = nil }
            var opObject = item.object
            opObject["record"] = .object(recordObject)
            var op = try RecordOperation(json: .object(opObject), path: item.path, policy: nil)
            if op.type.needsTag && (op.changeTag ?? "").isEmpty {
                // CloudKit's words for an update without a tag (MKLOG-5937), then the place.
                throw CKError(.invalidArguments, "BadRequestException: missing required field 'recordChangeTag' (\(record.place("recordChangeTag")), operationType \(op.type.rawValue))")
            }
            if case .object(let f)? = record.value("fields") {
                for (k, v) in f where v.objectValue != nil {
                    // Field dictionaries may carry keys beyond value/type/isEncrypted only as echoes; keep the three.
                    if case .object(let fo) = v, fo.keys.contains(where: { !["value", "type", "isEncrypted"].contains($0) }) {
                        var kept = fo.filter { ["value", "type", "isEncrypted"].contains($0.key) }
                        if kept["value"] == nil { kept["value"] = .null }
                        op.fields[k] = kept["value"]?.isNull ?? true ? .unset : .json(.object(kept))
                    }
                }
            }
            operations.append(op)
            operationKeys.append(try item.desiredKeys())
        }
        zone = (requestZone?.contains(":") == true ? requestZone : recordZone?.name ?? requestZone) ?? Names.defaultZoneName
        // "The default value is true. Note this property only applies to custom zones."
        let explicit = try body.bool("atomic")
        if explicit == true && zone == Names.defaultZoneName {
            throw CKError(.invalidArguments, "atomic operations not supported in default zone")
        }
        atomic = explicit ?? true
    }
}
