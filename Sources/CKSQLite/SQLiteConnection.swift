import CckSQLite
import Foundation
import CKModel

/// A small SQLite connection: extended result codes, a busy timeout, a cache of prepared statements,
/// statements finalized when released, and errors that name the SQL that failed.
package final class SQLiteConnection {
    private var db: OpaquePointer?
    package let path: String
    /// Prepared statements, and where each SQL text's is: preparing costs more than running for the short
    /// statements ck uses. (An array, so a statement's references can be counted in place.)
    private var statements: [SQLiteStatement] = []
    private var cache: [String: Int] = [:]

    /// An error from SQLite, with its extended result code and the SQL it came from.
    package struct Failure: Error {
        package var code: Int32
        package var message: String
        package var sql: String? = nil
        /// The file is damaged or not a database: the index is then rebuilt.
        package var isCorruption: Bool { code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB }
        /// The message with the statement (whitespace collapsed) that failed.
        package var description: String {
            guard let sql else { return message }
            let flat = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return "\(message) (in: \(flat.count > 300 ? String(flat.prefix(300)) + "…" : flat))"
        }
    }

    /// Opens (creating) the database at `path`. `linksChecked`: the caller has made sure no directory on the
    /// way is a link (`FileIO.refuseLinks`), so SQLite need not lstat each component again.
    package init(path: String, linksChecked: Bool = false) throws(Failure) {
        self.path = path
        var handle: OpaquePointer?
        // Never through a link: the index and device replicas live inside the store.
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
                                 linksChecked ? SQLiteConnection.vfsName : nil)
        db = handle
        guard rc == SQLITE_OK else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            db = nil
            throw Failure(code: rc, message: message)
        }
        sqlite3_extended_result_codes(handle, 1)
        sqlite3_busy_timeout(handle, 10_000)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(db)
    }

    package func failure(_ rc: Int32, sql: String?) -> Failure {
        Failure(code: rc, message: db.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection", sql: sql)
    }

    /// Keeps the -wal and -shm files when the last connection closes (the WAL checkpointed and truncated
    /// to nothing): the next command, a moment later, would otherwise create and size them again.
    package func keepWALFiles() throws(Failure) {
        var on: Int32 = 1
        let rc = sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &on)
        guard rc == SQLITE_OK else { throw failure(rc, sql: nil) }
        try exec("PRAGMA journal_size_limit=0")
    }

    /// Runs SQL that returns no rows (several statements allowed).
    package func exec(_ sql: String) throws(Failure) {
        resetIdle()
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw failure(rc, sql: sql) }
    }

    /// A prepared statement for `sql`, reset and with no bindings: the cached one when nobody else holds it.
    package func prepare(_ sql: String) throws(Failure) -> SQLiteStatement {
        resetIdle()
        // Held elsewhere means a caller may still be stepping through its rows: leave it to them.
        if let i = cache[sql], isKnownUniquelyReferenced(&statements[i]) {
            statements[i].reset()
            return statements[i]
        }
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw failure(rc, sql: sql) }
        let s = SQLiteStatement(stmt, sql: sql)
        if let i = cache[sql] {
            statements[i] = s
        } else {
            cache[sql] = statements.count
            statements.append(s)
        }
        return s
    }

    /// Whether the connection is idle: no transaction open, and every cached statement reset and held by nobody
    /// else (so no read keeps an old snapshot). A connection kept between operations must be.
    package func settle() -> Bool {
        resetIdle()
        guard sqlite3_get_autocommit(db) != 0 else { return false }
        return statements.indices.allSatisfy { !statements[$0].isRunning && isKnownUniquelyReferenced(&statements[$0]) }
    }

    /// Ends the runs of cached statements nobody holds any more. A statement left after its first row keeps
    /// a read transaction open, and with it an old snapshot of the file: the next statement must not see that.
    private func resetIdle() {
        for i in statements.indices where statements[i].isRunning && isKnownUniquelyReferenced(&statements[i]) {
            statements[i].reset()
        }
    }

    /// Runs `body` in a transaction (BEGIN IMMEDIATE: writers queue instead of failing later).
    package func transaction<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        try transaction(mapping: { $0 }, body)
    }

    /// The same for a body that throws its own error type; SQLite's failures are turned into it by `mapping`.
    package func transaction<T, E: Error>(mapping: (Failure) -> E, _ body: () throws(E) -> T) throws(E) -> T {
        do { try prepare("BEGIN IMMEDIATE").run() } catch { throw mapping(error) }
        do throws(E) {
            let v = try body()
            do { try prepare("COMMIT").run() } catch { throw mapping(error) }
            return v
        } catch {
            try? prepare("ROLLBACK").run()
            throw error
        }
    }
}
