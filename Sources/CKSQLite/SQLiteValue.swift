import CKModel

/// A value SQLite stores and statements bind.
package enum SQLiteValue: Equatable, Sendable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
}

/// A Swift value a statement can bind: only these types compile as arguments.
package protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
}

extension SQLiteValue: SQLiteBindable {
    package var sqliteValue: SQLiteValue { self }
}

extension Int64: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .int(self) }
}

extension Int: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .int(Int64(self)) }
}

extension Double: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .double(self) }
}

extension String: SQLiteBindable {
    package var sqliteValue: SQLiteValue { .text(self) }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    package var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
