import Foundation

/// A value of the iCloud key-value store: a property-list type, as NSUbiquitousKeyValueStore takes.
public indirect enum KVValue: Equatable, Sendable {
    case string(String)
    case integer(Int64)
    case double(Double)
    case bool(Bool)
    /// Milliseconds since 1970-01-01T00:00:00Z.
    case date(Int64)
    case data([UInt8])
    case array([KVValue])
    case dictionary([String: KVValue])

    /// The type names ck uses (and `--type` takes), in the order `ck help kv` lists them.
    public static let typeNames = ["string", "integer", "double", "bool", "date", "data", "array", "dictionary"]

    /// The value's type name: `string`, `integer`, `double`, `bool`, `date`, `data`, `array` or `dictionary`.
    public var typeName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .double: return "double"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dictionary"
        }
    }

    /// Bytes the value counts against the store's limits: UTF-8 bytes of strings (and of dictionary keys), the
    /// bytes of data, 8 for a number or date, 1 for a bool; an array or dictionary is the sum of its members.
    public var size: Int {
        switch self {
        case .string(let s): return s.utf8.count
        case .integer, .double, .date: return 8
        case .bool: return 1
        case .data(let d): return d.count
        case .array(let a): return a.reduce(0) { $0 + $1.size }
        case .dictionary(let d): return d.reduce(0) { $0 + $1.key.utf8.count + $1.value.size }
        }
    }

    /// Levels of arrays and dictionaries: 0 for a scalar, 1 for a flat array.
    public var depth: Int {
        switch self {
        case .array(let a): return 1 + (a.map(\.depth).max() ?? 0)
        case .dictionary(let d): return 1 + (d.values.map(\.depth).max() ?? 0)
        default: return 0
        }
    }

    /// Short text for people and tab-separated output: scalars as they read, arrays and dictionaries as the
    /// JSON `--json` takes.
    public var text: String {
        switch self {
        case .string(let s): return s
        case .integer(let i): return String(i)
        case .double(let d): return JSON.format(double: d)
        case .bool(let b): return b ? "true" : "false"
        case .date(let ms): return ISO8601.format(milliseconds: ms)
        case .data(let d): return Data(d).base64EncodedString()
        case .array, .dictionary: return plainJSON.serialized()
        }
    }
}
