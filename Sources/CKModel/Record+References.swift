extension Record {
    /// True when one of this record's references with `action` points at `target`.
    package func refers(to target: String, action: Reference.Action) -> Bool {
        func refers(_ v: FieldValue) -> Bool {
            switch v {
            case .reference(let r): return r.action == action && r.recordName == target
            case .list(_, let items): return items.contains(where: refers)
            default: return false
            }
        }
        return fields.values.contains(where: refers)
    }

    /// True when one of this record's VALIDATE references points at `target`.
    package func validates(_ target: String) -> Bool { refers(to: target, action: .validate) }
}
