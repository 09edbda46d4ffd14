import CckSQLite
import Foundation
import CKModel

/// A prepared statement; finalized when released.
package final class SQLiteStatement {
    private let stmt: OpaquePointer
    /// The statement's text, for errors.
    package let sql: String

    package init(_ stmt: OpaquePointer, sql: String) {
        self.stmt = stmt
        self.sql = sql
    }

    deinit { sqlite3_finalize(stmt) }

    private func failure(_ rc: Int32) -> SQLiteConnection.Failure {
        SQLiteConnection.Failure(code: rc, message: String(cString: sqlite3_errmsg(sqlite3_db_handle(stmt))), sql: sql)
    }

    /// Stepped but not yet run to its end or reset.
    package var isRunning: Bool { sqlite3_stmt_busy(stmt) != 0 }

    /// Ends any run in progress and clears the bindings.
    package func reset() {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
    }

    /// Binds values to ?1, ?2, … and resets the statement.
    @discardableResult
    package func bind(_ values: [any SQLiteBindable]) throws(SQLiteConnection.Failure) -> SQLiteStatement {
        sqlite3_reset(stmt)
        // Every parameter is bound again below; clearing first (a pass over all of them) matters only when fewer
        // values than parameters are given, which leaves the rest NULL as before.
        if values.count < Int(sqlite3_bind_parameter_count(stmt)) { sqlite3_clear_bindings(stmt) }
        for (i, v) in values.enumerated() {
            let idx = Int32(i + 1)
            let rc: Int32
            switch v.sqliteValue {
            case .null: rc = sqlite3_bind_null(stmt, idx)
            case .int(let x): rc = sqlite3_bind_int64(stmt, idx, x)
            case .double(let x): rc = sqlite3_bind_double(stmt, idx, x)
            case .text(var x):
                // The string's own UTF-8, with its length: SQLite's copy is the only one (passing the String would
                // first make a NUL-terminated copy of it). Cut at a NUL as that C string was; an empty buffer may
                // have no address, which would bind NULL.
                rc = x.withUTF8 { p in
                    guard let base = p.baseAddress, p.count > 0 else { return sqlite3_bind_text(stmt, idx, "", 0, SQLiteStatement.transient) }
                    let length = memchr(base, 0, p.count).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) } ?? p.count
                    let chars = UnsafeRawPointer(base).assumingMemoryBound(to: CChar.self)
                    return sqlite3_bind_text(stmt, idx, chars, Int32(length), SQLiteStatement.transient)
                }
            }
            guard rc == SQLITE_OK else { throw failure(rc) }
        }
        return self
    }

    // SQLITE_TRANSIENT: SQLite copies the bytes before bind returns.
    package static let transient = unsafeBitCast(Int(-1), to: sqlite3_destructor_type.self)

    /// Steps once: true when a row is available.
    package func step() throws(SQLiteConnection.Failure) -> Bool {
        let rc = sqlite3_step(stmt)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        throw failure(rc)
    }

    /// Runs to completion (for statements without rows).
    package func run(_ values: [any SQLiteBindable] = []) throws(SQLiteConnection.Failure) {
        try bind(values)
        while try step() {}
        sqlite3_reset(stmt)
    }

    package func int(_ col: Int32) -> Int64 { sqlite3_column_int64(stmt, col) }
    package func double(_ col: Int32) -> Double { sqlite3_column_double(stmt, col) }
    package func isNull(_ col: Int32) -> Bool { sqlite3_column_type(stmt, col) == SQLITE_NULL }
    package func text(_ col: Int32) -> String {
        guard let p = sqlite3_column_text(stmt, col) else { return "" }
        return String(cString: p)
    }
}
