import Foundation
import CKFiles
import CKModel
import CKSQLite

/// `.index.sqlite`: a cache derived from an environment's zone logs — where each live record's line is,
/// its change tag and sequence number, and the values of its fields — so fetch, save and query cost
/// stays flat as logs grow. The logs stay the truth: a missing, stale or damaged index is rebuilt.
package final class RecordIndex {
    package static let formatVersion = "10"
    /// Characters of a string value the string indexes keep (`vals_txt`, `vals_fold`): most values differ
    /// within them, and a long text is not stored three times.
    package static let keyLength = 16
    /// The value indexes: numbers whole; strings, and their case-folded form, by their first `keyLength` characters.
    static let valueIndexes = """
        CREATE INDEX vals_num ON vals(field, num);
        CREATE INDEX vals_txt ON vals(field, substr(txt, 1, \(keyLength)));
        CREATE INDEX vals_fold ON vals(field, substr(coalesce(fold, lower(txt)), 1, \(keyLength)));
        """
    package let path: String
    package let envDir: String
    package let db: SQLiteConnection
    private var ids: [String: Int64] = [:]
    /// The inode of `.index.sqlite` when this connection opened it (IndexPool keeps a connection only while it lasts).
    package private(set) var openedInode: Int64?
    /// Each log's indexed length and content sum as this process last read or wrote them: a save extends the sum
    /// without reading the row again.
    var sums: [Int64: (valid: Int, sum: Int64)] = [:]
    /// Each log's `namesInIdOrder` as last read with `valuesReady` or written: a query reads it without a statement.
    var idOrder: [Int64: Bool] = [:]

    /// Drops what this connection remembers of the logs between calls (log ids, content sums), so a connection kept
    /// open answers as a fresh one: the index file may have been written by another process meanwhile.
    func forgetProcessState() {
        ids = [:]
        sums = [:]
        idOrder = [:]
    }

    /// Opens (creating or rebuilding when damaged or of another format) the index of an environment.
    package static func open(envDir: String) throws(CKError) -> RecordIndex {
        let path = envDir + "/.index.sqlite"
        // SQLite opens the file by name: nothing on the way may be a link (SQLITE_OPEN_NOFOLLOW guards the file).
        try FileIO.refuseLinks(path)
        do {
            return try RecordIndex(path: path, envDir: envDir)
        } catch {
            // A cache can always be thrown away.
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileIO.unlink(path + suffix) }
            do { return try RecordIndex(path: path, envDir: envDir) } catch {
                throw CKError.internalError("cannot open the index \(path): \(error.description)")
            }
        }
    }

    private init(path: String, envDir: String) throws(SQLiteConnection.Failure) {
        self.path = path
        self.envDir = envDir
        db = try SQLiteConnection(path: path, linksChecked: true)
        openedInode = (try? FileIO.info(path))??.inode
        // A cache: no fsync (the logs are durable). WAL, measured against a rollback journal and against WAL with
        // exclusive locking (docs/performance.md): both would save the -shm set-up, but a process may hold two
        // connections to one index (each database of an environment opens its own; ck serve answers requests at
        // once), and with either a statement reading on one would stall a commit on the other; WAL lets them overlap.
        try db.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=OFF;")
        try db.keepWALFiles()
        let version = try? db.prepare("SELECT value FROM meta WHERE key = 'format'")
        if let v = version, try v.step(), v.text(0) == RecordIndex.formatVersion { return }
        // Each string is stored once where it can be: rows of `vals` and `toks` name their record by its integer
        // id and their field or token by an id per log; the string indexes hold a prefix of each value
        // (`keyLength` characters), enough to find it, and the Swift check of every record read narrows what a
        // prefix widens. Case-folded text is kept only where SQLite's lower() (ASCII) would not give it.
        try db.exec("""
            DROP TABLE IF EXISTS meta; DROP TABLE IF EXISTS logs; DROP TABLE IF EXISTS records;
            DROP TABLE IF EXISTS vals; DROP TABLE IF EXISTS refs; DROP TABLE IF EXISTS log_ids; DROP TABLE IF EXISTS deletes;
            DROP TABLE IF EXISTS toks; DROP TABLE IF EXISTS fields; DROP TABLE IF EXISTS tokens;
            DROP TABLE IF EXISTS pairs; DROP TABLE IF EXISTS pairvals;
            CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
            CREATE TABLE log_ids(path TEXT PRIMARY KEY, id INTEGER NOT NULL UNIQUE);
            CREATE TABLE logs(log INTEGER PRIMARY KEY, size INTEGER, inode INTEGER, mtime INTEGER, ctime INTEGER, valid INTEGER,
                              lines INTEGER, last_seq INTEGER, tail TEXT, vals_ready INTEGER DEFAULT 0, sum INTEGER,
                              ordered INTEGER DEFAULT 1);
            CREATE TABLE records(id INTEGER PRIMARY KEY, log INTEGER, name TEXT, type TEXT, off INTEGER, len INTEGER, seq INTEGER,
                                 created INTEGER, modified INTEGER);
            CREATE UNIQUE INDEX records_name ON records(log, name);
            CREATE INDEX records_type ON records(log, type, name);
            CREATE INDEX records_created ON records(log, type, created, name);
            CREATE INDEX records_modified ON records(log, type, modified, name);
            CREATE INDEX records_seq ON records(log, seq);
            CREATE TABLE deletes(log INTEGER, seq INTEGER, name TEXT, type TEXT, PRIMARY KEY(log, seq, name)) WITHOUT ROWID;
            CREATE INDEX deletes_name ON deletes(log, name, seq);
            CREATE TABLE fields(id INTEGER PRIMARY KEY, log INTEGER, name TEXT, UNIQUE(log, name));
            CREATE TABLE tokens(id INTEGER PRIMARY KEY, log INTEGER, tok TEXT, UNIQUE(log, tok));
            CREATE TABLE vals(rec INTEGER, field INTEGER, i INTEGER, num REAL, txt TEXT, fold TEXT,
                              PRIMARY KEY(rec, field, i)) WITHOUT ROWID;
            \(RecordIndex.valueIndexes)
            CREATE TABLE refs(log INTEGER, name TEXT, target TEXT, action TEXT);
            CREATE INDEX refs_target ON refs(log, target, action);
            CREATE INDEX refs_rec ON refs(log, name);
            CREATE TABLE toks(tok INTEGER, rec INTEGER, PRIMARY KEY(tok, rec)) WITHOUT ROWID;
            CREATE TABLE pairs(id INTEGER PRIMARY KEY, log INTEGER, eq INTEGER, sort INTEGER, UNIQUE(log, eq, sort));
            CREATE TABLE pairvals(pair INTEGER, key REAL, val REAL, name TEXT, rec INTEGER,
                                  PRIMARY KEY(pair, key, val, name)) WITHOUT ROWID;
            INSERT INTO meta VALUES('format', '\(RecordIndex.formatVersion)');
            """)
    }

    package func wrap<T>(_ body: () throws(SQLiteConnection.Failure) -> T) throws(CKError) -> T {
        do { return try body() } catch { throw failure(error) }
    }

    /// An SQLite failure as ck reports it; a damaged file is removed, to be rebuilt.
    package func failure(_ error: SQLiteConnection.Failure) -> CKError {
        if error.isCorruption { try? FileIO.unlink(path) }
        return CKError.internalError("index \(path): \(error.description)", hint: "the index is a cache; delete it and ck rebuilds it")
    }

    /// The log's key in the index: a small number for its path below the environment directory (rows
    /// repeat it, so it is kept short).
    package func key(_ logPath: String) throws(CKError) -> Int64 {
        let path = logPath.hasPrefix(envDir + "/") ? String(logPath.dropFirst(envDir.count + 1)) : logPath
        if let id = ids[path] { return id }
        let id = try wrap { () throws(SQLiteConnection.Failure) -> Int64 in
            let find = try db.prepare("SELECT id FROM log_ids WHERE path = ?1")
            try find.bind([path])
            if try find.step() { return find.int(0) }
            try db.prepare("INSERT INTO log_ids(path, id) VALUES(?1, (SELECT coalesce(max(id), 0) + 1 FROM log_ids))").run([path])
            try find.bind([path])
            return try find.step() ? find.int(0) : 0
        }
        ids[path] = id
        return id
    }

    // MARK: Keeping up with the logs

    /// Brings the index up to date with a log and returns what was read past the indexed part
    /// (its torn-tail state is what the next append needs).
    @discardableResult
    package func sync(_ logPath: String, warnings: inout [Diagnostic]) throws(CKError) -> ZoneLogContents {
        let log = try key(logPath)
        guard let info = try FileIO.info(logPath) else {
            sums[log] = nil
            try wrap { () throws(SQLiteConnection.Failure) in try forget(log) }
            return ZoneLogContents()
        }
        let row = try wrap { () throws(SQLiteConnection.Failure) -> (size: Int, inode: Int64, mtime: Int64, ctime: Int64, valid: Int, lines: Int, tail: String, sum: Int64?)? in
            let s = try db.prepare("SELECT size, inode, mtime, ctime, valid, lines, tail, sum FROM logs WHERE log = ?1")
            try s.bind([log])
            guard try s.step() else { return nil }
            return (Int(s.int(0)), s.int(1), s.int(2), s.int(3), Int(s.int(4)), Int(s.int(5)), s.text(6), s.isNull(7) ? nil : s.int(7))
        }
        var from = 0, firstLine = 1
        var tail: [UInt8]? = nil
        // The sum this process knows of the log: known again below only if the indexed part is still the log's.
        sums[log] = nil
        // An unchanged log has its inode, size, mtime and ctime; one that only grew (an append) keeps its indexed
        // tail. A log whose inode or times changed (the store was copied) is kept when its indexed bytes still sum
        // to what was recorded: summing reads the log once, indexing it again costs far more.
        if let r = row, r.valid <= info.size, r.size <= info.size {
            let sameFile = r.inode == info.inode && (r.size < info.size || (r.mtime == info.mtime && r.ctime == info.ctime))
            let trusted = sameFile ? tailHash(logPath, valid: r.valid, bytes: &tail) == r.tail
                                   : sameContent(logPath, valid: r.valid, sum: r.sum)
            if trusted {
                if !sameFile {
                    try wrap { () throws(SQLiteConnection.Failure) in try restamp(log, info: info) }
                    if info.size > 0 { tail = try FileIO.readRange(logPath, from: info.size - 1, count: 1) }
                }
                if let sum = r.sum { sums[log] = (r.valid, sum) }
                if r.size == info.size && r.valid == info.size {
                    var c = ZoneLogContents()
                    c.validLength = info.size
                    c.lines = r.lines
                    // A hand-edited last line may lack its newline; the next append must add one. The hashed tail
                    // ends at the log's end here, so its last byte is the log's (one read for both).
                    if info.size > 0, let last = tail?.last { c.missingNewline = last != 0x0A }
                    return c
                }
                from = r.valid
                firstLine = r.lines + 1
            }
        }
        // The log is read a piece at a time, so rebuilding the index of a large log keeps memory flat.
        let contents = try db.transaction(mapping: failure) { () throws(CKError) -> ZoneLogContents in
            if from == 0 { try wrap { () throws(SQLiteConnection.Failure) in try forget(log) } }
            var first = true
            var lastSeq: Int64? = nil
            let c = try ZoneLog.scan(logPath, from: from, firstLine: firstLine) { (entries, spans) throws(CKError) in
                try wrap { () throws(SQLiteConnection.Failure) in
                    try apply(log, entries, spans: spans, valsReady: first && from == 0 ? false : nil)
                }
                first = false
                lastSeq = entries.last?.seq ?? lastSeq
            }
            try wrap { () throws(SQLiteConnection.Failure) in
                // Numbers of lines no longer in the log count too: a gap line's, and a shortened request's last.
                let reserved = max(c.gapSeq, c.shortRequest?.lastSeq ?? 0)
                let highest = reserved > 0 ? max(lastSeq ?? 0, reserved) : lastSeq
                try record(log, info: FileIO.fileInfo(logPath) ?? info, contents: c, lastSeq: highest, logPath: logPath)
            }
            return c
        }
        warnings += contents.warnings
        return contents
    }

    /// Records entries this process just appended at `spans`, and the log's new state.
    func appended(_ logPath: String, _ entries: [LogEntry], spans: [(offset: Int, length: Int)],
                  after contents: ZoneLogContents) throws(CKError) {
        let log = try key(logPath)
        let c = ZoneLogContents.after(contents, spans: spans, count: entries.count)
        guard let info = try FileIO.info(logPath) else { return }
        try wrap { () throws(SQLiteConnection.Failure) in
            try db.transaction { () throws(SQLiteConnection.Failure) in
                try apply(log, entries, spans: spans, valsReady: nil)
                try record(log, info: info, contents: c, lastSeq: entries.last?.seq, logPath: logPath)
            }
        }
    }

    /// Whether the index is in step with a log (nothing to catch up or redo).
    package func isCurrent(_ logPath: String) throws(CKError) -> Bool {
        let log = try key(logPath)
        guard let info = try FileIO.info(logPath) else { return true }
        let row = try wrap { () throws(SQLiteConnection.Failure) -> (size: Int, inode: Int64, mtime: Int64, ctime: Int64, valid: Int, sum: Int64?)? in
            let s = try db.prepare("SELECT size, inode, mtime, ctime, valid, sum FROM logs WHERE log = ?1")
            try s.bind([log])
            guard try s.step() else { return nil }
            return (Int(s.int(0)), s.int(1), s.int(2), s.int(3), Int(s.int(4)), s.isNull(5) ? nil : s.int(5))
        }
        guard let r = row, r.size == info.size else { return false }
        if r.inode == info.inode && r.mtime == info.mtime && r.ctime == info.ctime { return true }
        // A copy of the log (new inode and times) is current when its indexed bytes are the ones indexed.
        return sameContent(logPath, valid: r.valid, sum: r.sum)
    }

    /// A hash of the 64 bytes before `valid` (a hand edit of the indexed part usually changes them), handing back
    /// the bytes it hashed (nil when it read none).
    private func tailHash(_ logPath: String, valid: Int, bytes: inout [UInt8]?) -> String {
        let start = max(0, valid - 64)
        guard valid > 0, let read = try? FileIO.readRange(logPath, from: start, count: valid - start) else { return "" }
        bytes = read
        return SHA256.hex(read)
    }

    private func record(_ log: Int64, info: (size: Int, inode: Int64, mtime: Int64, ctime: Int64), contents: ZoneLogContents,
                        lastSeq: Int64?, logPath: String) throws(SQLiteConnection.Failure) {
        let (sum, tail) = try newSumAndTail(log, logPath: logPath, valid: contents.validLength)
        try db.prepare("""
            INSERT INTO logs(log, size, inode, mtime, valid, lines, last_seq, tail, ctime, sum) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
            ON CONFLICT(log) DO UPDATE SET size = ?2, inode = ?3, mtime = ?4, valid = ?5, lines = ?6,
                last_seq = max(coalesce(last_seq, 0), coalesce(?7, 0)), tail = ?8, ctime = ?9, sum = ?10
            """).run([log, info.size, info.inode, info.mtime, contents.validLength, contents.lines, lastSeq,
                      tail, info.ctime, sum])
    }

    private func forget(_ log: Int64) throws(SQLiteConnection.Failure) {
        idOrder[log] = nil
        try dropValues(log)
        for table in ["records", "refs", "deletes", "logs"] {
            try db.prepare("DELETE FROM \(table) WHERE log = ?1").run([log])
        }
    }

    /// Removes a log's field values and search tokens. Field and token ids stay: a process may hold them.
    func dropValues(_ log: Int64) throws(SQLiteConnection.Failure) {
        try db.prepare("DELETE FROM pairvals WHERE pair IN (SELECT id FROM pairs WHERE log = ?1)").run([log])
        try db.prepare("DELETE FROM pairs WHERE log = ?1").run([log])
        try db.prepare("DELETE FROM vals WHERE field IN (SELECT id FROM fields WHERE log = ?1)").run([log])
        try db.prepare("DELETE FROM toks WHERE tok IN (SELECT id FROM tokens WHERE log = ?1)").run([log])
    }

    /// The id of a log's field, made on first use; `known` keeps those found during one write.
    func fieldID(_ log: Int64, _ name: String, _ known: inout [String: Int64]) throws(SQLiteConnection.Failure) -> Int64 {
        if let id = known[name] { return id }
        let find = try db.prepare("SELECT id FROM fields WHERE log = ?1 AND name = ?2")
        try find.bind([log, name])
        var id: Int64 = 0
        if try find.step() { id = find.int(0) } else {
            let add = try db.prepare("INSERT INTO fields(log, name) VALUES(?1, ?2) RETURNING id")
            try add.bind([log, name])
            if try add.step() { id = add.int(0) }
            add.reset()
        }
        find.reset()
        known[name] = id
        return id
    }

    /// A record's field values as `vals` rows: (field, position in the field, number, text, folded text when
    /// SQLite's lower() would not make it).
    func addValues(_ log: Int64, rec: Int64, _ r: Record, into add: SQLiteStatement,
                   fields known: inout [String: Int64]) throws(SQLiteConnection.Failure) {
        for (field, value) in r.fields {
            let values = RecordIndex.indexValues(value)
            guard !values.isEmpty else { continue }
            let id = try fieldID(log, field, &known)
            for (i, (num, txt)) in values.enumerated() {
                try add.run([rec, id, i, num, txt, txt.flatMap(RecordIndex.storedFold)])
            }
        }
    }

    /// The folded form to store for a text: nil when lower() in SQL gives it (ASCII text).
    static func storedFold(_ s: String) -> String? { isASCII(s) ? nil : fold(s) }

    /// Applies log entries in order. `valsReady`: set the log's field-value index as complete (true) or
    /// not built (false); nil keeps its state (and maintains values only when it is built).
    private func apply(_ log: Int64, _ entries: [LogEntry], spans: [(offset: Int, length: Int)], valsReady: Bool?) throws(SQLiteConnection.Failure) {
        if let v = valsReady {
            try db.prepare("INSERT INTO logs(log, vals_ready) VALUES(?1, ?2) ON CONFLICT(log) DO UPDATE SET vals_ready = ?2").run([log, v ? 1 : 0])
        }
        let ready = try valuesReady(log)
        // ?9: the id of a new record placed between two others (`slot`); NULL lets SQLite take the highest plus one.
        let upsertSQL = """
            INSERT INTO records(log, name, type, off, len, seq, created, modified, id) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
            ON CONFLICT(log, name) DO UPDATE SET type = ?3, off = ?4, len = ?5, seq = ?6, created = ?7, modified = ?8
            """
        // The record's id is needed only for its values: a bulk load (values not built yet) doesn't ask for it.
        let upsert = try db.prepare(ready ? upsertSQL + " RETURNING id" : upsertSQL)
        let find = try db.prepare("SELECT id FROM records WHERE log = ?1 AND name = ?2")
        let remove = try db.prepare("DELETE FROM records WHERE log = ?1 AND name = ?2")
        let clearVals = try db.prepare("DELETE FROM vals WHERE rec = ?1")
        let clearRefs = try db.prepare("DELETE FROM refs WHERE log = ?1 AND name = ?2")
        let addVal = try db.prepare("INSERT INTO vals(rec, field, i, num, txt, fold) VALUES(?1, ?2, ?3, ?4, ?5, ?6)")
        let addRef = try db.prepare("INSERT INTO refs(log, name, target, action) VALUES(?1, ?2, ?3, ?4)")
        // Every deletion is kept (the change feed tells a record's latest one by name); saves don't touch them.
        let addDelete = try db.prepare("INSERT OR IGNORE INTO deletes(log, seq, name, type) VALUES(?1, ?2, ?3, ?4)")
        var fields: [String: Int64] = [:]
        let pairs = ready ? try sortedPairs(log) : []
        // A log without reference rows has none to clear: a bulk load of records without references (or of new
        // records into a zone without any) deletes nothing per record.
        var refsHeld = try hasRefs(log)
        // Whether the log's record ids still run in name order (`namesInIdOrder`): a new record keeps it when its
        // name comes after every other (a bulk load's usual order), or when a free id lies between those of the
        // names around it (`slot`). Checked against the highest name, read once.
        var ordered = try knownIdOrder(log)
        var highest: [UInt8]? = nil
        if ordered { highest = try highestName(log) }
        for (i, e) in entries.enumerated() {
            switch e {
            case .save(let seq, let r):
                var id: Int64? = nil
                if ordered {
                    let name = Array(r.recordName.utf8)
                    if let h = highest, !h.lexicographicallyPrecedes(name) {
                        // Not past the highest: an existing record keeps its id; a new one takes an id between its
                        // neighbours' when one is free, or else breaks the order. Without values yet (a bulk load)
                        // it breaks it at once: `ensureValues` numbers the records again, in name order, for less.
                        try find.bind([log, r.recordName])
                        let exists = try find.step()
                        find.reset()
                        if !exists {
                            id = ready ? try slot(log, name: r.recordName) : nil
                            if id == nil {
                                ordered = false
                                idOrder[log] = false
                                try db.prepare("INSERT INTO logs(log, ordered) VALUES(?1, 0) ON CONFLICT(log) DO UPDATE SET ordered = 0").run([log])
                            }
                        }
                    } else {
                        highest = name
                    }
                }
                let row: [any SQLiteBindable] = [log, r.recordName, r.recordType, spans[i].offset, spans[i].length, seq,
                                                 r.created.timestamp, r.modified.timestamp, id]
                if ready {
                    try upsert.bind(row)
                    let rec = try upsert.step() ? upsert.int(0) : 0
                    upsert.reset()
                    try dropTokens(log, rec)
                    try dropPairs(rec, name: r.recordName, pairs)
                    try clearVals.run([rec])
                    try addTokens(log, rec, r)
                    try addValues(log, rec: rec, r, into: addVal, fields: &fields)
                    try addPairs(rec, pairs)
                } else {
                    try upsert.run(row)
                }
                if refsHeld { try clearRefs.run([log, r.recordName]) }
                for (_, value) in r.fields {
                    for ref in RecordIndex.references(value) {
                        try addRef.run([log, r.recordName, ref.recordName, ref.action.rawValue])
                        refsHeld = true
                    }
                }
            case .delete(let seq, let name, let type, _, _):
                if ready {
                    try find.bind([log, name])
                    if try find.step() {
                        let rec = find.int(0)
                        find.reset()
                        try dropTokens(log, rec)
                        try dropPairs(rec, name: name, pairs)
                        try clearVals.run([rec])
                    }
                    find.reset()
                }
                try remove.run([log, name])
                try addDelete.run([log, seq, name, type])
                if refsHeld { try clearRefs.run([log, name]) }
            }
        }
    }

    package static func indexValues(_ v: FieldValue) -> [(Double?, String?)] {
        switch v {
        case .string(let s): return [(nil, s)]
        case .int64(let i): return [(Double(i), nil)]
        case .double(let d): return [(d, nil)]
        case .timestamp(let t): return [(Double(t), nil)]
        case .reference(let r): return [(nil, r.recordName)]
        case .list(_, let items): return items.flatMap(indexValues)
        // The server can't read encrypted values, so they are never indexed.
        case .bytes, .asset, .location, .encrypted: return []
        }
    }

    /// The case-folded form equality on strings compares (SQLite's NOCASE can't be trusted with indexes here).
    package static func fold(_ s: String) -> String { s.lowercased() }

    package static func references(_ v: FieldValue) -> [Reference] {
        switch v {
        case .reference(let r): return [r]
        case .list(_, let items): return items.flatMap(references)
        default: return []
        }
    }

    // MARK: Reading

    /// Whether any record of a log has a reference row.
    private func hasRefs(_ log: Int64) throws(SQLiteConnection.Failure) -> Bool {
        let s = try db.prepare("SELECT 1 FROM refs WHERE log = ?1 LIMIT 1")
        try s.bind([log])
        return try s.step()
    }

    /// Whether a log's record ids run in the order of their names (SQLite's, by bytes): a filter's index rows,
    /// kept by record id, then come in name order, and a query sorted by name reads one page of them, not all.
    /// A log without a row has no records yet (they are written with it), so they are in order.
    package func namesInIdOrder(_ log: Int64) throws(SQLiteConnection.Failure) -> Bool {
        let s = try db.prepare("SELECT ordered FROM logs WHERE log = ?1")
        try s.bind([log])
        let ordered = try !s.step() || s.int(0) == 1
        idOrder[log] = ordered
        return ordered
    }

    /// `namesInIdOrder` as this process last read or wrote it, read when it has not.
    func knownIdOrder(_ log: Int64) throws(SQLiteConnection.Failure) -> Bool {
        if let known = idOrder[log] { return known }
        return try namesInIdOrder(log)
    }

    /// Room between record ids left by `renumber` (a new name can then take an id between its neighbours').
    static let idGap: Int64 = 16

    /// A free record id between those of the names before and after `name` in its log, so ids keep running in name
    /// order; nil when there is none. A name before all others takes one below every id of the index.
    private func slot(_ log: Int64, name: String) throws(SQLiteConnection.Failure) -> Int64? {
        func id(_ sql: String) throws(SQLiteConnection.Failure) -> Int64? {
            let s = try db.prepare(sql)
            try s.bind([log, name])
            return try s.step() && !s.isNull(0) ? s.int(0) : nil
        }
        guard let after = try id("SELECT id FROM records WHERE log = ?1 AND name > ?2 ORDER BY name LIMIT 1") else { return nil }
        guard let before = try id("SELECT id FROM records WHERE log = ?1 AND name < ?2 ORDER BY name DESC LIMIT 1") else {
            let lowest = try db.prepare("SELECT min(id) FROM records")
            guard try lowest.step(), !lowest.isNull(0), lowest.int(0) > Int64.min + 1, lowest.int(0) <= after else { return nil }
            return lowest.int(0) - 1
        }
        guard before < after, after - before >= 2 else { return nil }
        // Other logs' records share the id space: the middle, or the ids next to the neighbours, may be taken.
        let taken = try db.prepare("SELECT 1 FROM records WHERE id = ?1")
        for candidate in [before + (after - before) / 2, before + 1, after - 1] where candidate > before && candidate < after {
            try taken.bind([candidate])
            let used = try taken.step()
            taken.reset()
            if !used { return candidate }
        }
        return nil
    }

    /// Numbers a log's records again in name order, `idGap` apart and above every id of the index, and marks its ids
    /// as running in name order. Only for a log without values or tokens yet (their rows hold record ids).
    func renumber(_ log: Int64) throws(SQLiteConnection.Failure) {
        let top = try db.prepare("SELECT coalesce(max(id), 0) FROM records")
        let base = try top.step() ? top.int(0) : 0
        // Every new id is above every old one, so no row meets another's id on the way.
        try db.prepare("""
            UPDATE records SET id = m.new FROM
                (SELECT id AS old, ?2 + ?3 * row_number() OVER (ORDER BY name) AS new FROM records WHERE log = ?1) AS m
            WHERE records.id = m.old
            """).run([log, base, RecordIndex.idGap])
        try db.prepare("INSERT INTO logs(log, ordered) VALUES(?1, 1) ON CONFLICT(log) DO UPDATE SET ordered = 1").run([log])
        idOrder[log] = true
    }

    /// The highest record name of a log, as bytes (nil when it has no record).
    private func highestName(_ log: Int64) throws(SQLiteConnection.Failure) -> [UInt8]? {
        let s = try db.prepare("SELECT name FROM records WHERE log = ?1 ORDER BY name DESC LIMIT 1")
        try s.bind([log])
        return try s.step() ? Array(s.text(0).utf8) : nil
    }

    package func valuesReady(_ log: Int64) throws(SQLiteConnection.Failure) -> Bool {
        let s = try db.prepare("SELECT vals_ready, ordered FROM logs WHERE log = ?1")
        try s.bind([log])
        guard try s.step() else { idOrder[log] = true; return false }
        idOrder[log] = s.int(1) == 1
        return s.int(0) == 1
    }

    /// Where a live record's line is, or nil.
    package func location(_ logPath: String, name: String) throws(CKError) -> (offset: Int, length: Int)? {
        let log = try key(logPath)
        return try wrap { () throws(SQLiteConnection.Failure) -> (offset: Int, length: Int)? in
            let s = try db.prepare("SELECT off, len FROM records WHERE log = ?1 AND name = ?2")
            try s.bind([log, name])
            return try s.step() ? (Int(s.int(0)), Int(s.int(1))) : nil
        }
    }

    /// Reads a live record through the index.
    package func record(_ logPath: String, name: String) throws(CKError) -> Record? {
        guard let loc = try location(logPath, name: name) else { return nil }
        return try RecordIndex.read(logPath, at: loc)
    }

    /// The record on an indexed line; `handle`, the log already open, saves an open and a close per line.
    package static func read(_ logPath: String, at loc: (offset: Int, length: Int), handle: ReadHandle? = nil) throws(CKError) -> Record? {
        let bytes: [UInt8]?
        if let handle { bytes = try handle.read(from: loc.offset, count: loc.length) } else {
            bytes = try FileIO.readRange(logPath, from: loc.offset, count: loc.length)
        }
        guard let bytes, bytes.count == loc.length,
              case .save(_, let r)? = entry(bytes[...], logPath) else {
            throw CKError.internalError("index \(logPath): the indexed line at byte \(loc.offset) is not a record",
                                        hint: "the index is stale; delete .index.sqlite and ck rebuilds it")
        }
        return r
    }

    /// The entry on an indexed line: read straight from the bytes, or through the generic parser for a line of
    /// another shape; nil if it is not an entry at all.
    package static func entry(_ line: ArraySlice<UInt8>, _ logPath: String) -> LogEntry? {
        if let fast = LogEntry.decode(line: line) { return fast.entry }
        guard let json = try? JSON.parse(utf8: line) else { return nil }
        return try? LogEntry(json: json, path: logPath)
    }

    /// Records whose references with `action` point at `target`.
    package func referrers(_ logPath: String, to target: String, action: Reference.Action) throws(CKError) -> [String] {
        let log = try key(logPath)
        return try wrap { () throws(SQLiteConnection.Failure) -> [String] in
            let s = try db.prepare("SELECT DISTINCT name FROM refs WHERE log = ?1 AND target = ?2 AND action = ?3 ORDER BY name")
            try s.bind([log, target, action.rawValue])
            var out: [String] = []
            while try s.step() { out.append(s.text(0)) }
            return out
        }
    }

    /// The most names `existing(_:names:)` asks about in one statement (a request's operations).
    package static let existingBatch = 200
    private static let existingSQL = "SELECT name FROM records WHERE log = ?1 AND name IN ("
        + (2...(existingBatch + 1)).map { "?\($0)" }.joined(by: ", ") + ")"

    /// Which of `names` are live records in a log: one statement per 200 names, where a lookup each costs a
    /// statement each (a bulk load's request asks about every record it saves).
    package func existing(_ logPath: String, names: [String]) throws(CKError) -> Set<String> {
        let log = try key(logPath)
        return try wrap { () throws(SQLiteConnection.Failure) -> Set<String> in
            var found = Set<String>()
            var start = 0
            while start < names.count {
                let end = min(start + RecordIndex.existingBatch, names.count)
                var values: [any SQLiteBindable] = [log]
                values.reserveCapacity(RecordIndex.existingBatch + 1)
                for n in names[start..<end] { values.append(n) }
                // Unused places are NULL, which matches no name.
                while values.count <= RecordIndex.existingBatch { values.append(String?.none) }
                let s = try db.prepare(RecordIndex.existingSQL)
                try s.bind(values)
                while try s.step() { found.insert(s.text(0)) }
                start = end
            }
            return found
        }
    }

    /// Live records in a log.
    package func count(_ logPath: String) throws(CKError) -> Int {
        let log = try key(logPath)
        return try wrap { () throws(SQLiteConnection.Failure) -> Int in
            let s = try db.prepare("SELECT count(*) FROM records WHERE log = ?1")
            try s.bind([log])
            return try s.step() ? Int(s.int(0)) : 0
        }
    }

    /// Whether a log holds a live record of a type (one indexed row read, however large the zone).
    package func holds(_ logPath: String, recordType: String) throws(CKError) -> Bool {
        let log = try key(logPath)
        return try wrap { () throws(SQLiteConnection.Failure) -> Bool in
            let s = try db.prepare("SELECT 1 FROM records WHERE log = ?1 AND type = ?2 LIMIT 1")
            try s.bind([log, recordType])
            return try s.step()
        }
    }

    /// The highest sequence number seen in any indexed log.
    package func lastSeq() throws(CKError) -> Int64 {
        try wrap { () throws(SQLiteConnection.Failure) -> Int64 in
            let s = try db.prepare("SELECT max(last_seq) FROM logs")
            return try s.step() ? s.int(0) : 0
        }
    }

    /// Forgets every log (a reset deleted them).
    package func clear() throws(CKError) {
        try wrap { () throws(SQLiteConnection.Failure) in
            try db.exec("DELETE FROM pairvals; DELETE FROM pairs; DELETE FROM vals; DELETE FROM toks; DELETE FROM records; DELETE FROM refs; DELETE FROM deletes; DELETE FROM logs;")
            sums = [:]
            idOrder = [:]
        }
    }
}
