/// What the Swift reader takes from one file: classes (with `@Model` ones' stored properties), other type
/// declarations, typealiases and `VersionedSchema` versions. Resolved across files by `SwiftModelResolver`.
struct SwiftDeclarations: Sendable {
    enum TypeKind: String, Sendable { case model, classType = "class", structType = "struct", enumType = "enum", protocolType = "protocol", actor }

    /// An attribute such as `@Attribute(.unique)`: its name and the tokens between its parentheses.
    struct AttributeUse: Sendable {
        var name: String
        var location: ModelLocation
        var arguments: [SwiftToken]
    }

    struct Property: Sendable {
        var name: String
        var location: ModelLocation
        var typeTokens: [SwiftToken]?
        var defaultTokens: [SwiftToken]?
        var attributes: [AttributeUse]
        var isLet: Bool
    }

    struct TypeDecl: Sendable {
        var name: String
        var qualifiedName: String
        var kind: TypeKind
        var location: ModelLocation
        /// Inherited types as written, e.g. `BaseItem`, `SchemaV1.Item`.
        var inherits: [String]
        /// Stored properties (for `@Model` classes only).
        var properties: [Property] = []
        var uniqueMacros: [ModelUniqueConstraint] = []
        /// The enclosing type's qualified name (an enum conforming to VersionedSchema, say).
        var enclosing: String?
    }

    struct Alias: Sendable {
        var name: String
        var qualifiedName: String
        var target: [SwiftToken]
    }

    var file: String
    var types: [TypeDecl] = []
    var aliases: [Alias] = []
    /// `static let versionIdentifier = Schema.Version(2, 0, 0)` per enclosing type.
    var versions: [String: [Int]] = [:]
    var findings: [ModelFinding] = []
}
