import Foundation
import CKModel

/// Turns the declarations of every Swift file read into entities: picks one class per model name (the current
/// `VersionedSchema`), resolves property types through typealiases and the types the files declare, and
/// reports what it can't resolve instead of guessing.
package struct SwiftModelResolver {
    private var models: [String: SwiftDeclarations.TypeDecl] = [:]
    private var valueTypes: [String: SwiftDeclarations.TypeKind] = [:]
    private var aliases: [String: [SwiftToken]] = [:]
    package private(set) var findings: [ModelFinding] = []

    package static let builtins: [String: ModelAttributeKind] = [
        "Int": .integer64, "Int64": .integer64, "UInt": .integer64, "UInt64": .integer64, "UInt32": .integer64,
        "Int32": .integer32, "UInt16": .integer32, "Int16": .integer16, "Int8": .integer16, "UInt8": .integer16,
        "Bool": .boolean, "Double": .double, "Float64": .double, "CGFloat": .double, "Float": .float, "Float32": .float,
        "Decimal": .decimal, "Date": .date, "String": .string, "UUID": .uuid, "URL": .uri, "Data": .binary,
    ]

    /// What a type name denotes.
    package enum Resolved: Equatable {
        case model(String)
        case attribute(ModelAttributeKind)
        /// A name the files don't declare (or a class that isn't a model), named for the warning.
        case unresolved(String)
    }

    package init(_ files: [SwiftDeclarations]) {
        var byName: [String: [(SwiftDeclarations.TypeDecl, SwiftDeclarations)]] = [:]
        for f in files {
            for a in f.aliases { aliases[a.name] = a.target }
            for t in f.types {
                if t.kind == .model { byName[t.name, default: []].append((t, f)) } else { valueTypes[t.name] = t.kind }
            }
        }
        let versions = files.reduce(into: [String: [Int]]()) { $0.merge($1.versions) { a, _ in a } }
        for (name, candidates) in byName {
            guard let last = candidates.last?.0 else { continue }
            if candidates.count == 1 { models[name] = last; continue }
            models[name] = choose(name, candidates.map(\.0), versions: versions)
        }
    }

    /// One class per entity name: the one a same-named typealias points to, else the highest
    /// `versionIdentifier`, else the last read (with a warning).
    private mutating func choose(_ name: String, _ candidates: [SwiftDeclarations.TypeDecl], versions: [String: [Int]]) -> SwiftDeclarations.TypeDecl {
        if let target = aliases[name] {
            let path = target.compactMap(\.identifier).joined(separator: ".")
            if let hit = candidates.first(where: { $0.qualifiedName == path || path.hasSuffix("." + $0.qualifiedName) }) { return hit }
        }
        let versioned = candidates.compactMap { c in c.enclosing.flatMap { versions[$0] }.map { (c, $0) } }
        if versioned.count == candidates.count, let best = versioned.max(by: { $0.1.lexicographicallyPrecedes($1.1) }),
           versioned.filter({ $0.1 == best.1 }).count == 1 {
            return best.0
        }
        let chosen = candidates[candidates.count - 1]
        findings.append(ModelFinding(.warning, "duplicate-model", at: chosen.location, subject: name,
            summary: "\(candidates.count) @Model classes are named \(name) (\(candidates.map(\.qualifiedName).joined(separator: ", "))); ck reads \(chosen.qualifiedName), the last one",
            fix: "add `typealias \(name) = \(chosen.qualifiedName)` for the current schema version, or give each VersionedSchema a versionIdentifier"))
        return chosen
    }

    /// Entities of the chosen classes, in file order.
    package mutating func entities(order: [SwiftDeclarations]) -> [ModelEntity] {
        var out: [ModelEntity] = []
        for f in order {
            for t in f.types where t.kind == .model && models[t.name]?.qualifiedName == t.qualifiedName && models[t.name]?.location == t.location {
                out.append(entity(t))
            }
        }
        return out
    }

    // MARK: Types

    /// Replaces typealiases by what they name (a few levels deep; a cycle stops there).
    package func expand(_ e: SwiftTypeExpression, depth: Int = 0) -> SwiftTypeExpression {
        guard depth < 8 else { return e }
        switch e {
        case .named(let path, let args):
            let name = path.last ?? ""
            if models[name] == nil, let target = aliases[name] {
                let t = SwiftTypeExpression.parse(target)
                if case .named(let tp, _) = t, tp.last == name { return t }
                return expand(t, depth: depth + 1)
            }
            return .named(path, args.map { expand($0, depth: depth + 1) })
        case .optional(let x): return .optional(expand(x, depth: depth + 1))
        case .array(let x): return .array(expand(x, depth: depth + 1))
        case .dictionary(let k, let v): return .dictionary(expand(k, depth: depth + 1), expand(v, depth: depth + 1))
        case .unsupported: return e
        }
    }

    package func resolve(_ e: SwiftTypeExpression) -> Resolved {
        switch expand(e) {
        case .named(let path, let args):
            let name = path.last ?? ""
            if models[name] != nil { return .model(name) }
            if name == "Set" && args.count == 1 { return valueResolves(args[0]) }
            if let k = Self.builtins[name], args.isEmpty { return .attribute(k) }
            switch valueTypes[name] {
            case .enumType?, .structType?: return .attribute(.encoded)
            case .some(let kind): return .unresolved("\(name) (a \(kind.rawValue), not a @Model or a Codable value type)")
            case nil: return .unresolved(path.joined(separator: "."))
            }
        case .optional(let x): return resolve(x)
        case .array(let x), .dictionary(_, let x): return valueResolves(x)
        case .unsupported(let text): return .unresolved(text)
        }
    }

    /// A collection is stored encoded when its elements are values ck can resolve.
    private func valueResolves(_ e: SwiftTypeExpression) -> Resolved {
        switch resolve(e) {
        case .attribute: return .attribute(.encoded)
        case .model(let m): return .unresolved("a collection of @Model \(m) that is not an array")
        case .unresolved(let u): return .unresolved(u)
        }
    }

    /// The type a default expression has, when it is a literal or names its type (`UUID()`, `Date.now`, `Mood.happy`).
    package static func inferredType(_ tokens: [SwiftToken]) -> SwiftTypeExpression? {
        guard let first = tokens.first else { return nil }
        switch first.kind {
        case .string: return tokens.count == 1 ? .named(["String"], []) : nil
        case .number(let n):
            guard tokens.count == 1 else { return nil }
            return .named([n.contains(".") || (!n.hasPrefix("0x") && n.lowercased().contains("e")) ? "Double" : "Int"], [])
        case .identifier(let w):
            if (w == "true" || w == "false") && tokens.count == 1 { return .named(["Bool"], []) }
            var path = [w]
            var i = 1
            while tokens[safe: i]?.isSymbol(".") == true, let n = tokens[safe: i + 1]?.identifier { path.append(n); i += 2 }
            if tokens[safe: i]?.isSymbol("(") == true {
                if path.last == "init" { path.removeLast() }
            } else if path.count > 1 {
                path.removeLast()
            } else {
                return nil
            }
            guard let last = path.last, let c = last.unicodeScalars.first, c.properties.isUppercase else { return nil }
            return .named(path, [])
        default:
            return nil
        }
    }

    // MARK: Entities

    private mutating func entity(_ t: SwiftDeclarations.TypeDecl) -> ModelEntity {
        let parent = t.inherits.first { models[$0.split(separator: ".").last.map(String.init) ?? ""] != nil }
            .flatMap { $0.split(separator: ".").last.map(String.init) }
        var e = ModelEntity(name: t.name, qualifiedName: t.qualifiedName, location: t.location, source: .swiftData, parent: parent)
        e.uniqueConstraints = t.uniqueMacros
        for prop in t.properties { add(prop, to: &e) }
        return e
    }

    private mutating func warn(_ rule: String, _ at: ModelLocation, _ subject: String, _ summary: String, fix: String? = nil) {
        findings.append(ModelFinding(.warning, rule, at: at, subject: subject, summary: summary, fix: fix))
    }

    private mutating func add(_ prop: SwiftDeclarations.Property, to e: inout ModelEntity) {
        let subject = "\(e.name).\(prop.name)"
        if prop.attributes.contains(where: { $0.name == "Transient" }) { return }
        var attributeOptions: [[SwiftToken]] = []
        var relationshipOptions: [[SwiftToken]] = []
        for a in prop.attributes {
            switch a.name {
            case "Attribute": attributeOptions = Self.splitArguments(a.arguments)
            case "Relationship": relationshipOptions = Self.splitArguments(a.arguments)
            case let n where Self.neutral(n): break
            default:
                warn("unknown-attribute", a.location, subject, "attribute @\(a.name) is not one SwiftData's CloudKit mirroring is known to read; ignored")
            }
        }
        if prop.isLet {
            warn("let-property", prop.location, subject,
                 "whether SwiftData stores a `let` property is UNVERIFIED; ck reads it as a stored attribute",
                 fix: "declare it `var \(prop.name)` to be sure it is stored")
        }
        var typeExpr: SwiftTypeExpression
        var typeText: String
        if let tokens = prop.typeTokens {
            typeExpr = SwiftTypeExpression.parse(tokens)
            typeText = SwiftTypeExpression.text(tokens)
        } else if let d = prop.defaultTokens, let inferred = Self.inferredType(d) {
            typeExpr = inferred
            typeText = SwiftTypeExpression.text(d)
        } else {
            warn("unresolved-type", prop.location, subject,
                 "the type of \(prop.name) can't be read: no type annotation and a default ck can't type (\(SwiftTypeExpression.text(prop.defaultTokens ?? [])))",
                 fix: "write the type: `var \(prop.name): T = …`")
            return
        }
        var isOptional = false
        if case .optional(let inner) = expand(typeExpr) { isOptional = true; typeExpr = inner }
        let hasDefault = prop.defaultTokens.map { !($0.count == 1 && $0[0].isWord("nil")) } ?? false
        // Relationships: a model, or an array of models.
        var destination: (String, Bool)?
        if case .array(let element) = expand(typeExpr), case .model(let m) = resolve(element) { destination = (m, true) }
        if destination == nil, case .model(let m) = resolve(typeExpr) { destination = (m, false) }
        if let (dest, toMany) = destination {
            var r = ModelRelationship(name: prop.name, location: prop.location, destination: dest, isToMany: toMany,
                                      isOptional: isOptional, typeText: typeText)
            relationship(options: relationshipOptions, into: &r, subject: subject)
            if !attributeOptions.isEmpty {
                warn("unknown-attribute", prop.location, subject, "@Attribute on a relationship is not read; use @Relationship")
            }
            e.relationships.append(r)
            return
        }
        var kind: ModelAttributeKind
        switch resolve(typeExpr) {
        case .attribute(let k): kind = k
        case .model: kind = .encoded
        case .unresolved(let what):
            if attributeOptions.contains(where: { Self.optionName($0) == "transformable" }) {
                kind = .transformable
            } else {
                warn("unresolved-type", prop.location, subject,
                     "type \(Names.describe(what)) is not declared in the files read, so its storage is unknown; \(prop.name) is left out",
                     fix: "add the file that declares it to the paths checked")
                return
            }
        }
        var a = ModelAttribute(name: prop.name, location: prop.location, kind: kind, typeText: typeText,
                               isOptional: isOptional, hasDefault: hasDefault)
        for option in attributeOptions {
            let at = option.first.map { ModelLocation(file: prop.location.file, line: $0.line, column: $0.column) } ?? prop.location
            switch Self.optionName(option) {
            case "unique": a.uniqueLocation = at
            case "allowsCloudEncryption": a.isEncrypted = true
            case "transformable":
                a.kind = .transformable
                let by = option.drop { !$0.isWord("by") }.dropFirst(2)
                a.transformerName = SwiftTypeExpression.text(Array(by)).replacingOccurrences(of: ".self", with: "")
                    .trimmingCharacters(in: CharacterSet(charactersIn: ")"))
            case "externalStorage", "preserveValueOnDeletion", "spotlight", "ephemeral", "hashModifier": break
            case "originalName":
                warn("original-name", at, subject,
                     "which CloudKit field a renamed attribute (originalName:) maps to is UNVERIFIED; ck uses the property name CD_\(prop.name)")
            default:
                warn("unknown-attribute", at, subject, "@Attribute option \(SwiftTypeExpression.text(option)) is not one ck knows; ignored")
            }
        }
        e.attributes.append(a)
    }

    private mutating func relationship(options: [[SwiftToken]], into r: inout ModelRelationship, subject: String) {
        for option in options {
            guard let first = option.first else { continue }
            let at = ModelLocation(file: r.location.file, line: first.line, column: first.column)
            switch Self.optionName(option) {
            case "deleteRule":
                r.deleteRule = option.last?.identifier
                r.deleteRuleLocation = at
            case "inverse":
                // \Item.tags: the last name is the inverse property.
                r.inverse = option.last?.identifier
            case "minimumModelCount", "maximumModelCount", "hashModifier": break
            case "originalName":
                warn("original-name", at, subject,
                     "which CloudKit field a renamed relationship (originalName:) maps to is UNVERIFIED; ck uses the property name CD_\(r.name)")
            case "unique":
                warn("unknown-attribute", at, subject, "a unique relationship: CloudKit can't enforce uniqueness")
            default:
                warn("unknown-attribute", at, subject, "@Relationship option \(SwiftTypeExpression.text(option)) is not one ck knows; ignored")
            }
        }
    }

    private static func neutral(_ name: String) -> Bool { SwiftDeclarationParser.neutralAttributes.contains(name) }

    /// Splits attribute arguments at top-level commas.
    package static func splitArguments(_ tokens: [SwiftToken]) -> [[SwiftToken]] {
        var out: [[SwiftToken]] = []
        var current: [SwiftToken] = []
        var depth = 0
        for t in tokens {
            if t.isSymbol("(") || t.isSymbol("[") || t.isSymbol("{") { depth += 1 }
            if t.isSymbol(")") || t.isSymbol("]") || t.isSymbol("}") { depth -= 1 }
            if depth == 0 && t.isSymbol(",") { out.append(current); current = []; continue }
            current.append(t)
        }
        if !current.isEmpty { out.append(current) }
        return out
    }

    /// `.unique` → unique; `deleteRule: .cascade` → deleteRule; `.transformable(by: X.self)` → transformable.
    package static func optionName(_ option: [SwiftToken]) -> String {
        if option.first?.isSymbol(".") == true { return option[safe: 1]?.identifier ?? "" }
        if let name = option.first?.identifier, option[safe: 1]?.isSymbol(":") == true { return name }
        return SwiftTypeExpression.text(option)
    }
}
