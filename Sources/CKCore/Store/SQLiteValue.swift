/// A value SQLite stores and statements bind.
enum SQLiteValue: Equatable, Sendable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
}

/// A Swift value a statement can bind: only these types compile as arguments.
protocol SQLiteBindable {
    var sqliteValue: SQLiteValue { get }
}

extension SQLiteValue: SQLiteBindable {
    var sqliteValue: SQLiteValue { self }
}

extension Int64: SQLiteBindable {
    var sqliteValue: SQLiteValue { .int(self) }
}

extension Int: SQLiteBindable {
    var sqliteValue: SQLiteValue { .int(Int64(self)) }
}

extension Double: SQLiteBindable {
    var sqliteValue: SQLiteValue { .double(self) }
}

extension String: SQLiteBindable {
    var sqliteValue: SQLiteValue { .text(self) }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}
