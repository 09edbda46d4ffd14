import Foundation
import CKModel
import CKQuery
import CKSchema
import CKStorage

extension CKDatabase {
    /// CloudKit's page size limit.
    public static let maxQueryResults = 200
    /// CloudKit's reason for a query without filters on a type whose ___recordID is not QUERYABLE.
    public static let notIndexableReason = "Type is not marked indexable"

    /// Parses and checks a query without running it: filters, sort and the indexes it needs.
    public func plan(_ request: QueryRequest) throws(CKError) -> QueryPlan {
        try perform(.queryPlan) { (state) throws(CKError) -> QueryPlan in
            let schema = try env.readSchema()
            try checkQueryable(request, gate: state.gate, schema: schema)
            return try makePlan(request, schema: schema).plan
        }
    }

    /// The permission stage of a query: user records can't be queried, and the type needs READ for the caller.
    package func checkQueryable(_ request: QueryRequest, gate: RecordGate, schema: Schema) throws(CKError) {
        if request.recordType == Names.userRecordType {
            throw CKError.invalid("Type Users is reserved by the system and can't be queried",
                                  hint: "fetch a user record by its record name (ck record fetch <userRecordName>)")
        }
        try gate.query(type: request.recordType, schema: schema)
    }

    /// The predicate without white space around it (Unicode White_Space, as Foundation's whitespacesAndNewlines,
    /// without bridging to NSString for every query).
    package static func trimmed(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(Substring(text.unicodeScalars[first...last]))
    }

    package func makePlan(_ request: QueryRequest, schema: Schema) throws(CKError) -> (plan: QueryPlan, searchable: [String]) {
        let text = request.predicate.map(CKDatabase.trimmed) ?? ""
        var compiler = try QueryCompiler(recordType: request.recordType, schema: schema, environment: environment,
                                         predicateText: text, now: store.now())
        let node = text.isEmpty ? PredicateNode.constant(true, column: 1) : try PredicateParser.parse(text, arguments: request.arguments)
        if text.isEmpty && !request.arguments.isEmpty {
            throw CKError.invalid("\(request.arguments.count) argument\(request.arguments.count == 1 ? "" : "s") given but no predicate uses them")
        }
        try compiler.add(node, negated: false)
        for f in request.filters { try compiler.add(f) }
        let sort = try compiler.checkSort(request.sort)
        let (indexes, searchable) = try checkIndexes(compiler, sort: sort)
        return (QueryPlan(recordType: request.recordType, filters: compiler.filters, matchesNothing: compiler.matchesNothing,
                          sort: sort, requiredIndexes: indexes), searchable)
    }

    /// The indexes a plan needs, refused with CloudKit's messages when missing. Development indexes user
    /// fields automatically, never system fields; production has only the schema's indexes.
    package func checkIndexes(_ c: QueryCompiler, sort: [QuerySort]) throws(CKError) -> ([(field: String, index: String)], [String]) {
        let type = c.type
        var required: [(field: String, index: String)] = []
        func hint(_ field: String, _ flag: String) -> String {
            let command = "ck schema index \(c.recordType) \(field) --\(flag)"
            return environment == .production ? "add the index in development ('\(command)') and run 'ck schema deploy'" : "add the index: \(command)"
        }
        func indexed(_ field: String, _ flag: KeyPath<FieldSchema, Bool>) -> Bool {
            if field.hasPrefix("___") || environment == .production { return type.fields[field]?[keyPath: flag] ?? false }
            return true
        }
        var searchable: [String] = []
        for f in c.filters {
            if f.field == "self" {
                searchable = type.fields.keys.sorted().filter { name in
                    guard let fs = type.fields[name], fs.type.base == .string, !fs.encrypted, !name.hasPrefix("___") else { return false }
                    return environment == .development || fs.searchable
                }
                if searchable.isEmpty {
                    throw c.fail(f.column, "Type \(c.recordType) has no field marked searchable",
                                 hint: "mark a STRING field SEARCHABLE in the schema (ck schema index \(c.recordType) <field> --searchable)")
                }
                required.append(("self", "SEARCHABLE (" + searchable.joined(separator: ", ") + ")"))
                continue
            }
            if !indexed(f.field, \.queryable) {
                throw c.fail(f.column, "Field '\(f.displayName)' is not marked queryable", hint: hint(f.field, "queryable"))
            }
            required.append((f.field, "QUERYABLE"))
        }
        if c.filters.isEmpty {
            if !indexed("___recordID", \.queryable) {
                throw CKError(.invalidArguments, CKDatabase.notIndexableReason,
                              hint: "a query without filters needs a QUERYABLE index on ___recordID: " + hint("___recordID", "queryable"))
            }
            required.append(("___recordID", "QUERYABLE"))
        }
        for s in sort {
            let field: String
            switch s.kind { case .field(let f, _): field = f; case .distance(let f, _): field = f }
            if !indexed(field, \.sortable) {
                throw CKError(.invalidArguments, "Field '\(field)' is not marked sortable", hint: hint(field, "sortable"))
            }
            required.append((field, "SORTABLE"))
        }
        return (required, searchable)
    }

    /// Runs a query in one zone (or every zone with `zoneWide`), one page at a time.
    public func query(_ request: QueryRequest, zone zoneName: String = Names.defaultZoneName) throws(CKError) -> QueryResult {
        let limit = request.limit ?? CKDatabase.maxQueryResults
        guard limit >= 1 else { throw CKError.invalid("the results limit must be at least 1") }
        let pageSize = min(limit, CKDatabase.maxQueryResults)
        if request.zoneWide && scope == .shared {
            throw CKError.invalid("Queries in the shared database must name a zone; cross-zone queries are not supported there")
        }
        return try perform(.query, zone: request.zoneWide ? Names.defaultZoneName : zoneName) { (state) throws(CKError) -> QueryResult in
            let schema = try env.readSchema()
            try checkQueryable(request, gate: state.gate, schema: schema)
            let (plan, searchable) = try makePlan(request, schema: schema)
            var zones: [Zone] = state.zone.map { [$0] } ?? []
            if request.zoneWide {
                zones += state.catalog.zones.filter { $0.database == scope && $0.zoneID.ownerRecordName == userRecordName }
            }
            let fingerprint = queryFingerprint(request, zone: request.zoneWide ? "*" : zoneName)
            let after = try request.cursor.map { (c) throws(CKError) -> SortKey in try QueryCursor(decoding: c, expected: fingerprint, now: store.now()).key }
            if plan.matchesNothing { return QueryResult(records: [], cursor: nil) }
            let ascending = plan.sort.map { s -> Bool in if case .field(_, let asc) = s.kind { return asc }; return true }
            var matched: [(SortKey, Record)] = []
            if zones.count == 1, let z = zones.first, let index = try env.index() {
                // Through the index: rows come in the final order, so reading stops after one page.
                let path = env.logPath(database: scope, zone: z.zoneID)
                try index.sync(path, warnings: &env.warnings)
                try index.ensureValues(path, warnings: &env.warnings)
                if let q = try index.sqlQuery(log: try index.key(path), recordType: plan.recordType, filters: plan.filters, sort: plan.sort,
                                          sortColumn: sortColumn(plan, schema: schema), after: after,
                                              driverLimit: container.store.queryDriverLimit) {
                    // The log is opened once for the page (under the lock, so it is the file the index describes).
                    try env.readRows(index, q, log: path) { (record) throws(CKError) -> Bool in
                        guard let r = record, r.recordType == plan.recordType,
                              plan.filters.allSatisfy({ $0.matches(r, searchableFields: searchable) }),
                              state.gate.mayRead(r, schema: schema) else { return true }
                        let key = SortKey(values: plan.sort.map { sortValue(r, $0) }, zone: z.zoneID.zoneName, name: r.recordName)
                        if let after, SortKey.compare(key, after, ascending: ascending) != .orderedDescending { return true }
                        matched.append((key, r))
                        return matched.count <= pageSize
                    }
                    return page(matched, pageSize: pageSize, fingerprint: fingerprint, keys: request.desiredKeys)
                }
            }
            for z in zones {
                let live = CKDatabase.fold(try env.readLog(env.logPath(database: scope, zone: z.zoneID)).entries)
                for r in live.values where r.recordType == plan.recordType {
                    guard plan.filters.allSatisfy({ $0.matches(r, searchableFields: searchable) }),
                          state.gate.mayRead(r, schema: schema) else { continue }
                    let key = SortKey(values: plan.sort.map { sortValue(r, $0) }, zone: z.zoneID.zoneName, name: r.recordName)
                    if let after, SortKey.compare(key, after, ascending: ascending) != .orderedDescending { continue }
                    matched.append((key, r))
                }
            }
            matched.sort { SortKey.compare($0.0, $1.0, ascending: ascending) == .orderedAscending }
            return page(matched, pageSize: pageSize, fingerprint: fingerprint, keys: request.desiredKeys)
        }
    }

    /// The zones of this database that hold records of `recordType` the caller may read, sorted: what a query that
    /// found nothing names, so a forgotten zone is not a silent empty answer.
    public func zonesHolding(_ recordType: String) throws(CKError) -> [String] {
        if scope == .shared { return [] }
        return try perform(.query) { (state) throws(CKError) -> [String] in
            let schema = try env.readSchema()
            let def = try resolveZone(Names.defaultZoneName, catalog: state.catalog)
            let zones = [def] + state.catalog.zones.filter { $0.database == scope && $0.zoneID.ownerRecordName == userRecordName }
            var out: [String] = []
            for z in zones {
                let path = env.logPath(database: scope, zone: z.zoneID)
                // Where the gate lets the caller read every record, the index answers without reading the zone.
                if state.gate.readsEveryRecord, let index = try env.index() {
                    try index.sync(path, warnings: &env.warnings)
                    if try index.holds(path, recordType: recordType) { out.append(z.zoneID.zoneName) }
                    continue
                }
                let live = CKDatabase.fold(try env.readLog(path).entries)
                if live.values.contains(where: { $0.recordType == recordType && state.gate.mayRead($0, schema: schema) }) {
                    out.append(z.zoneID.zoneName)
                }
            }
            return out.sorted()
        }
    }

    /// One page of sorted matches, with a cursor when more follow.
    package func page(_ matched: [(SortKey, Record)], pageSize: Int, fingerprint: String, keys: [String]?) -> QueryResult {
        let page = matched.prefix(pageSize)
        var records = page.map(\.1)
        if let keys {
            records = records.map { r in var c = r; c.fields = r.fields.filter { keys.contains($0.key) }; return c }
        }
        let cursor = matched.count > pageSize ? page.last.map { QueryCursor(fingerprint: fingerprint, key: $0.0, issued: store.now()).encoded } : nil
        return QueryResult(records: records, cursor: cursor)
    }

    /// How the index stores the first sort field's values: strings and references as text, others as numbers.
    package func sortColumn(_ plan: QueryPlan, schema: Schema) -> String {
        guard case .field(let f, _)? = plan.sort.first?.kind, let t = schema.recordTypes[plan.recordType]?.fields[f]?.type else { return "num" }
        return t.base == .string || t.base == .reference ? "txt" : "num"
    }

    package func sortValue(_ r: Record, _ s: QuerySort) -> QueryValue? {
        switch s.kind {
        case .field(let f, _): return queryValue(of: r, field: f)
        case .distance(let f, let from):
            guard case .location(let l)? = r.fields[f] else { return nil }
            return .double(distanceMetres(l, from))
        }
    }

    /// Identifies a query so a cursor is accepted only by the query, zone, database and environment that made it.
    package func queryFingerprint(_ r: QueryRequest, zone: String) -> String {
        var parts = [container.identifier, environment.rawValue, scope.rawValue, userRecordName, zone, r.recordType,
                     r.predicate ?? "", r.arguments.joined(by: "\u{1}")]
        parts += r.filters.map { "\($0.field) \($0.comparator.rawValue) \(Self.fingerprintText($0.value)) \($0.distance ?? -1)" }
        parts += r.sort.map { s -> String in
            switch s.kind {
            case .field(let f, let ascending): return "field \(f) \(ascending)"
            case .distance(let f, let from): return "distance \(f) \(from.latitude),\(from.longitude)"
            }
        }
        return String(SHA256.hex(Array(parts.joined(by: "\u{2}").utf8)).prefix(24))
    }

    /// A value spelled out whole for a fingerprint, without `String(describing:)`: its reflection cost a quarter of
    /// a query page's instructions.
    package static func fingerprintText(_ v: QueryValue) -> String {
        switch v {
        case .bytes(let b): return "BYTES " + Base64URL.encode(b)
        case .reference(let r): return "REFERENCE \(r.recordName)\u{1}\(r.zoneName ?? "")\u{1}\(r.ownerRecordName ?? "")"
        case .list(let items): return "LIST {" + items.map(fingerprintText).joined(by: "\u{1}") + "}"
        default: return v.typeName + " " + v.literal
        }
    }
}
