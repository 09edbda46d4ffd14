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
        var locations: [(Int, Int)] = []
        try wrap { () throws(SQLiteConnection.Failure) in
            // In name order, so each token's records come in the order `toks` keeps them.
            let s = try db.prepare("SELECT off, len FROM records WHERE log = ?1 ORDER BY name")
            try s.bind([log])
            while try s.step() { locations.append((Int(s.int(0)), Int(s.int(1)))) }
        }
        try FileIO.refuseLinks(logPath)
        let fd = Glibc.open(logPath, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw CKError.internalError("cannot read \(logPath): \(FileIO.errnoText())") }
        defer { close(fd) }
        var failure: CKError? = nil
        try wrap { () throws(SQLiteConnection.Failure) in
            try db.transaction { () throws(SQLiteConnection.Failure) in
                try db.exec("""
                    DROP INDEX IF EXISTS vals_num; DROP INDEX IF EXISTS vals_txt; DROP INDEX IF EXISTS vals_fold;
                    """)
                try db.prepare("DELETE FROM vals WHERE log = ?1").run([log])
                try db.prepare("DELETE FROM toks WHERE log = ?1").run([log])
                let add = try db.prepare("INSERT INTO vals(log, name, field, num, txt, fold) VALUES(?1, ?2, ?3, ?4, ?5, ?6)")
                var postings = TokenPostings()
                var buffer = [UInt8](repeating: 0, count: 1 << 16)
                for (off, len) in locations where failure == nil {
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
                    for (field, value) in r.fields {
                        for (num, txt) in RecordIndex.indexValues(value) {
                            try add.run([log, r.recordName, field, num, txt, txt.map(RecordIndex.fold)])
                        }
                    }
                    postings.add(r)
                    if postings.isFull { try postings.write(log, into: db) }
                }
                try postings.write(log, into: db)
                try db.exec("""
                    CREATE INDEX vals_num ON vals(log, field, num, name);
                    CREATE INDEX vals_txt ON vals(log, field, txt, name);
                    CREATE INDEX vals_fold ON vals(log, field, fold, name);
                    """)
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

    /// Indexes a record's search tokens (its rows must not be there yet).
    package func addTokens(_ log: Int64, _ r: Record) throws(SQLiteConnection.Failure) {
        let tokens = RecordIndex.tokens(r)
        guard !tokens.isEmpty else { return }
        try db.prepare("INSERT OR IGNORE INTO toks(log, tok, name) SELECT ?1, value, ?2 FROM json_each(?3)")
            .run([log, r.recordName, RecordIndex.jsonArray(tokens)])
    }

    /// Removes a record's search tokens. They are found from its strings in `vals` (a superset of what was
    /// tokenized: reference names too), so this runs before those rows go, and `toks` needs no second index.
    package func dropTokens(_ log: Int64, _ name: String) throws(SQLiteConnection.Failure) {
        let texts = try db.prepare("SELECT txt FROM vals INDEXED BY vals_rec WHERE log = ?1 AND name = ?2 AND txt IS NOT NULL")
        try texts.bind([log, name])
        var tokens: [String] = []
        while try texts.step() { Tokenizer.forEachToken(texts.text(0)) { tokens.append($0); return true } }
        guard !tokens.isEmpty else { return }
        try db.prepare("DELETE FROM toks WHERE log = ?1 AND tok IN (SELECT value FROM json_each(?3)) AND name = ?2")
            .run([log, name, RecordIndex.jsonArray(tokens)])
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
    /// alias: at least as wide as its filter.
    package struct ValueTest {
        package var field: String
        package var sql: (_ args: inout SQLArguments, _ alias: String) -> String
        /// On `toks` (token search) rather than on the field's rows of `vals`.
        package var tokens = false
        /// An equality whose index lists the matching records by name, so it can drive a query in name order.
        package var byName = false

        /// The test as conditions on its table's rows in the log `log`, for the alias `t`.
        package func conditions(_ a: inout SQLArguments, _ t: String, log: String) -> String {
            if tokens { return "\(t).log = \(log) AND \(sql(&a, t))" }
            return "\(t).log = \(log) AND \(t).field = \(a.add(.text(field))) AND \(sql(&a, t))"
        }

        /// The table the test reads.
        package var table: String { tokens ? "toks" : "vals" }
    }

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
        /// The records an equality matches, read through its index in name order: a query in name order
        /// stops after one page, however many records match.
        case orderedDriver(ValueTest)
    }

    /// Plans a query, or nil when its order can't be produced by SQL. Filters SQL can't express exactly
    /// are left to the Swift check. `sortColumn` is `num` or `txt`: how the sort field is stored.
    ///
    /// Conditions on the sort field narrow the ordered scan itself (`n >= 5000 --sort n` starts at 5000).
    /// Of the other filters, the one with the fewest index rows drives the query when it has few enough
    /// (at most `driverLimit`); the rest are tested per row, and only on rows the scan reaches. In name
    /// order an equality (a token, a list member) drives it however many it matches, through its index in
    /// name order. `driverLimit` 0 means no driver: the walk in sort order.
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

        let inNameOrder = field == nil || field == "___recordID"
        var source = Source.ordered
        if !names.isEmpty {
            source = .named
        } else if inNameOrder, driverLimit > 0, others.count == 1, let only = others.first, only.byName {
            // Nothing to compare it with: it drives, however many records it matches.
            source = .orderedDriver(only)
            others = []
        } else if !others.isEmpty {
            var best = onSort.isEmpty ? driverLimit : try estimate(log: log, onSort, limit: driverLimit)
            var chosen: (index: Int, inOrder: Bool)? = nil
            for (i, t) in others.enumerated() where best > 0 {
                let n = try estimate(log: log, [t], limit: driverLimit)
                let inOrder = inNameOrder && t.byName
                // In name order an equality's index beats the walk even at the limit: its rows are a subset.
                if n < best || (n == best && inOrder && chosen?.inOrder != true) { best = n; chosen = (i, inOrder) }
            }
            if let chosen {
                let t = others.remove(at: chosen.index)
                source = chosen.inOrder ? .orderedDriver(t) : .driver(t)
            }
        }
        // In name order through an equality's index, the names come from its rows.
        let nameColumn: String
        if case .orderedDriver = source { nameColumn = "d.name" } else { nameColumn = "r.name" }

        /// One statement: rows from `source`, joined to the sort field's values when `joinSort`.
        func statement(joinSort: Bool, _ extra: (inout SQLArguments) -> [String], order: String) -> (sql: String, args: [SQLiteValue]) {
            var a = SQLArguments(values: [.int(log), .text(recordType)])
            var from: String
            var conds = ["r.log = ?1", "r.type = ?2"]
            switch source {
            // After the records, the sort value is one lookup by record (vals_rec); left to itself, SQLite
            // reads it through vals_num, scanning every value of the field for each record.
            case .ordered: from = joinSort ? "vals s CROSS JOIN records r" : "records r"
            case .named: from = joinSort ? "records r CROSS JOIN vals s INDEXED BY vals_rec" : "records r"
            case .driver(let t):
                from = "(SELECT DISTINCT d.name FROM \(t.table) d WHERE \(t.conditions(&a, "d", log: "?1"))) dn CROSS JOIN records r"
                    + (joinSort ? " CROSS JOIN vals s INDEXED BY vals_rec" : "")
                conds.append("r.name = dn.name")
            case .orderedDriver(let t):
                from = "\(t.table) d CROSS JOIN records r"
                conds += [t.conditions(&a, "d", log: "?1"), "r.name = d.name"]
            }
            if joinSort, let f = sortField {
                conds += ["s.log = ?1", "s.field = \(a.add(.text(f)))", "s.name = r.name"]
                for t in onSort { conds.append(t.sql(&a, "s")) }
            }
            conds += extra(&a)
            for n in names { conds.append("r.name = \(a.add(.text(n)))") }
            for t in others {
                if t.tokens {
                    conds.append("EXISTS (SELECT 1 FROM toks v WHERE v.log = r.log AND v.name = r.name AND \(t.sql(&a, "v")))")
                } else {
                    let f = a.add(.text(t.field))
                    conds.append("EXISTS (SELECT 1 FROM vals v INDEXED BY vals_rec WHERE v.log = r.log AND v.name = r.name AND v.field = \(f) AND \(t.sql(&a, "v")))")
                }
            }
            return ("SELECT r.off, r.len FROM \(from) WHERE \(conds.joined(by: " AND ")) ORDER BY \(order)", a.values)
        }

        switch field {
        case nil, "___recordID"?:
            let phase = statement(joinSort: false, { a in after.map { ["\(nameColumn) \(cmp) \(a.add(.text($0.name)))"] } ?? [] },
                                  order: "\(nameColumn)\(dir)")
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
            // Records with the field, in index order; then those without it, by name (none can match a
            // condition on the field, so that phase is left out when there is one).
            func missing(_ a: inout SQLArguments) -> String {
                "NOT EXISTS (SELECT 1 FROM vals m INDEXED BY vals_rec WHERE m.log = r.log AND m.name = r.name AND m.field = \(a.add(.text(f))))"
            }
            var phases: [(sql: String, args: [SQLiteValue])] = []
            if let after, after.values.first ?? nil == nil {
                if onSort.isEmpty {
                    phases.append(statement(joinSort: false, { a in [missing(&a), "r.name \(cmp) \(a.add(.text(after.name)))"] }, order: "r.name\(dir)"))
                }
            } else {
                phases.append(statement(joinSort: true, { a in
                    guard let after, let v = after.values.first ?? nil else { return [] }
                    let value = a.add(RecordIndex.sqlValue(v)), name = a.add(.text(after.name))
                    return ["(s.\(sortColumn) \(cmp) \(value) OR (s.\(sortColumn) = \(value) AND s.name \(cmp) \(name)))"]
                }, order: "s.\(sortColumn)\(dir), s.name\(dir)"))
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
        let conds = tests.map { $0.conditions(&a, "d", log: "?1") }.joined(by: " AND ")
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
                    "(" + tokens.map { "\(t).tok = \(a.add(.text($0)))" }.joined(separator: " OR ") + ")"
                }, tokens: true, byName: tokens.count == 1)]
            }
            return tokens.map { token in
                ValueTest(field: tokenField, sql: { a, t in "\(t).tok = \(a.add(.text(token)))" }, tokens: true, byName: true)
            }
        }
        return valueTest(f).map { [$0] } ?? []
    }

    /// A test on a user field's indexed values at least as wide as the filter, or nil to leave it to Swift.
    package static func valueTest(_ f: QueryFilter) -> ValueTest? {
        // System fields live in the records table.
        if f.field.hasPrefix("___") { return nil }
        /// Column and value an equality tests; strings compare case-folded (ASCII values only, where
        /// folding is unambiguous).
        func equality(_ v: QueryValue) -> (column: String, value: SQLiteValue)? {
            switch v {
            case .int, .double, .bool, .date: return ("num", sqlValue(v))
            case .string(let s): return isASCII(s) ? ("fold", .text(fold(s))) : nil
            case .reference(let r): return ("txt", .text(r.recordName))
            default: return nil
            }
        }
        switch f.comparator {
        case .EQUALS, .LIST_CONTAINS:
            guard let e = equality(f.value) else { return nil }
            return ValueTest(field: f.field, sql: { a, t in "\(t).\(e.column) = \(a.add(e.value))" }, byName: true)
        case .LESS_THAN, .LESS_THAN_OR_EQUALS, .GREATER_THAN, .GREATER_THAN_OR_EQUALS:
            let op = [.LESS_THAN: "<", .LESS_THAN_OR_EQUALS: "<=", .GREATER_THAN: ">", .GREATER_THAN_OR_EQUALS: ">="][f.comparator] ?? "="
            let column: String
            switch f.value {
            case .int, .double, .bool, .date: column = "num"
            case .string: column = "txt"
            default: return nil
            }
            let value = sqlValue(f.value)
            return ValueTest(field: f.field) { a, t in "\(t).\(column) \(op) \(a.add(value))" }
        case .IN, .LIST_CONTAINS_ANY:
            guard case .list(let items) = f.value, !items.isEmpty else { return nil }
            var parts: [(column: String, value: SQLiteValue)] = []
            for i in items {
                guard let e = equality(i) else { return nil }
                parts.append(e)
            }
            return ValueTest(field: f.field) { a, t in
                "(" + parts.map { "\(t).\($0.column) = \(a.add($0.value))" }.joined(separator: " OR ") + ")"
            }
        case .BEGINS_WITH:
            guard case .string(let p) = f.value, !p.isEmpty else { return nil }
            return ValueTest(field: f.field) { a, t in "\(t).txt >= \(a.add(.text(p))) AND \(t).txt < \(a.add(.text(p + "\u{10FFFF}")))" }
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
/// records in name order: the rows then go in at the end of the table's b-tree, one statement per token, instead
/// of all over it (a b-tree descent each, and most of the cost of the first query after a bulk load). Records
/// must be added in name order; memory is bounded by writing out what is gathered when it is full.
package struct TokenPostings {
    private var names: [String] = []
    private var ids: [String: Int] = [:]
    private var tokens: [String] = []
    private var records: [[UInt32]] = []
    private var count = 0

    /// Past this many (token, record) pairs, or distinct tokens, the gathered rows are written out (about
    /// 8 MB of record numbers at most).
    private let maxPairs: Int
    private let maxTokens: Int
    /// Names per statement.
    package static let chunk = 4096

    package init(maxPairs: Int = 2_000_000, maxTokens: Int = 200_000) {
        self.maxPairs = maxPairs
        self.maxTokens = maxTokens
    }

    package var isFull: Bool { count >= maxPairs || tokens.count >= maxTokens }

    /// Adds a record's tokens, as `RecordIndex.tokens` finds them.
    package mutating func add(_ r: Record) {
        let n = UInt32(names.count)
        names.append(r.recordName)
        func add(_ s: String) {
            Tokenizer.forEachToken(s) { t in
                if let i = ids[t] {
                    if records[i].last != n { records[i].append(n); count += 1 }
                } else {
                    ids[t] = tokens.count
                    tokens.append(t)
                    records.append([n])
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

    /// Writes what is gathered, token by token in order, and starts afresh.
    package mutating func write(_ log: Int64, into db: SQLiteConnection) throws(SQLiteConnection.Failure) {
        let insert = try db.prepare("INSERT INTO toks(log, tok, name) SELECT ?1, ?2, value FROM json_each(?3)")
        let names = self.names, tokens = self.tokens, records = self.records
        for i in tokens.indices.sorted(by: { tokens[$0] < tokens[$1] }) {
            var start = 0
            while start < records[i].count {
                let end = min(start + TokenPostings.chunk, records[i].count)
                try insert.run([log, tokens[i], RecordIndex.jsonArray(records[i][start..<end].lazy.map { names[Int($0)] })])
                start = end
            }
        }
        self = TokenPostings(maxPairs: maxPairs, maxTokens: maxTokens)
    }
}

