import CKModel
import CKSQLite

/// Equality sorted by another field (`priority == 42 --sort -date`), kept in order: for a pair of numeric fields a
/// query asked for, `pairvals` lists each record's (equality value, sort value, name), so a page reads its rows in
/// order through one index range however many records match, where reading every match and sorting grows with the
/// zone. A pair is built on the first query that asks for it and kept up to date by every write after. A unary `+`
/// keeps SQLite from reading a record's values through `vals_num` (a scan of the field) instead of its primary key.
extension RecordIndex {
    /// The pairs of a log: (pair id, equality field id, sort field id).
    func sortedPairs(_ log: Int64) throws(SQLiteConnection.Failure) -> [(id: Int64, eq: Int64, sort: Int64)] {
        let s = try db.prepare("SELECT id, eq, sort FROM pairs WHERE log = ?1")
        try s.bind([log])
        var out: [(id: Int64, eq: Int64, sort: Int64)] = []
        while try s.step() { out.append((s.int(0), s.int(1), s.int(2))) }
        return out
    }

    /// Removes a record's pair rows, found from its values in `vals` (so this runs before those rows go).
    func dropPairs(_ rec: Int64, name: String, _ pairs: [(id: Int64, eq: Int64, sort: Int64)]) throws(SQLiteConnection.Failure) {
        for p in pairs {
            try db.prepare("""
                DELETE FROM pairvals WHERE pair = ?1 AND key IN (SELECT num FROM vals WHERE rec = ?2 AND field = ?3 AND +num IS NOT NULL)
                    AND val IN (SELECT num FROM vals WHERE rec = ?2 AND field = ?4 AND +num IS NOT NULL) AND name = ?5
                """).run([p.id, rec, p.eq, p.sort, name])
        }
    }

    /// Adds a record's pair rows from its values in `vals` (so this runs after they are in).
    func addPairs(_ rec: Int64, _ pairs: [(id: Int64, eq: Int64, sort: Int64)]) throws(SQLiteConnection.Failure) {
        for p in pairs {
            try db.prepare("""
                INSERT OR IGNORE INTO pairvals(pair, key, val, name, rec) SELECT ?1, e.num, s.num, r.name, r.id
                FROM vals e CROSS JOIN vals s CROSS JOIN records r
                WHERE e.rec = ?2 AND e.field = ?3 AND +e.num IS NOT NULL AND s.rec = ?2 AND s.field = ?4 AND +s.num IS NOT NULL AND r.id = ?2
                """).run([p.id, rec, p.eq, p.sort])
        }
    }

    /// The pair of two fields of a log, built from the log's values when first asked for; nil when either field
    /// is in no record.
    func sortedPair(_ log: Int64, eq: String, sort: String) throws(CKError) -> Int64? {
        try wrap { () throws(SQLiteConnection.Failure) -> Int64? in
            let field = try db.prepare("SELECT id FROM fields WHERE log = ?1 AND name = ?2")
            try field.bind([log, eq])
            guard try field.step() else { return nil }
            let e = field.int(0)
            try field.bind([log, sort])
            guard try field.step() else { return nil }
            let s = field.int(0)
            field.reset()
            let find = try db.prepare("SELECT id FROM pairs WHERE log = ?1 AND eq = ?2 AND sort = ?3")
            try find.bind([log, e, s])
            if try find.step() { return find.int(0) }
            find.reset()
            return try db.transaction { () throws(SQLiteConnection.Failure) -> Int64? in
                let add = try db.prepare("INSERT INTO pairs(log, eq, sort) VALUES(?1, ?2, ?3) RETURNING id")
                try add.bind([log, e, s])
                guard try add.step() else { return nil }
                let id = add.int(0)
                add.reset()
                try db.prepare("""
                    INSERT OR IGNORE INTO pairvals(pair, key, val, name, rec) SELECT ?1, e.num, s.num, r.name, r.id
                    FROM vals e CROSS JOIN vals s CROSS JOIN records r
                    WHERE e.field = ?2 AND e.num IS NOT NULL AND s.rec = e.rec AND s.field = ?3 AND +s.num IS NOT NULL AND r.id = e.rec
                    """).run([id, e, s])
                return id
            }
        }
    }
}
