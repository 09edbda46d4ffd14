/// Index flags and type of one field of a record type.
public struct FieldSchema: Equatable, Sendable {
    public var type: FieldType
    public var queryable = false
    public var sortable = false
    public var searchable = false
    public var encrypted = false

    public init(type: FieldType, queryable: Bool = false, sortable: Bool = false, searchable: Bool = false, encrypted: Bool = false) {
        self.type = type
        self.queryable = queryable
        self.sortable = sortable
        self.searchable = searchable
        self.encrypted = encrypted
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
    var json: JSON {
        var types: [String: JSON] = [:]
        for (name, t) in recordTypes {
            var fields: [String: JSON] = [:]
            for (fname, f) in t.fields {
                var o: [String: JSON] = ["type": .string(f.type.schemaName)]
                if f.queryable { o["queryable"] = .bool(true) }
                if f.sortable { o["sortable"] = .bool(true) }
                if f.searchable { o["searchable"] = .bool(true) }
                if f.encrypted { o["encrypted"] = .bool(true) }
                fields[fname] = .object(o)
            }
            types[name] = .object([
                "fields": .object(fields),
                "grants": .array(t.grants.map { .object(["role": .string($0.role), "permissions": .array($0.permissions.map { .string($0.rawValue) })]) }),
            ])
        }
        return .object(["format": .int(1), "roles": .array(roles.map { .string($0) }), "recordTypes": .object(types)])
    }

    init(json: [String: JSON], path: String) throws(CKError) {
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
                    guard let tn = fj["type"]?.stringValue, let ft = FieldType(name: tn) else {
                        throw bad("recordTypes.\(name).fields.\(fname).type", "expected a schema type such as STRING or LIST<INT64>")
                    }
                    rt.fields[fname] = FieldSchema(type: ft, queryable: fj["queryable"]?.boolValue ?? false,
                                                   sortable: fj["sortable"]?.boolValue ?? false,
                                                   searchable: fj["searchable"]?.boolValue ?? false,
                                                   encrypted: fj["encrypted"]?.boolValue ?? false)
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
