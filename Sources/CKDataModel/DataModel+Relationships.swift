import CKModel

extension DataModel {
    /// The relationship on the other side of `r` (declared in `entity`), as CloudKit mirroring pairs them:
    /// the inverse a side names; for SwiftData also the one relationship back when each side has exactly one
    /// to the other (SwiftData infers that pair). Nil when there is none.
    public func inverse(of r: ModelRelationship, in entity: ModelEntity) -> ModelRelationship? {
        guard let dest = self.entity(r.destination) else { return nil }
        if let name = r.inverse { return dest.relationships.first { $0.name == name } }
        let lineage = ancestry(entity.name)
        let named = dest.relationships.filter { lineage.contains($0.destination) && $0.inverse == r.name }
        if named.count == 1 { return named[0] }
        guard entity.source == .swiftData else { return nil }
        let back = dest.relationships.filter { $0.destination == entity.name && $0.inverse == nil && !(dest.name == entity.name && $0.name == r.name) }
        let forward = entity.relationships.filter { $0.destination == dest.name && $0.inverse == nil && !(dest.name == entity.name && back.first?.name == $0.name) }
        return back.count == 1 && forward.count == 1 ? back[0] : nil
    }

    /// The entity and its ancestors.
    package func ancestry(_ name: String) -> Set<String> {
        var out: Set<String> = [name]
        var current = name
        while let p = entity(current)?.parent, !out.contains(p) { out.insert(p); current = p }
        return out
    }
}
