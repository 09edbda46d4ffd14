import Foundation
import CKModel

/// Index flags and type of one field of a record type, as the schema language declares it.
public struct FieldSchema: Equatable, Sendable {
    /// The value type; for NUMBER, INT64 when PREFERRED AS INT64, else DOUBLE.
    public var type: FieldType
    /// Declared NUMBER (added implicitly by old sandbox writes): takes INT64 or DOUBLE values.
    public var isNumber = false
    /// NUMBER's PREFERRED AS type, if given.
    public var preferred: FieldType.Base?
    public var encrypted = false
    public var queryable = false
    public var sortable = false
    public var searchable = false

    public init(type: FieldType, queryable: Bool = false, sortable: Bool = false, searchable: Bool = false,
                encrypted: Bool = false, isNumber: Bool = false, preferred: FieldType.Base? = nil) {
        self.type = type
        self.queryable = queryable
        self.sortable = sortable
        self.searchable = searchable
        self.encrypted = encrypted
        self.isNumber = isNumber
        self.preferred = preferred
    }

    /// The type as the schema language writes it: `STRING`, `ENCRYPTED BYTES`, `NUMBER PREFERRED AS INT64`, `LIST<…>`.
    public var schemaTypeName: String {
        var primitive: String
        if isNumber {
            primitive = "NUMBER" + (preferred.map { " PREFERRED AS " + $0.schemaName } ?? "")
        } else {
            primitive = type.base.schemaName
        }
        if encrypted { primitive = "ENCRYPTED " + primitive }
        return type.isList ? "LIST<\(primitive)>" : primitive
    }

    /// Reads a schema-language type name (the inverse of `schemaTypeName`); nil when it is not one.
    public init?(schemaTypeName name: String) {
        var n = name.trimmingBlanks
        var list = false
        if n.hasPrefix("LIST<") && n.hasSuffix(">") {
            list = true
            n = String(n.dropFirst(5).dropLast()).trimmingBlanks
        }
        var encrypted = false
        if n.hasPrefix("ENCRYPTED ") {
            encrypted = true
            n = String(n.dropFirst(10)).trimmingBlanks
        }
        if n == "NUMBER" || n.hasPrefix("NUMBER ") {
            var preferred: FieldType.Base? = nil
            let rest = n.dropFirst(6).split(separator: " ")
            if !rest.isEmpty {
                guard rest.count == 3, rest[0] == "PREFERRED", rest[1] == "AS" else { return nil }
                switch rest[2] {
                case "INT64": preferred = .int64
                case "DOUBLE": preferred = .double
                default: return nil
                }
            }
            self.init(type: FieldType(preferred ?? .double, list: list), encrypted: encrypted, isNumber: true, preferred: preferred)
        } else {
            guard let b = FieldType.base(schemaOrWS: n), n != "ASSETID" else { return nil }
            self.init(type: FieldType(b, list: list), encrypted: encrypted)
        }
        if encrypted && ![.bytes, .string, .double, .int64, .location, .timestamp].contains(type.base) { return nil }
        if encrypted && isNumber { return nil }
    }

    /// Whether a value of type `t` may be stored in this field.
    public func accepts(_ t: FieldType) -> Bool {
        if isNumber { return t.isList == type.isList && (t.base == .int64 || t.base == .double) }
        return t == type
    }
}

/// A GRANT line: permissions given to a role on a record type.
public struct Grant: Equatable, Sendable {
    public enum Permission: String, Sendable, CaseIterable { case read = "READ", create = "CREATE", write = "WRITE" }
    public var role: String
    public var permissions: [Permission]

    public init(role: String, permissions: [Permission]) { self.role = role; self.permissions = permissions }
}

/// A record type: its fields (user and indexed system fields) and grants.
public struct RecordTypeSchema: Equatable, Sendable {
    public var name: String
    public var fields: [String: FieldSchema]
    public var grants: [Grant]

    public init(name: String, fields: [String: FieldSchema] = [:], grants: [Grant] = []) {
        self.name = name
        self.fields = fields
        self.grants = grants
    }

    /// The grants CloudKit gives a new type: WRITE to the creator, CREATE to iCloud users, READ to the world.
    public static let defaultGrants: [Grant] = [
        Grant(role: "_creator", permissions: [.write]),
        Grant(role: "_icloud", permissions: [.create]),
        Grant(role: "_world", permissions: [.read]),
    ]

    /// The six implicit system fields and their types.
    public static let systemFields: [String: FieldType] = [
        "___createTime": .timestamp, "___createdBy": .reference, "___etag": .string,
        "___modTime": .timestamp, "___modifiedBy": .reference, "___recordID": .reference,
    ]
}

/// One environment's schema: roles and record types.
public struct Schema: Equatable, Sendable {
    public var roles: [String]
    public var recordTypes: [String: RecordTypeSchema]

    public init(roles: [String] = [], recordTypes: [String: RecordTypeSchema] = [:]) {
        self.roles = roles
        self.recordTypes = recordTypes
    }
}

extension Schema {
    package var json: JSON {
        var types: [String: JSON] = [:]
        for (name, t) in recordTypes {
            var fields: [String: JSON] = [:]
            for (fname, f) in t.fields {
                var o: [String: JSON] = ["type": .string(f.schemaTypeName)]
                if f.queryable { o["queryable"] = .bool(true) }
                if f.sortable { o["sortable"] = .bool(true) }
                if f.searchable { o["searchable"] = .bool(true) }
                fields[fname] = .object(o)
            }
            types[name] = .object([
                "fields": .object(fields),
                "grants": .array(t.grants.map { .object(["role": .string($0.role), "permissions": .array($0.permissions.map { .string($0.rawValue) })]) }),
            ])
        }
        return .object(["format": .int(1), "roles": .array(roles.map { .string($0) }), "recordTypes": .object(types)])
    }

    package init(json: [String: JSON], path: String) throws(CKError) {
        func bad(_ where_: String, _ why: String) -> CKError { CKError.corrupt(path: path, "\(where_): \(why)") }
        var schema = Schema()
        if let r = json["roles"] {
            guard let roles = r.arrayValue?.compactMap(\.stringValue), roles.count == r.arrayValue?.count else {
                throw bad("roles", "expected an array of strings")
            }
            schema.roles = roles
        }
        if let t = json["recordTypes"] {
            guard case .object(let types) = t else { throw bad("recordTypes", "expected an object") }
            for (name, tj) in types {
                var rt = RecordTypeSchema(name: name)
                guard case .object(let fields) = tj["fields"] ?? .object([:]) else { throw bad("recordTypes.\(name).fields", "expected an object") }
                for (fname, fj) in fields {
                    guard let tn = fj["type"]?.stringValue, var f = FieldSchema(schemaTypeName: tn) else {
                        throw bad("recordTypes.\(name).fields.\(fname).type", "expected a schema type such as STRING, LIST<INT64> or NUMBER PREFERRED AS DOUBLE")
                    }
                    f.queryable = fj["queryable"]?.boolValue ?? false
                    f.sortable = fj["sortable"]?.boolValue ?? false
                    f.searchable = fj["searchable"]?.boolValue ?? false
                    rt.fields[fname] = f
                }
                for (i, g) in (tj["grants"]?.arrayValue ?? []).enumerated() {
                    guard let role = g["role"]?.stringValue, let perms = g["permissions"]?.arrayValue else {
                        throw bad("recordTypes.\(name).grants[\(i)]", "expected {\"role\", \"permissions\"}")
                    }
                    var ps: [Grant.Permission] = []
                    for p in perms {
                        guard let perm = p.stringValue.flatMap(Grant.Permission.init(rawValue:)) else {
                            throw bad("recordTypes.\(name).grants[\(i)]", "permissions are READ, CREATE or WRITE")
                        }
                        ps.append(perm)
                    }
                    rt.grants.append(Grant(role: role, permissions: ps))
                }
                schema.recordTypes[name] = rt
            }
        }
        self = schema
    }
}
