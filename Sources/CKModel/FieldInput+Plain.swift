extension FieldInput {
    /// The value of an input typed as it was read that nothing outside it can change or refuse: no reference or
    /// asset in it (those are checked against other records and staged files), not an empty list (typed by the
    /// schema's declared list). Nil for any other input. A bulk load's check and save take such values as they are.
    package var plainValue: FieldValue? {
        guard case .value(let v) = self, !v.holdsReferenceOrAsset else { return nil }
        if case .list(_, let items) = v, items.isEmpty { return nil }
        return v
    }
}
