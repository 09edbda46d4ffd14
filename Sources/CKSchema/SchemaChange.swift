import CKModel

/// One difference between two schemas, as deploy or import would apply it.
public enum SchemaChange: Equatable, Sendable {
    case addRole(String)
    case removeRole(String)
    case addType(String)
    case removeType(String)
    case addField(type: String, field: String, FieldSchema)
    case removeField(type: String, field: String, FieldSchema)
    case retypeField(type: String, field: String, from: FieldSchema, to: FieldSchema)
    case changeIndexes(type: String, field: String, from: FieldSchema, to: FieldSchema)
    case changeGrants(type: String, from: [Grant], to: [Grant])

    /// True for changes that would lose data or break clients if applied to production.
    public var losesData: Bool {
        switch self {
        case .removeType, .removeField, .retypeField: return true
        default: return false
        }
    }

    /// A one-line description: `+ field Note.title STRING QUERYABLE`.
    public var summary: String {
        switch self {
        case .addRole(let r): return "+ role \(r)"
        case .removeRole(let r): return "- role \(r)"
        case .addType(let t): return "+ record type \(t)"
        case .removeType(let t): return "- record type \(t)"
        case .addField(let t, let f, let s): return "+ field \(t).\(f) \(SchemaChange.describe(s))"
        case .removeField(let t, let f, let s): return "- field \(t).\(f) \(SchemaChange.describe(s))"
        case .retypeField(let t, let f, let a, let b): return "! field \(t).\(f) type \(a.schemaTypeName) -> \(b.schemaTypeName)"
        case .changeIndexes(let t, let f, let a, let b):
            return "~ indexes \(t).\(f): \(SchemaChange.indexes(a)) -> \(SchemaChange.indexes(b))"
        case .changeGrants(let t, let a, let b):
            return "~ grants \(t): \(SchemaChange.grants(a)) -> \(SchemaChange.grants(b))"
        }
    }

    /// The change as JSON for `-o json`.
    public var json: JSON {
        func o(_ kind: String, _ extra: [String: JSON]) -> JSON { .object(extra.merging(["kind": .string(kind)]) { a, _ in a }) }
        switch self {
        case .addRole(let r): return o("addRole", ["role": .string(r)])
        case .removeRole(let r): return o("removeRole", ["role": .string(r)])
        case .addType(let t): return o("addRecordType", ["recordType": .string(t)])
        case .removeType(let t): return o("removeRecordType", ["recordType": .string(t)])
        case .addField(let t, let f, let s): return o("addField", ["recordType": .string(t), "field": .string(f), "type": .string(s.schemaTypeName), "indexes": .string(SchemaChange.indexes(s))])
        case .removeField(let t, let f, let s): return o("removeField", ["recordType": .string(t), "field": .string(f), "type": .string(s.schemaTypeName)])
        case .retypeField(let t, let f, let a, let b): return o("retypeField", ["recordType": .string(t), "field": .string(f), "from": .string(a.schemaTypeName), "to": .string(b.schemaTypeName)])
        case .changeIndexes(let t, let f, let a, let b): return o("changeIndexes", ["recordType": .string(t), "field": .string(f), "from": .string(SchemaChange.indexes(a)), "to": .string(SchemaChange.indexes(b))])
        case .changeGrants(let t, let a, let b): return o("changeGrants", ["recordType": .string(t), "from": .string(SchemaChange.grants(a)), "to": .string(SchemaChange.grants(b))])
        }
    }

    package static func indexes(_ f: FieldSchema) -> String {
        let names = [f.queryable ? "QUERYABLE" : nil, f.searchable ? "SEARCHABLE" : nil, f.sortable ? "SORTABLE" : nil].compactMap { $0 }
        return names.isEmpty ? "(none)" : names.joined(separator: " ")
    }

    package static func describe(_ f: FieldSchema) -> String {
        let i = indexes(f)
        return f.schemaTypeName + (i == "(none)" ? "" : " " + i)
    }

    package static func grants(_ gs: [Grant]) -> String {
        gs.isEmpty ? "(none)" : gs.map { "\($0.permissions.map(\.rawValue).joined(separator: ",")) to \($0.role)" }.joined(separator: "; ")
    }
}

extension FieldSchema {
    /// Same type, ignoring indexes.
    package func sameType(as other: FieldSchema) -> Bool {
        type == other.type && isNumber == other.isNumber && preferred == other.preferred && encrypted == other.encrypted
    }

    /// Same indexes, ignoring type.
    package func sameIndexes(as other: FieldSchema) -> Bool {
        queryable == other.queryable && sortable == other.sortable && searchable == other.searchable
    }
}

extension RecordTypeSchema {
    /// Grants in a canonical order (built-in roles first, permissions READ, CREATE, WRITE), one per role.
    public var normalizedGrants: [Grant] { CKDB.canonicalGrants(grants) }
}

extension Schema {
    /// The system type every container has.
    public static let defaultUsersType = RecordTypeSchema(
        name: "Users", fields: ["roles": FieldSchema(type: FieldType(.int64, list: true))],
        grants: [Grant(role: "_creator", permissions: [.write]), Grant(role: "_world", permissions: [.read])])

    /// Record types including the implicit `Users` type.
    package var typesWithUsers: [String: RecordTypeSchema] {
        var t = recordTypes
        if t["Users"] == nil { t["Users"] = Schema.defaultUsersType }
        return t
    }

    /// What must change to turn `self` into `target`, in a stable order.
    public func changes(to target: Schema) -> [SchemaChange] {
        var out: [SchemaChange] = []
        for r in target.roles where !roles.contains(r) { out.append(.addRole(r)) }
        for r in roles where !target.roles.contains(r) { out.append(.removeRole(r)) }
        let mine = typesWithUsers, theirs = target.typesWithUsers
        let names = Set(mine.keys).union(theirs.keys).sorted(by: CKDB.byteOrder)
        for name in names {
            switch (mine[name], theirs[name]) {
            case (nil, let t?):
                out.append(.addType(name))
                for f in t.fields.keys.sorted() { if let fs = t.fields[f] { out.append(.addField(type: name, field: f, fs)) } }
                if !t.grants.isEmpty { out.append(.changeGrants(type: name, from: [], to: t.normalizedGrants)) }
            case (let a?, nil):
                out.append(.removeType(name))
                _ = a
            case (let a?, let b?):
                let fields = Set(a.fields.keys).union(b.fields.keys).sorted()
                for f in fields {
                    let isSystem = RecordTypeSchema.systemFields[f] != nil
                    switch (a.fields[f], b.fields[f]) {
                    case (nil, let fb?):
                        if isSystem {
                            out.append(.changeIndexes(type: name, field: f, from: FieldSchema(type: fb.type), to: fb))
                        } else {
                            out.append(.addField(type: name, field: f, fb))
                        }
                    case (let fa?, nil):
                        if isSystem {
                            out.append(.changeIndexes(type: name, field: f, from: fa, to: FieldSchema(type: fa.type)))
                        } else {
                            out.append(.removeField(type: name, field: f, fa))
                        }
                    case (let fa?, let fb?):
                        if !fa.sameType(as: fb) {
                            out.append(.retypeField(type: name, field: f, from: fa, to: fb))
                        } else if !fa.sameIndexes(as: fb) {
                            out.append(.changeIndexes(type: name, field: f, from: fa, to: fb))
                        }
                    case (nil, nil): break
                    }
                }
                if a.normalizedGrants != b.normalizedGrants {
                    out.append(.changeGrants(type: name, from: a.normalizedGrants, to: b.normalizedGrants))
                }
            case (nil, nil): break
            }
        }
        return out
    }
}
