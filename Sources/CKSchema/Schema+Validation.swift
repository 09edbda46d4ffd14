import CKModel

extension Schema {
    /// Checks rules a .ckdb file can break beyond its syntax: indexes a field's type can carry.
    public func validateIndexes(file: String) throws(CKError) {
        var problems: [CKError.ItemFailure] = []
        for type in recordTypes.keys.sorted() {
            guard let t = recordTypes[type] else { continue }
            for name in t.fields.keys.sorted() {
                guard let f = t.fields[name] else { continue }
                let id = "\(type).\(name)"
                if f.type.base == .asset && (f.queryable || f.sortable || f.searchable) {
                    problems.append(.init(id: id, error: CKError.invalid("ASSET fields can't be indexed")))
                }
                if f.searchable && f.type.base != .string {
                    problems.append(.init(id: id, error: CKError.invalid("only STRING fields can be SEARCHABLE, not \(f.schemaTypeName)")))
                }
                if f.encrypted && (f.queryable || f.sortable || f.searchable) {
                    problems.append(.init(id: id, error: CKError.invalid("ENCRYPTED fields can't be indexed: the server can't read them")))
                }
            }
        }
        if !problems.isEmpty {
            throw CKError(.invalidArguments, "\(file): \(problems.count == 1 ? "1 field carries" : "\(problems.count) fields carry") indexes their type can't have",
                          items: problems)
        }
    }

    /// The changes that turning `self` (production) into `target` would make and that CloudKit refuses:
    /// removing or retyping what production has.
    public func dataLossConflicts(to target: Schema) -> [SchemaChange] {
        changes(to: target).filter(\.losesData)
    }
}

extension SchemaChange {
    /// A refusal naming what production has, for error listings.
    package var conflictFailure: CKError.ItemFailure {
        switch self {
        case .removeType(let t):
            return .init(id: t, error: CKError.invalid("record type '\(t)' exists in production and can't be removed"))
        case .removeField(let t, let f, let s):
            return .init(id: "\(t).\(f)", error: CKError.invalid("field '\(f)' (\(s.schemaTypeName)) exists in production and can't be removed"))
        case .retypeField(let t, let f, let a, let b):
            return .init(id: "\(t).\(f)", error: CKError.invalid("field '\(f)' is \(a.schemaTypeName) in production and can't become \(b.schemaTypeName)"))
        default:
            return .init(id: summary, error: CKError.invalid(summary))
        }
    }
}
