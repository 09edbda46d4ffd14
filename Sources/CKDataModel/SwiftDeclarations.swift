import CKModel

/// What the Swift reader takes from one file: classes (with `@Model` ones' stored properties), other type
/// declarations, typealiases and `VersionedSchema` versions. Resolved across files by `SwiftModelResolver`.
package struct SwiftDeclarations: Sendable {
    package enum TypeKind: String, Sendable { case model, classType = "class", structType = "struct", enumType = "enum", protocolType = "protocol", actor }

    /// An attribute such as `@Attribute(.unique)`: its name and the tokens between its parentheses.
    package struct AttributeUse: Sendable {
        package var name: String
        package var location: ModelLocation
        package var arguments: [SwiftToken]
    }

    package struct Property: Sendable {
        package var name: String
        package var location: ModelLocation
        package var typeTokens: [SwiftToken]?
        package var defaultTokens: [SwiftToken]?
        package var attributes: [AttributeUse]
        package var isLet: Bool
    }

    package struct TypeDecl: Sendable {
        package var name: String
        package var qualifiedName: String
        package var kind: TypeKind
        package var location: ModelLocation
        /// Inherited types as written, e.g. `BaseItem`, `SchemaV1.Item`.
        package var inherits: [String]
        /// Stored properties (for `@Model` classes only).
        package var properties: [Property] = []
        package var uniqueMacros: [ModelUniqueConstraint] = []
        /// The enclosing type's qualified name (an enum conforming to VersionedSchema, say).
        package var enclosing: String?
    }

    package struct Alias: Sendable {
        package var name: String
        package var qualifiedName: String
        package var target: [SwiftToken]
    }

    package var file: String
    package var types: [TypeDecl] = []
    package var aliases: [Alias] = []
    /// `static let versionIdentifier = Schema.Version(2, 0, 0)` per enclosing type.
    package var versions: [String: [Int]] = [:]
    package var findings: [ModelFinding] = []
}
