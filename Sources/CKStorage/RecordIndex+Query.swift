import Foundation
#if canImport(Glibc)
import Glibc
import CKFiles
import CKModel
import CKQuery
import CKSQLite
#endif

/// Queries answered through the index: SQL narrows and orders the candidates, Swift checks every filter
/// again on the records it reads, so the answers are exactly those of a full scan.
extension RecordIndex {
    /// Builds the field-value and token indexes of a log on first use (bulk loads don't pay for it). Records are
    /// read one line at a time through their locations, so memory stays flat; the value indexes are rebuilt in
    /// one sort after the rows are in, which is far cheaper than growing them row by row, and the tokens are
    /// gathered and written token by token (`TokenPostings`).
    package func ensureValues(_ logPath: String, warnings: inout [Diagnostic]) throws(CKError) {
        let log = try key(logPath)
        // A zone nobody wrote to has no log, and nothing to index.
        guard FileIO.exists(logPath) else { return }
        if try wrap({ () throws(SQLiteConnection.Failure) -> Bool in try valuesReady(log) }) { return }
        try FileIO.refuseLinks(logPath)
        let fd = Glibc.open(logPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw CKError.internalError("cannot read \(logPath): \(FileIO.errnoText())") }
        defer { close(fd) }
        var failure: CKError? = nil
        try wrap { () throws(SQLiteConnection.Failure) in
            try db.transaction { () throws(SQLiteConnection.Failure) in
                // Another process may have built them meanwhile; the ids read below must be those the rows get.
                if try valuesReady(log) { return }
                // Ids in name order let a query sorted by name read a page of a filter's rows in order.
                if try !namesInIdOrder(log) { try renumber(log) }
                var locations: [(Int64, Int, Int)] = []
                // In id order, so each token's records come in the order `toks` keeps them.
                let s = try db.prepare("SELECT id, off, len FROM records WHERE log = ?1 ORDER BY id")
                try s.bind([log])
                while try s.step() { locations.append((s.int(0), Int(s.int(1)), Int(s.int(2)))) }
                // Removed while the value indexes still find the log's rows by field.
                try dropValues(log)
                try db.exec("DROP INDEX IF EXISTS vals_num; DROP INDEX IF EXISTS vals_txt; DROP INDEX IF EXISTS vals_fold;")
                let add = try db.prepare("INSERT INTO vals(rec, field, i, num, txt, fold) VALUES(?1, ?2, ?3, ?4, ?5, ?6)")
                var fields: [String: Int64] = [:]
                var postings = TokenPostings()
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                for (rec, off, len) in locations where failure == nil {
                    if buffer.count < len { buffer = [UInt8](repeating: 0, count: len) }
                    let n = buffer.withUnsafeMutableBytes { b -> Int in
                        guard let base = b.baseAddress else { return -1 }
                        return pread(fd, base, len, off_t(off))
                    }
                    guard n == len, case .save(_, let r)? = RecordIndex.entry(buffer[0..<len], logPath) else {
                        failure = CKError.internalError("index \(logPath): the indexed line at byte \(off) is not a record",
                                                        hint: "the index is stale; delete .index.sqlite and ck rebuilds it")
                        break
                    }
                    try addValues(log, rec: rec, r, into: add, fields: &fields)
                    postings.add(r, id: rec)
                    if postings.isFull { try postings.write(log, into: db) }
                }
                try postings.write(log, into: db)
                try db.exec(RecordIndex.valueIndexes)
                if failure == nil { try db.prepare("UPDATE logs SET vals_ready = 1 WHERE log = ?1").run([log]) }
            }
        }
        if let failure { throw failure }
    }

    // MARK: Search tokens

    /// A record's search tokens, sorted and distinct, as token search makes them, from every STRING and
    /// LIST<STRING> value (encrypted ones excepted: the server can't read them). Which fields a query
    /// searches is left to its Swift check.
    package static func tokens(_ r: Record) -> [String] {
        var out: [String] = []
        func add(_ s: String) { Tokenizer.forEachToken(s) { out.append($0); return true } }
        for value in r.fields.values {
            switch value {
            case .string(let s): add(s)
            case .list(.string, let items): for case .string(let s) in items { add(s) }
            default: break
            }
        }
        out.sort()
        var unique: [String] = []
        unique.reserveCapacity(out.count)
        for t in out where t != unique.last { unique.append(t) }
        return unique
    }

    /// Strings as a JSON array, for `json_each`: many rows go in (or out) in one statement, which costs a
    /// fraction of a statement per row.
    package static func jsonArray<S: Sequence>(_ strings: S) -> String where S.Element == String {
        let hex = Array("0123456789abcdef".utf8)
        var out: [UInt8] = [UInt8(ascii: "[")]
        for s in strings {
            if out.count > 1 { out.append(UInt8(ascii: ",")) }
            out.append(UInt8(ascii: "\""))
            for b in s.utf8 {
                switch b {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), b]
                case 0..<0x20: out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 15)]]
                default: out.append(b)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        out.append(UInt8(ascii: "]"))
        return String(decoding: out, as: UTF8.self)
    }

    /// Integers as a JSON array, for `json_each`.
    package static func jsonArray<S: Sequence>(ints: S) -> String where S.Element == Int64 {
        "[" + ints.map(String.init).joined(separator: ",") + "]"
    }

    /// Indexes a record's search tokens (its rows must not be there yet), making ids for tokens new to the log.
    package func addTokens(_ log: Int64, _ rec: Int64, _ r: Record) throws(SQLiteConnection.Failure) {
        let tokens = RecordIndex.tokens(r)
        guard !tokens.isEmpty else { return }
        let list = RecordIndex.jsonArray(tokens)
        try db.prepare("INSERT OR IGNORE INTO tokens(log, tok) SELECT ?1, value FROM json_each(?2)").run([log, list])
        try db.prepare("INSERT OR IGNORE INTO toks(tok, rec) SELECT t.id, ?3 FROM json_each(?2) j JOIN tokens t ON t.log = ?1 AND t.tok = j.value")
            .run([log, list, rec])
    }

    /// Removes a record's search tokens. They are found from its strings in `vals` (a superset of what was
    /// tokenized: reference names too), so this runs before those rows go, and `toks` needs no second index.
    package func dropTokens(_ log: Int64, _ rec: Int64) throws(SQLiteConnection.Failure) {
        let texts = try db.prepare("SELECT txt FROM vals WHERE rec = ?1 AND txt IS NOT NULL")
        try texts.bind([rec])
        var tokens: [String] = []
        while try texts.step() { Tokenizer.forEachToken(texts.text(0)) { tokens.append($0); return true } }
        texts.reset()
        guard !tokens.isEmpty else { return }
        try db.prepare("DELETE FROM toks WHERE tok IN (SELECT id FROM tokens WHERE log = ?1 AND tok IN (SELECT value FROM json_each(?3))) AND rec = ?2")
            .run([log, rec, RecordIndex.jsonArray(tokens)])
    }

    /// The SQL form of a query over one log: statements run in turn, each yielding rows in the final order.
    package struct SQLQuery {
        package var phases: [(sql: String, args: [SQLiteValue])]
    }

    /// The arguments of a statement being written: each value takes the next `?N`.
    package struct SQLArguments {
        package var values: [SQLiteValue]
        package mutating func add(_ v: SQLiteValue) -> String {
            values.append(v)
            return "?\(values.count)"
        }
    }

    /// A test on one field's rows in `vals`, or on a record's search tokens in `toks`, written for a table
    /// alias: at least as wide as its filter. Every statement takes the log as ?1 (field and token ids are the log's).
    package struct ValueTest {
        package var field: String
        package var sql: (_ args: inout SQLArguments, _ alias: String) -> String
        /// On `toks` (token search) rather than on the field's rows of `vals`.
        package var tokens = false
        /// The number an equality on a numeric field asks for (a sorted pair can answer it in order).
        package var number: Double? = nil
        /// Its rows are one key of their index, so they come in record id order (an equality, or one token).
        package var inRecordOrder = false

        /// The test as conditions on its table's rows in the log ?1, for the alias `t`.
        package func conditions(_ a: inout SQLArguments, _ t: String) -> String {
            if tokens { return sql(&a, t) }
            return "\(t).field = \(RecordIndex.fieldSQL(&a, field)) AND \(sql(&a, t))"
        }

        /// The table the test reads.
        package var table: String { tokens ? "toks" : "vals" }
    }

    /// The id of a field of the log ?1, as SQL (NULL, which matches nothing, when no record has the field).
    package static func fieldSQL(_ a: inout SQLArguments, _ name: String) -> String {
        "(SELECT id FROM fields WHERE log = ?1 AND name = \(a.add(.text(name))))"
    }

    /// The first `keyLength` characters of a string expression: what `vals_txt` and `vals_fold` index.
    package static func key(_ expr: String) -> String { "substr(\(expr), 1, \(keyLength))" }

    /// A row's case-folded text (stored when not ASCII, else SQLite's lower()), as `vals_fold` indexes it.
    package static func folded(_ t: String) -> String { "coalesce(\(t).fold, lower(\(t).txt))" }

    /// What `ValueTest.field` says for a token test: no user field has a name starting with `___`.
    package static let tokenField = "___tokens"

    package static func isASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 } }

    /// The most conditions a query hands to SQLite; longer conjunctions are evaluated record by record.
    package static let maxSQLFilters = 100

    /// Where a statement's rows come from, before the other filters test them.
    private enum Source {
        /// The sort order itself: the sort field's values (with any conditions on that field), or the records.
        case ordered
        /// One record named by `___recordID ==`.
        case named
        /// The records one filter matches, read through that filter's index and then sorted.
        case driver(ValueTest)
        /// The records one filter matches, read in record id order, which is name order (`namesInIdOrder`): no sort,
        /// and reading stops after the page.
        case driverInIdOrder(ValueTest)
    }

    /// Plans a query, or nil when its order can't be produced by SQL. Filters SQL can't express exactly
    /// are left to the Swift check. `sortColumn` is `num` or `txt`: how the sort field is stored.
    ///
    /// Conditions on the sort field narrow the ordered scan itself (`n >= 5000 --sort n` starts at 5000).
    /// Of the other filters, the one with the fewest index rows drives the query when it has fewer than
    /// `driverLimit`: its records are read and sorted; the rest are tested per row, and only on rows the scan
    /// reaches. Else the walk in sort order tests each record it reaches, so a page of a filter matching many
    /// records costs the same however large the zone. `driverLimit` 0 means no driver.
    package func sqlQuery(log: Int64, recordType: String, filters: [QueryFilter], sort: [QuerySort], sortColumn: String,
                  after: SortKey?, driverLimit: Int) throws(CKError) -> SQLQuery? {
        // SQLite's expression depth is bounded (1000): a very long AND is evaluated without SQL instead.
        guard sort.count <= 1, filters.count <= RecordIndex.maxSQLFilters else { return nil }
        var field: String? = nil
        var ascending = true
        if let s = sort.first {
            guard case .field(let f, let asc) = s.kind else { return nil }
            field = f
            ascending = asc
            if f.hasPrefix("___") && !["___recordID", "___createTime", "___modTime"].contains(f) { return nil }
        }
        let dir = ascending ? "" : " DESC"
        let cmp = ascending ? ">" : "<"
        let sortField = field.flatMap { $0.hasPrefix("___") ? nil : $0 }

        var names: [String] = []
        var tests: [ValueTest] = []
        for f in filters {
            if f.field == "___recordID", f.comparator == .EQUALS, case .string(let n) = f.value {
                names.append(n)
            } else {
                // Leaving a test out only widens the candidates.
                for t in RecordIndex.valueTests(f) where tests.count < RecordIndex.maxSQLFilters { tests.append(t) }
            }
        }
        let onSort = tests.filter { $0.field == sortField }
        var others = tests.filter { $0.field != sortField }
        let allOthers = others

        var source = Source.ordered
        if !names.isEmpty {
            source = .named
        } else if !others.isEmpty {
            // In name order the walk reads the records in order and tests each: it wins sooner than under a sort
            // field's order, where the walk also reads each record's sort value.
            let byName = field == nil || field == "___recordID"
            let limit = byName && driverLimit > 0 ? max(1, driverLimit / 4) : driverLimit
            // In name order, a filter whose rows come by record id gives the page from its own rows, in order, however
            // many records match, while ids run in name order (`namesInIdOrder`): no walk, no sort.
            var idOrdered = false
            if byName, driverLimit > 0, others.contains(where: \.inRecordOrder) {
                idOrdered = try wrap { () throws(SQLiteConnection.Failure) -> Bool in try knownIdOrder(log) }
            }
            var best = onSort.isEmpty ? limit : try estimate(log: log, onSort, limit: limit)
            var chosen: Int? = nil
            var inOrder: Int? = nil
            var fewest = Int.max
            for (i, t) in others.enumerated() where best > 0 {
                // The only filter, read in order, needs no count.
                if idOrdered && others.count == 1 && t.inRecordOrder { inOrder = i; break }
                let n = try estimate(log: log, [t], limit: limit)
                if n < best { best = n; chosen = i }
                if idOrdered && t.inRecordOrder && n < fewest { fewest = n; inOrder = i }
            }
            // Another filter matching fewer records is read through its index and sorted instead.
            if let inOrder, !(chosen != nil && best < fewest) { source = .driverInIdOrder(others.remove(at: inOrder)) }
            else if let chosen { source = .driver(others.remove(at: chosen)) }
        }

        /// Each test as a condition on the record `r`: one lookup in its table.
        func tested(_ a: inout SQLArguments, _ tests: [ValueTest]) -> [String] {
            tests.map { t in
                if t.tokens { return "EXISTS (SELECT 1 FROM toks v WHERE v.rec = r.id AND \(t.sql(&a, "v")))" }
                let f = RecordIndex.fieldSQL(&a, t.field)
                // `+(…)`: the test is checked on the record's rows, found by primary key; as an index term SQLite
                // might read them through a value index instead, scanning a range of the field for each record.
                return "EXISTS (SELECT 1 FROM vals v WHERE v.rec = r.id AND v.field = \(f) AND +(\(t.sql(&a, "v"))))"
            }
        }

        /// One statement: rows from `source`, joined to the sort field's values when `joinSort`.
        func statement(joinSort: Bool, _ extra: (inout SQLArguments) -> [String], order: String) -> (sql: String, args: [SQLiteValue]) {
            var a = SQLArguments(values: [.int(log), .text(recordType)])
            var from: String
            var conds = ["r.log = ?1", "r.type = ?2"]
            switch source {
            // After the records, the sort value is one lookup by record (the primary key of `vals`).
            case .ordered: from = joinSort ? "vals s CROSS JOIN records r" : "records r"
            case .named: from = joinSort ? "records r CROSS JOIN vals s" : "records r"
            case .driver(let t), .driverInIdOrder(let t):
                // No DISTINCT: a record matched twice (a list holding the value twice) gives identical rows, next
                // to each other in the statement's order, and `rows` skips the second.
                from = "\(t.table) d CROSS JOIN records r" + (joinSort ? " CROSS JOIN vals s" : "")
                conds += [t.conditions(&a, "d"), "r.id = d.rec"]
            }
            if joinSort, let f = sortField {
                conds += ["s.field = \(RecordIndex.fieldSQL(&a, f))", "s.rec = r.id"]
                // The walk reads the sort field's values through their index; joined after the records, by key.
                for t in onSort {
                    if case .ordered = source { conds.append(t.sql(&a, "s")) } else { conds.append("+(\(t.sql(&a, "s")))") }
                }
            }
            conds += extra(&a)
            for n in names { conds.append("r.name = \(a.add(.text(n)))") }
            conds += tested(&a, others)
            return ("SELECT r.off, r.len FROM \(from) WHERE \(conds.joined(by: " AND ")) ORDER BY \(order)", a.values)
        }

        switch field {
        case nil, "___recordID"?:
            if case .driverInIdOrder = source {
                let phase = statement(joinSort: false, { a in
                    guard let after else { return [] }
                    let name = a.add(.text(after.name))
                    // Ids run with names: the cursor's place is the id of the last name at or before it (after it, descending).
                    let bound = ascending
                        ? "d.rec > coalesce((SELECT id FROM records WHERE log = ?1 AND name <= \(name) ORDER BY name DESC LIMIT 1), -1)"
                        : "d.rec < coalesce((SELECT id FROM records WHERE log = ?1 AND name >= \(name) ORDER BY name LIMIT 1), 9223372036854775807)"
                    return ["r.name \(cmp) \(name)", bound]
                }, order: "d.rec\(dir)")
                return SQLQuery(phases: [phase])
            }
            let phase = statement(joinSort: false, { a in after.map { ["r.name \(cmp) \(a.add(.text($0.name)))"] } ?? [] },
                                  order: "r.name\(dir)")
            return SQLQuery(phases: [phase])
        case "___createTime"?, "___modTime"?:
            let col = field == "___createTime" ? "r.created" : "r.modified"
            let phase = statement(joinSort: false, { a in
                guard let after, let v = after.values.first ?? nil else { return [] }
                let value = a.add(RecordIndex.sqlValue(v)), name = a.add(.text(after.name))
                return ["(\(col) \(cmp) \(value) OR (\(col) = \(value) AND r.name \(cmp) \(name)))"]
            }, order: "\(col)\(dir), r.name\(dir)")
            return SQLQuery(phases: [phase])
        case let f?:
            // Records with the field, in index order (a string's by its indexed prefix, then whole; ties by name);
            // then those without it, by name (none can match a condition on the field, so that phase is left out
            // when there is one).
            func missing(_ a: inout SQLArguments) -> String {
                "NOT EXISTS (SELECT 1 FROM vals m WHERE m.rec = r.id AND m.field = \(RecordIndex.fieldSQL(&a, f)))"
            }
            let value = "s.\(sortColumn)"
            let indexed = sortColumn == "txt" ? RecordIndex.key(value) : value
            let order = (sortColumn == "txt" ? [indexed, value, "r.name"] : [value, "r.name"]).map { $0 + dir }.joined(by: ", ")
            var phases: [(sql: String, args: [SQLiteValue])] = []
            if let after, after.values.first ?? nil == nil {
                if onSort.isEmpty {
                    phases.append(statement(joinSort: false, { a in [missing(&a), "r.name \(cmp) \(a.add(.text(after.name)))"] }, order: "r.name\(dir)"))
                }
            } else if sortColumn == "num", onSort.isEmpty, names.isEmpty, driverLimit > 0,
                      let eq = allOthers.firstIndex(where: { $0.number != nil }), let key = allOthers[eq].number,
                      let pair = try sortedPair(log, eq: allOthers[eq].field, sort: f) {
                // An equality on a number sorted by another number: the pair's rows are in the final order.
                var rest = allOthers
                rest.remove(at: eq)
                var a = SQLArguments(values: [.int(log), .text(recordType)])
                var conds = ["p.pair = \(a.add(.int(pair)))", "p.key = \(a.add(.double(key)))", "r.id = p.rec", "r.log = ?1", "r.type = ?2"]
                if let after, let v = after.values.first ?? nil {
                    let sv = a.add(RecordIndex.sqlValue(v)), name = a.add(.text(after.name))
                    conds += ["p.val \(cmp)= \(sv)", "(p.val \(cmp) \(sv) OR (p.val = \(sv) AND p.name \(cmp) \(name)))"]
                }
                conds += tested(&a, rest)
                phases.append(("SELECT r.off, r.len FROM pairvals p CROSS JOIN records r WHERE \(conds.joined(by: " AND ")) ORDER BY p.val\(dir), p.name\(dir)", a.values))
                phases.append(statement(joinSort: false, { a in [missing(&a)] }, order: "r.name\(dir)"))
            } else {
                phases.append(statement(joinSort: true, { a in
                    guard let after, let v = after.values.first ?? nil else { return [] }
                    let sv = a.add(RecordIndex.sqlValue(v)), name = a.add(.text(after.name))
                    // The first condition is implied by the second; it lets the index start at the cursor.
                    let start = sortColumn == "txt" ? RecordIndex.key(sv) : sv
                    return ["\(indexed) \(cmp)= \(start)",
                            "(\(value) \(cmp) \(sv) OR (\(value) = \(sv) AND r.name \(cmp) \(name)))"]
                }, order: order))
                if onSort.isEmpty {
                    phases.append(statement(joinSort: false, { a in [missing(&a)] }, order: "r.name\(dir)"))
                }
            }
            return SQLQuery(phases: phases)
        }
    }

    /// How many index rows the tests (all on one field, or one token test) match, counting no further than `limit`.
    private func estimate(log: Int64, _ tests: [ValueTest], limit: Int) throws(CKError) -> Int {
        guard let first = tests.first else { return 0 }
        var a = SQLArguments(values: [.int(log)])
        let conds = tests.map { $0.conditions(&a, "d") }.joined(by: " AND ")
        let sql = "SELECT count(*) FROM (SELECT 1 FROM \(first.table) d WHERE \(conds) LIMIT \(limit))"
        return try wrap { () throws(SQLiteConnection.Failure) -> Int in
            let s = try db.prepare(sql)
            try s.bind(a.values)
            return try s.step() ? Int(s.int(0)) : 0
        }
    }

    package static func sqlValue(_ v: QueryValue) -> SQLiteValue {
        switch v {
        case .int(let i): return .double(Double(i))
        case .double(let d): return .double(d)
        case .bool(let b): return .double(b ? 1 : 0)
        case .date(let d): return .double(Double(d))
        case .string(let s): return .text(s)
        case .reference(let r): return .text(r.recordName)
        default: return .null
        }
    }

    /// Tests on the index at least as wide as the filter together (the Swift check narrows them): one per
    /// token of a token search, at most one for other filters; none leaves the filter to Swift.
    package static func valueTests(_ f: QueryFilter) -> [ValueTest] {
        if f.comparator == .CONTAINS_ALL_TOKENS || f.comparator == .CONTAINS_ANY_TOKENS {
            guard case .string(let text) = f.value else { return [] }
            var seen = Set<String>()
            let tokens = Tokenizer.tokens(text).filter { seen.insert($0).inserted }
            if f.comparator == .CONTAINS_ANY_TOKENS {
                guard !tokens.isEmpty else { return [] }
                return [ValueTest(field: tokenField, sql: { a, t in
                    "\(t).tok IN (SELECT id FROM tokens WHERE log = ?1 AND tok IN (" + tokens.map { a.add(.text($0)) }.joined(separator: ", ") + "))"
                }, tokens: true)]
            }
            return tokens.map { token in
                ValueTest(field: tokenField, sql: { a, t in "\(t).tok = (SELECT id FROM tokens WHERE log = ?1 AND tok = \(a.add(.text(token))))" },
                          tokens: true, inRecordOrder: true)
            }
        }
        return valueTest(f).map { [$0] } ?? []
    }

    /// A test on a user field's indexed values at least as wide as the filter, or nil to leave it to Swift.
    package static func valueTest(_ f: QueryFilter) -> ValueTest? {
        // System fields live in the records table.
        if f.field.hasPrefix("___") { return nil }
        /// An equality as SQL on a row: strings compare case-folded (ASCII values only, where folding is
        /// unambiguous); string tests name the indexed prefix too, so SQLite can look it up.
        func equality(_ v: QueryValue) -> ((inout SQLArguments, String) -> String)? {
            switch v {
            case .int, .double, .bool, .date:
                let value = sqlValue(v)
                return { a, t in "\(t).num = \(a.add(value))" }
            case .string(let s):
                guard isASCII(s) else { return nil }
                // The prefix alone: the index answers it without reading the row (values sharing it are rare).
                return { a, t in "\(key(folded(t))) = \(key(a.add(.text(fold(s)))))" }
            case .reference(let r):
                return { a, t in "\(key("\(t).txt")) = \(key(a.add(.text(r.recordName))))" }
            default: return nil
            }
        }
        switch f.comparator {
        case .EQUALS, .LIST_CONTAINS:
            guard let e = equality(f.value) else { return nil }
            var number: Double? = nil
            if case .double(let d) = sqlValue(f.value) { number = d }
            return ValueTest(field: f.field, sql: e, number: number, inRecordOrder: true)
        case .LESS_THAN, .LESS_THAN_OR_EQUALS, .GREATER_THAN, .GREATER_THAN_OR_EQUALS:
            let op = [.LESS_THAN: "<", .LESS_THAN_OR_EQUALS: "<=", .GREATER_THAN: ">", .GREATER_THAN_OR_EQUALS: ">="][f.comparator] ?? "="
            let value = sqlValue(f.value)
            switch f.value {
            case .int, .double, .bool, .date:
                return ValueTest(field: f.field) { a, t in "\(t).num \(op) \(a.add(value))" }
            case .string:
                // A prefix orders as its string does, but two strings may share it: the prefix bound is inclusive.
                let keyOp = op.hasPrefix("<") ? "<=" : ">="
                return ValueTest(field: f.field) { a, t in
                    let p = a.add(value)
                    return "\(key("\(t).txt")) \(keyOp) \(key(p)) AND \(t).txt \(op) \(p)"
                }
            default: return nil
            }
        case .IN, .LIST_CONTAINS_ANY:
            guard case .list(let items) = f.value, !items.isEmpty else { return nil }
            var parts: [(inout SQLArguments, String) -> String] = []
            for i in items {
                guard let e = equality(i) else { return nil }
                parts.append(e)
            }
            return ValueTest(field: f.field) { a, t in
                "(" + parts.map { "(\($0(&a, t)))" }.joined(separator: " OR ") + ")"
            }
        case .BEGINS_WITH:
            guard case .string(let p) = f.value, !p.isEmpty else { return nil }
            return ValueTest(field: f.field) { a, t in
                let low = a.add(.text(p)), high = a.add(.text(p + "\u{10FFFF}"))
                let k = key("\(t).txt")
                return "\(k) >= \(key(low)) AND \(k) <= \(key(high)) AND \(t).txt >= \(low) AND \(t).txt < \(high)"
            }
        default:
            return nil
        }
    }

    /// Runs a planned query, yielding record locations in order until `body` returns false.
    package func rows(_ q: SQLQuery, _ body: (_ offset: Int, _ length: Int) throws(CKError) -> Bool) throws(CKError) {
        for phase in q.phases {
            let stmt = try wrap { () throws(SQLiteConnection.Failure) -> SQLiteStatement in
                let s = try db.prepare(phase.sql)
                try s.bind(phase.args)
                return s
            }
            // A list holding a value twice has two index rows for it, next to each other in name order.
            var last = -1
            while try wrap({ () throws(SQLiteConnection.Failure) -> Bool in try stmt.step() }) {
                let offset = Int(stmt.int(0))
                if offset == last { continue }
                last = offset
                if try !body(offset, Int(stmt.int(1))) { return }
            }
        }
    }
}

/// The search tokens of many records, gathered in memory and written to `toks` a token at a time, each token's
/// records in id order: the rows then go in at the end of the table's b-tree, one statement per token, instead
/// of all over it (a b-tree descent each, and most of the cost of the first query after a bulk load). Records
/// must be added in id order; memory is bounded by writing out what is gathered when it is full.
package struct TokenPostings {
    private var ids: [String: Int] = [:]
    private var tokens: [String] = []
    private var records: [[Int64]] = []
    private var count = 0

    /// Past this many (token, record) pairs, or distinct tokens, the gathered rows are written out (about
    /// 16 MB of record ids at most).
    private let maxPairs: Int
    private let maxTokens: Int
    /// Records per statement.
    package static let chunk = 4096

    package init(maxPairs: Int = 2_000_000, maxTokens: Int = 200_000) {
        self.maxPairs = maxPairs
        self.maxTokens = maxTokens
    }

    package var isFull: Bool { count >= maxPairs || tokens.count >= maxTokens }

    /// Adds a record's tokens, as `RecordIndex.tokens` finds them; `id` is its row in `records`.
    package mutating func add(_ r: Record, id: Int64) {
        func add(_ s: String) {
            Tokenizer.forEachToken(s) { t in
                if let i = ids[t] {
                    if records[i].last != id { records[i].append(id); count += 1 }
                } else {
                    ids[t] = tokens.count
                    tokens.append(t)
                    records.append([id])
                    count += 1
                }
                return true
            }
        }
        for value in r.fields.values {
            switch value {
            case .string(let s): add(s)
            case .list(.string, let items): for case .string(let s) in items { add(s) }
            default: break
            }
        }
    }

    /// Writes what is gathered, token by token in order (each token given its id in the log), and starts afresh.
    package mutating func write(_ log: Int64, into db: SQLiteConnection) throws(SQLiteConnection.Failure) {
        let makeToken = try db.prepare("INSERT INTO tokens(log, tok) VALUES(?1, ?2) ON CONFLICT(log, tok) DO UPDATE SET tok = tok RETURNING id")
        let insert = try db.prepare("INSERT INTO toks(tok, rec) SELECT ?1, value FROM json_each(?2)")
        let tokens = self.tokens, records = self.records
        for i in tokens.indices.sorted(by: { tokens[$0] < tokens[$1] }) {
            try makeToken.bind([log, tokens[i]])
            let tok = try makeToken.step() ? makeToken.int(0) : 0
            makeToken.reset()
            var start = 0
            while start < records[i].count {
                let end = min(start + TokenPostings.chunk, records[i].count)
                try insert.run([tok, RecordIndex.jsonArray(ints: records[i][start..<end])])
                start = end
            }
        }
        self = TokenPostings(maxPairs: maxPairs, maxTokens: maxTokens)
    }
}
