import CKSchema

/// What a model's schema changes against an exported or production schema, sorted by what CloudKit allows:
/// production is additive only, so retyped fields are conflicts and removed ones stay.
public struct ModelSchemaDiff: Sendable {
    /// Record types and fields the model would add.
    public var additions: [SchemaChange] = []
    /// Fields the other schema has with another type: CloudKit can't retype them.
    public var conflicts: [SchemaChange] = []
    /// Record types and fields the other schema has and the model no longer writes: they stay.
    public var kept: [SchemaChange] = []
    /// Index and grant differences (development's defaults against what the other schema has).
    public var other: [SchemaChange] = []

    /// Compares `model` (generated) with `target` (an export, or production).
    public init(model: Schema, against target: Schema) {
        for c in target.changes(to: model) {
            switch c {
            case .addType, .addField, .addRole: additions.append(c)
            case .retypeField: conflicts.append(c)
            case .removeType, .removeField, .removeRole: kept.append(c)
            case .changeIndexes(let type, _, _, _), .changeGrants(let type, _, _):
                // Users is CloudKit's own type; the model says nothing about it.
                if type != "Users" { other.append(c) }
            }
        }
    }

    /// All differences in the order they print: additions, conflicts, kept, other.
    public var all: [SchemaChange] { additions + conflicts + kept + other }
}
