import CKModel

/// A SwiftData or Core Data model as read from source files: entities, their attributes and relationships.
public struct DataModel: Sendable {
    /// Entities in the order they were read.
    public var entities: [ModelEntity] = []
    /// What the readers met: unparseable files, constructs they can't resolve.
    public var findings: [ModelFinding] = []
    /// Core Data entities in a configuration marked "Used with CloudKit"; nil when no model marks one.
    public var cloudKitConfigurationEntities: Set<String>?
    /// The files read, as given.
    public var files: [String] = []

    public init() {}

    /// The entity with this name.
    public func entity(_ name: String) -> ModelEntity? { entities.first { $0.name == name } }

    /// The root of an entity's inheritance tree: its record type is the root's.
    public func root(of name: String) -> String {
        var current = name
        var seen: Set<String> = [name]
        while let parent = entity(current)?.parent, entity(parent) != nil, !seen.contains(parent) {
            seen.insert(parent)
            current = parent
        }
        return current
    }
}

/// Where a construct is: the path as given, 1-based line and column.
public struct ModelLocation: Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var column: Int

    public init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    public var description: String { "\(file):\(line):\(column)" }
}

/// Which reader an entity came from; some rules differ (a missing inverse is fatal only for Core Data).
public enum ModelSourceKind: String, Sendable {
    case swiftData, coreData
}

/// An entity: a `@Model` class or a Core Data `<entity>`.
public struct ModelEntity: Sendable {
    public var name: String
    /// `SchemaV2.Item` for a class nested in an enum; the name otherwise.
    public var qualifiedName: String
    public var location: ModelLocation
    public var source: ModelSourceKind
    /// The parent entity (class inheritance, `parentEntity`).
    public var parent: String?
    public var attributes: [ModelAttribute] = []
    public var relationships: [ModelRelationship] = []
    /// `#Unique` macros and `<uniquenessConstraint>` elements.
    public var uniqueConstraints: [ModelUniqueConstraint] = []

    public init(name: String, qualifiedName: String, location: ModelLocation, source: ModelSourceKind, parent: String? = nil) {
        self.name = name
        self.qualifiedName = qualifiedName
        self.location = location
        self.source = source
        self.parent = parent
    }
}

/// The storage kinds a model attribute can have, as Core Data names them.
public enum ModelAttributeKind: String, Sendable, CaseIterable {
    case integer16, integer32, integer64, boolean, double, float, decimal, date, string, uuid, uri, binary
    case transformable
    /// Values SwiftData encodes to data: enums, collections, Codable structs (composite attributes).
    case encoded
    case undefined, objectID

    /// CloudKit field type of the mirrored value (reference §3); nil for kinds CloudKit can't take.
    package var fieldBase: FieldType.Base? {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: return .int64
        case .double, .float, .decimal: return .double
        case .date: return .timestamp
        case .string, .uuid, .uri: return .string
        case .binary, .transformable, .encoded: return .bytes
        case .undefined, .objectID: return nil
        }
    }

    /// Variable-length kinds get a `CD_<attr>_ckAsset` companion from initializeCloudKitSchema (Apple's list:
    /// String, Binary Data, Transformable; SwiftData's encoded values seen with one in real exports).
    package var hasAssetCompanion: Bool {
        switch self {
        case .string, .binary, .transformable, .encoded: return true
        default: return false
        }
    }
}

/// A stored attribute.
public struct ModelAttribute: Sendable {
    public var name: String
    public var location: ModelLocation
    public var kind: ModelAttributeKind
    /// The type as written (`String?`, `Integer 64`), for messages.
    public var typeText: String
    public var isOptional: Bool
    public var hasDefault: Bool
    /// Where `.unique` was given, if it was.
    public var uniqueLocation: ModelLocation?
    public var isEncrypted = false
    /// `.transformable(by:)` or `valueTransformerName`.
    public var transformerName: String?
    /// Core Data's maximum length of a String or Binary Data value.
    public var maxLength: Int?

    public init(name: String, location: ModelLocation, kind: ModelAttributeKind, typeText: String, isOptional: Bool, hasDefault: Bool) {
        self.name = name
        self.location = location
        self.kind = kind
        self.typeText = typeText
        self.isOptional = isOptional
        self.hasDefault = hasDefault
    }
}

/// A relationship to another entity.
public struct ModelRelationship: Sendable {
    public var name: String
    public var location: ModelLocation
    public var destination: String
    public var isToMany: Bool
    public var isOptional: Bool
    /// The type as written (`[Item]`, `Person?`), for fixes.
    public var typeText: String
    /// The inverse's name, when the declaration names it.
    public var inverse: String?
    /// Delete rule as written (`deny`, `Nullify`, …).
    public var deleteRule: String?
    public var deleteRuleLocation: ModelLocation?
    public var isOrdered = false

    public init(name: String, location: ModelLocation, destination: String, isToMany: Bool, isOptional: Bool, typeText: String) {
        self.name = name
        self.location = location
        self.destination = destination
        self.isToMany = isToMany
        self.isOptional = isOptional
        self.typeText = typeText
    }
}

/// A uniqueness constraint on an entity.
public struct ModelUniqueConstraint: Sendable {
    public var location: ModelLocation
    /// What it constrains, as written.
    public var text: String
}
