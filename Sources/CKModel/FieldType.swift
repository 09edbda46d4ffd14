
/// A field's type: one of CloudKit's primitive types, or a list of one.
public struct FieldType: Hashable, Sendable, CustomStringConvertible {
    public enum Base: String, CaseIterable, Sendable {
        case string, int64, double, timestamp, bytes, reference, asset, location

        /// Web Services `type` string (responses spell assets ASSETID).
        public var wsName: String { self == .asset ? "ASSETID" : schemaName }
        /// The .ckdb schema-language spelling.
        public var schemaName: String {
            // Spelled out: every field of every record read passes through here or `base(schemaOrWS:)`.
            switch self {
            case .string: return "STRING"
            case .int64: return "INT64"
            case .double: return "DOUBLE"
            case .timestamp: return "TIMESTAMP"
            case .bytes: return "BYTES"
            case .reference: return "REFERENCE"
            case .asset: return "ASSET"
            case .location: return "LOCATION"
            }
        }
        /// cktool's `--fields-json` spelling, e.g. `stringType`.
        public var cktoolName: String { rawValue + "Type" }
    }

    public var base: Base
    public var isList: Bool

    public init(_ base: Base, list: Bool = false) { self.base = base; self.isList = list }

    public static let string = FieldType(.string), int64 = FieldType(.int64), double = FieldType(.double),
                      timestamp = FieldType(.timestamp), bytes = FieldType(.bytes), reference = FieldType(.reference),
                      asset = FieldType(.asset), location = FieldType(.location)

    /// Web Services name: `STRING`, `INT64_LIST`, `ASSETID`, …
    public var wsName: String { isList ? base.wsName + "_LIST" : base.wsName }
    /// Schema-language name: `STRING`, `LIST<INT64>`, `ASSET`, …
    public var schemaName: String { isList ? "LIST<\(base.schemaName)>" : base.schemaName }
    /// cktool name: `stringType`, `stringListType`, …
    public var cktoolName: String { isList ? base.rawValue + "ListType" : base.cktoolName }
    /// The command-line spelling: `string`, `int64[]`, …
    public var cliName: String { isList ? base.rawValue + "[]" : base.rawValue }
    public var description: String { schemaName }

    /// Reads any of the spellings above (and `ASSET`, `UNKNOWN_LIST`-free forms), case-sensitively for WS and cktool names.
    public init?(name: String) {
        let n = name
        if n.hasPrefix("LIST<"), n.hasSuffix(">"), let b = FieldType.base(schemaOrWS: String(n.dropFirst(5).dropLast())) {
            self.init(b, list: true); return
        }
        if n.hasSuffix("_LIST"), let b = FieldType.base(schemaOrWS: String(n.dropLast(5))) {
            self.init(b, list: true); return
        }
        if let b = FieldType.base(schemaOrWS: n) { self.init(b); return }
        if n.hasSuffix("ListType"), let b = Base(rawValue: String(n.dropLast(8))) { self.init(b, list: true); return }
        if n.hasSuffix("Type"), let b = Base(rawValue: String(n.dropLast(4))) { self.init(b); return }
        return nil
    }

    /// Reads the command-line spelling (`string`, `int`, `date`, `ref`, `tags:string[]`).
    public init?(cliName: String) {
        var n = cliName.lowercased()
        var list = false
        if n.hasSuffix("[]") { list = true; n.removeLast(2) }
        let aliases: [String: Base] = ["str": .string, "int": .int64, "integer": .int64, "float": .double,
                                       "date": .timestamp, "time": .timestamp, "ref": .reference,
                                       "data": .bytes, "loc": .location, "file": .asset]
        guard let b = Base(rawValue: n) ?? aliases[n] else { return nil }
        self.init(b, list: list)
    }

    /// The command-line prefix of an encrypted type: `secret:encrypted_string=…`.
    public static let encryptedCLIPrefix = "encrypted_"

    package static func base(schemaOrWS n: String) -> Base? {
        switch n {
        case "STRING": return .string
        case "INT64": return .int64
        case "DOUBLE": return .double
        case "TIMESTAMP": return .timestamp
        case "BYTES": return .bytes
        case "REFERENCE": return .reference
        case "ASSETID", "ASSET": return .asset
        case "LOCATION": return .location
        default: return nil
        }
    }
}
