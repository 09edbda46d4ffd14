internal import CckSQLite
import Foundation

/// A small SQLite connection: extended result codes, a busy timeout, statements finalized when released.
final class SQLiteConnection {
    private var db: OpaquePointer?
    let path: String

    /// An error from SQLite, with its extended result code.
    struct Failure: Error {
        var code: Int32
        var message: String
        /// The file is damaged or not a database: the index is then rebuilt.
        var isCorruption: Bool { code & 0xff == SQLITE_CORRUPT || code & 0xff == SQLITE_NOTADB }
    }

    init(path: String) throws(Failure) {
        self.path = path
        var handle: OpaquePointer?
        // Never through a link: the index and device replicas live inside the store.
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, nil)
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

    deinit { sqlite3_close_v2(db) }

    func failure(_ rc: Int32) -> Failure {
        Failure(code: rc, message: db.map { String(cString: sqlite3_errmsg($0)) } ?? "no connection")
    }

    /// Runs SQL that returns no rows (several statements allowed).
    func exec(_ sql: String) throws(Failure) {
        let rc = sqlite3_exec(db, sql, nil, nil, nil)
        guard rc == SQLITE_OK else { throw failure(rc) }
    }

    func prepare(_ sql: String) throws(Failure) -> SQLiteStatement {
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v2(db, sql, -1, &stmt, nil)
        guard rc == SQLITE_OK, let stmt else { throw failure(rc) }
        return SQLiteStatement(stmt, connection: self)
    }

    /// Runs `body` in a transaction (BEGIN IMMEDIATE: writers queue instead of failing later).
    func transaction<T>(_ body: () throws(Failure) -> T) throws(Failure) -> T {
        try transaction(mapping: { $0 }, body)
    }

    /// The same for a body that throws its own error type; SQLite's failures are turned into it by `mapping`.
    func transaction<T, E: Error>(mapping: (Failure) -> E, _ body: () throws(E) -> T) throws(E) -> T {
        do { try exec("BEGIN IMMEDIATE") } catch { throw mapping(error) }
        do throws(E) {
            let v = try body()
            do { try exec("COMMIT") } catch { throw mapping(error) }
            return v
        } catch {
            try? exec("ROLLBACK")
            throw error
        }
    }
}

/// A prepared statement; finalized when released.
final class SQLiteStatement {
    private let stmt: OpaquePointer
    private let connection: SQLiteConnection

    init(_ stmt: OpaquePointer, connection: SQLiteConnection) {
        self.stmt = stmt
        self.connection = connection
    }

    deinit { sqlite3_finalize(stmt) }

    /// Binds values to ?1, ?2, … (Int64, Double, String, [UInt8] or nil) and resets the statement.
    @discardableResult
    func bind(_ values: [Any?]) throws(SQLiteConnection.Failure) -> SQLiteStatement {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
        for (i, v) in values.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch v {
            case nil: rc = sqlite3_bind_null(stmt, idx)
            case let x as Int64: rc = sqlite3_bind_int64(stmt, idx, x)
            case let x as Int: rc = sqlite3_bind_int64(stmt, idx, Int64(x))
            case let x as Double: rc = sqlite3_bind_double(stmt, idx, x)
            case let x as String: rc = sqlite3_bind_text(stmt, idx, x, -1, SQLiteStatement.transient)
            default: rc = sqlite3_bind_null(stmt, idx)
            }
            guard rc == SQLITE_OK else { throw connection.failure(rc) }
        }
        return self
    }

    // SQLITE_TRANSIENT: SQLite copies the bytes before bind returns.
    static let transient = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)

    /// Steps once: true when a row is available.
    func step() throws(SQLiteConnection.Failure) -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw connection.failure(rc)
    }

    /// Runs to completion (for statements without rows).
    func run(_ values: [Any?] = []) throws(SQLiteConnection.Failure) {
        try bind(values)
        while try step() {}
    }

    func int(_ col: Int32) -> Int64 { sqlite3_column_int64(stmt, col) }
    func double(_ col: Int32) -> Double { sqlite3_column_double(stmt, col) }
    func isNull(_ col: Int32) -> Bool { sqlite3_column_type(stmt, col) == SQLITE_NULL }
    func text(_ col: Int32) -> String {
        guard let p = sqlite3_column_text(stmt, col) else { return "" }
        return String(cString: p)
    }
}
