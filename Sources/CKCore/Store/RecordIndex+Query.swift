import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Queries answered through the index: SQL narrows and orders the candidates, Swift checks every filter
/// again on the records it reads, so the answers are exactly those of a full scan.
extension RecordIndex {
    /// Builds the field-value index of a log on first use (bulk loads don't pay for it). Records are read one
    /// line at a time through their locations, so memory stays flat; the value indexes are rebuilt in one
    /// sort after the rows are in, which is far cheaper than growing them row by row.
    func ensureValues(_ logPath: String, warnings: inout [String]) throws(CKError) {
        let log = try key(logPath)
        // A zone nobody wrote to has no log, and nothing to index.
        guard FileIO.exists(logPath) else { return }
        if try wrap({ () throws(SQLiteConnection.Failure) -> Bool in try valuesReady(log) }) { return }
        var locations: [(Int, Int)] = []
        try wrap { () throws(SQLiteConnection.Failure) in
            let s = try db.prepare("SELECT off, len FROM records WHERE log = ?1 ORDER BY off")
            try s.bind([log])
            while try s.step() { locations.append((Int(s.int(0)), Int(s.int(1)))) }
        }
        let fd = Glibc.open(logPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CKError.internalError("cannot read \(logPath): \(FileIO.errnoText())") }
        defer { close(fd) }
        var failure: CKError? = nil
        try wrap { () throws(SQLiteConnection.Failure) in
            try db.transaction { () throws(SQLiteConnection.Failure) in
                try db.exec("DROP INDEX IF EXISTS vals_num; DROP INDEX IF EXISTS vals_txt; DROP INDEX IF EXISTS vals_fold;")
                try db.prepare("DELETE FROM vals WHERE log = ?1").run([log])
                let add = try db.prepare("INSERT INTO vals(log, name, field, num, txt, fold) VALUES(?1, ?2, ?3, ?4, ?5, ?6)")
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
                }
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

    /// The SQL form of a query over one log: statements run in turn, each yielding rows in the final order.
    struct SQLQuery {
        var phases: [(sql: String, args: [SQLiteValue])]
    }

    /// The arguments of a statement being written: each value takes the next `?N`.
    struct SQLArguments {
        var values: [SQLiteValue]
        mutating func add(_ v: SQLiteValue) -> String {
            values.append(v)
            return "?\(values.count)"
        }
    }

    /// A test on one field's rows in `vals`, written for a table alias: at least as wide as its filter.
    struct ValueTest {
        var field: String
        var sql: (_ args: inout SQLArguments, _ alias: String) -> String
    }

    static func isASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 } }

    /// The most conditions a query hands to SQLite; longer conjunctions are evaluated record by record.
    static let maxSQLFilters = 100

    /// Where a statement's rows come from, before the other filters test them.
    private enum Source {
        /// The sort order itself: the sort field's values (with any conditions on that field), or the records.
        case ordered
        /// One record named by `___recordID ==`.
        case named
        /// The records one filter matches, read through that filter's index and then sorted.
        case driver(ValueTest)
    }

    /// Plans a query, or nil when its order can't be produced by SQL. Filters SQL can't express exactly
    /// are left to the Swift check. `sortColumn` is `num` or `txt`: how the sort field is stored.
    ///
    /// Conditions on the sort field narrow the ordered scan itself (`n >= 5000 --sort n` starts at 5000).
    /// Of the other filters, the one with the fewest index rows drives the query when it has few enough
    /// (at most `driverLimit`); the rest are tested per row, and only on rows the scan reaches.
    func sqlQuery(log: Int64, recordType: String, filters: [QueryFilter], sort: [QuerySort], sortColumn: String,
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
            } else if let t = RecordIndex.valueTest(f) {
                tests.append(t)
            }
        }
        let onSort = tests.filter { $0.field == sortField }
        var others = tests.filter { $0.field != sortField }

        var source = Source.ordered
        if !names.isEmpty {
            source = .named
        } else if !others.isEmpty {
            var best = onSort.isEmpty ? driverLimit : try estimate(log: log, onSort, limit: driverLimit)
            var chosen: Int? = nil
            for (i, t) in others.enumerated() where best > 0 {
                let n = try estimate(log: log, [t], limit: driverLimit)
                if n < best { best = n; chosen = i }
            }
            if let chosen { source = .driver(others.remove(at: chosen)) }
        }

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
                let f = a.add(.text(t.field))
                from = "(SELECT DISTINCT d.name FROM vals d WHERE d.log = ?1 AND d.field = \(f) AND \(t.sql(&a, "d"))) dn CROSS JOIN records r"
                    + (joinSort ? " CROSS JOIN vals s INDEXED BY vals_rec" : "")
                conds.append("r.name = dn.name")
            }
            if joinSort, let f = sortField {
                conds += ["s.log = ?1", "s.field = \(a.add(.text(f)))", "s.name = r.name"]
                for t in onSort { conds.append(t.sql(&a, "s")) }
            }
            conds += extra(&a)
            for n in names { conds.append("r.name = \(a.add(.text(n)))") }
            for t in others {
                let f = a.add(.text(t.field))
                conds.append("EXISTS (SELECT 1 FROM vals v INDEXED BY vals_rec WHERE v.log = r.log AND v.name = r.name AND v.field = \(f) AND \(t.sql(&a, "v")))")
            }
            return ("SELECT r.off, r.len FROM \(from) WHERE \(conds.joined(by: " AND ")) ORDER BY \(order)", a.values)
        }

        switch field {
        case nil, "___recordID"?:
            let phase = statement(joinSort: false, { a in after.map { ["r.name \(cmp) \(a.add(.text($0.name)))"] } ?? [] }, order: "r.name\(dir)")
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

    /// How many rows of `vals` the tests (all on one field) match, counting no further than `limit`.
    private func estimate(log: Int64, _ tests: [ValueTest], limit: Int) throws(CKError) -> Int {
        guard let field = tests.first?.field else { return 0 }
        var a = SQLArguments(values: [.int(log), .text(field)])
        let conds = tests.map { $0.sql(&a, "d") }.joined(by: " AND ")
        let sql = "SELECT count(*) FROM (SELECT 1 FROM vals d WHERE d.log = ?1 AND d.field = ?2 AND \(conds) LIMIT \(limit))"
        return try wrap { () throws(SQLiteConnection.Failure) -> Int in
            let s = try db.prepare(sql)
            try s.bind(a.values)
            return try s.step() ? Int(s.int(0)) : 0
        }
    }

    static func sqlValue(_ v: QueryValue) -> SQLiteValue {
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

    /// A test on a user field's indexed values at least as wide as the filter (the Swift check narrows
    /// it), or nil to leave the filter to Swift.
    static func valueTest(_ f: QueryFilter) -> ValueTest? {
        // System fields live in the records table; token search has no index.
        if f.field.hasPrefix("___") || f.comparator == .CONTAINS_ALL_TOKENS || f.comparator == .CONTAINS_ANY_TOKENS { return nil }
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
            return ValueTest(field: f.field) { a, t in "\(t).\(e.column) = \(a.add(e.value))" }
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
    func rows(_ q: SQLQuery, _ body: (_ offset: Int, _ length: Int) throws(CKError) -> Bool) throws(CKError) {
        for phase in q.phases {
            let stmt = try wrap { () throws(SQLiteConnection.Failure) -> SQLiteStatement in
                let s = try db.prepare(phase.sql)
                try s.bind(phase.args)
                return s
            }
            while try wrap({ () throws(SQLiteConnection.Failure) -> Bool in try stmt.step() }) {
                if try !body(Int(stmt.int(0)), Int(stmt.int(1))) { return }
            }
        }
    }
}
