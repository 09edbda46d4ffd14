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
                    guard n == len, let json = try? JSON.parse(utf8: buffer[0..<len]),
                          case .save(_, let r)? = try? LogEntry(json: json, path: logPath) else {
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
        var phases: [(sql: String, args: [Any?])]
    }

    static func isASCII(_ s: String) -> Bool { s.utf8.allSatisfy { $0 < 0x80 } }

    /// Plans a query, or nil when its order can't be produced by SQL. Filters SQL can't express exactly
    /// are left to the Swift check. `sortColumn` is `num` or `txt`: how the sort field is stored.
    /// The most conditions a query hands to SQLite; longer conjunctions are evaluated record by record.
    static let maxSQLFilters = 100

    func sqlQuery(log: Int64, recordType: String, filters: [QueryFilter], sort: [QuerySort], sortColumn: String,
                  after: SortKey?) -> SQLQuery? {
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
        func statement(_ head: String, _ extra: [String], order: String, bind: [Any?]) -> (String, [Any?]) {
            var args: [Any?] = [log, recordType] + bind
            func arg(_ v: Any?) -> String { args.append(v); return "?\(args.count)" }
            var conds = extra.map { c -> String in
                // Placeholders in `extra` are written as {0}, {1}… over `bind`.
                var out = c
                for i in bind.indices { out = out.replacingOccurrences(of: "{\(i)}", with: "?\(i + 3)") }
                return out
            }
            for f in filters { if let c = condition(f, arg: arg) { conds.append(c) } }
            return (head + " WHERE r.log = ?1 AND r.type = ?2" + conds.map { " AND " + $0 }.joined() + " ORDER BY " + order, args)
        }
        let select = "SELECT r.off, r.len FROM records r"
        switch field {
        case nil, "___recordID"?:
            let keyset = after == nil ? [] : ["r.name \(cmp) {0}"]
            return SQLQuery(phases: [statement(select, keyset, order: "r.name\(dir)", bind: after.map { [$0.name] } ?? [])])
        case "___createTime"?, "___modTime"?:
            let col = field == "___createTime" ? "r.created" : "r.modified"
            var keyset: [String] = []
            var bind: [Any?] = []
            if let after, let v = after.values.first ?? nil {
                keyset = ["(\(col) \(cmp) {0} OR (\(col) = {0} AND r.name \(cmp) {1}))"]
                bind = [RecordIndex.sqlValue(v), after.name]
            }
            return SQLQuery(phases: [statement(select, keyset, order: "\(col)\(dir), r.name\(dir)", bind: bind)])
        case let f?:
            // Records with the field, in index order; then those without it, by name.
            let join = "SELECT r.off, r.len FROM vals s JOIN records r ON r.log = s.log AND r.name = s.name"
            let fieldCond = "s.log = ?1 AND s.field = {0}"
            let missing = "NOT EXISTS (SELECT 1 FROM vals m INDEXED BY vals_rec WHERE m.log = r.log AND m.name = r.name AND m.field = {0})"
            var phases: [(sql: String, args: [Any?])] = []
            if let after, after.values.first ?? nil == nil {
                phases.append(statement(select, [missing, "r.name \(cmp) {1}"], order: "r.name\(dir)", bind: [f, after.name]))
            } else {
                var keyset = [fieldCond]
                var bind: [Any?] = [f]
                if let after, let v = after.values.first ?? nil {
                    keyset.append("(s.\(sortColumn) \(cmp) {1} OR (s.\(sortColumn) = {1} AND s.name \(cmp) {2}))")
                    bind += [RecordIndex.sqlValue(v), after.name]
                }
                phases.append(statement(join, keyset, order: "s.\(sortColumn)\(dir), s.name\(dir)", bind: bind))
                phases.append(statement(select, [missing], order: "r.name\(dir)", bind: [f]))
            }
            return SQLQuery(phases: phases)
        }
    }

    static func sqlValue(_ v: QueryValue) -> Any? {
        switch v {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .bool(let b): return b ? 1.0 : 0.0
        case .date(let d): return Double(d)
        case .string(let s): return s
        case .reference(let r): return r.recordName
        default: return nil
        }
    }

    /// A condition at least as wide as the filter (the Swift check narrows it), or nil to leave it to Swift.
    func condition(_ f: QueryFilter, arg: (Any?) -> String) -> String? {
        func exists(_ c: String) -> String {
            "EXISTS (SELECT 1 FROM vals v INDEXED BY vals_rec WHERE v.log = r.log AND v.name = r.name AND v.field = \(arg(f.field)) AND \(c))"
        }
        /// Column and value an equality tests; strings compare case-folded (ASCII values only, where
        /// folding is unambiguous).
        func equality(_ v: QueryValue) -> (column: String, value: Any?)? {
            switch v {
            case .int, .double, .bool, .date: return ("v.num", RecordIndex.sqlValue(v))
            case .string(let s): return RecordIndex.isASCII(s) ? ("v.fold", RecordIndex.fold(s)) : nil
            case .reference(let r): return ("v.txt", r.recordName)
            default: return nil
            }
        }
        // System fields kept in the records table.
        if f.field == "___recordID", f.comparator == .EQUALS, case .string(let n) = f.value { return "r.name = \(arg(n))" }
        if f.field.hasPrefix("___") { return nil }
        switch f.comparator {
        case .EQUALS, .LIST_CONTAINS:
            guard let e = equality(f.value) else { return nil }
            return exists("\(e.column) = \(arg(e.value))")
        case .LESS_THAN, .LESS_THAN_OR_EQUALS, .GREATER_THAN, .GREATER_THAN_OR_EQUALS:
            let op = [.LESS_THAN: "<", .LESS_THAN_OR_EQUALS: "<=", .GREATER_THAN: ">", .GREATER_THAN_OR_EQUALS: ">="][f.comparator] ?? "="
            switch f.value {
            case .int, .double, .bool, .date: return exists("v.num \(op) \(arg(RecordIndex.sqlValue(f.value)))")
            case .string(let s): return exists("v.txt \(op) \(arg(s))")
            default: return nil
            }
        case .IN, .LIST_CONTAINS_ANY:
            guard case .list(let items) = f.value, !items.isEmpty, items.allSatisfy({ equality($0) != nil }) else { return nil }
            var parts: [String] = []
            for i in items {
                guard let e = equality(i) else { return nil }
                parts.append("\(e.column) = \(arg(e.value))")
            }
            return exists("(" + parts.joined(separator: " OR ") + ")")
        case .BEGINS_WITH:
            guard case .string(let p) = f.value, !p.isEmpty else { return nil }
            return exists("v.txt >= \(arg(p)) AND v.txt < \(arg(p + "\u{10FFFF}"))")
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
