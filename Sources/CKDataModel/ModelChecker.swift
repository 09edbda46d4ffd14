import CKModel

/// Checks a model against the rules of Core Data's CloudKit model validator (reference swiftdata-cloudkit.md §8).
/// Each finding carries the validator's message; a source reader adds where and a fix.
public enum ModelChecker {
    /// The model validator's messages (OCCloudKitModelValidator, reference [R2]).
    public enum Message {
        public static let unique = "CloudKit integration does not support unique constraints. The following entities are constrained:"
        public static let attributeOptional = "CloudKit integration requires that all attributes be optional, or have a default value set. The following attributes are marked non-optional but do not have a default value:"
        public static let relationshipOptional = "CloudKit integration requires that all relationships be optional, the following are not:"
        public static let inverse = "CloudKit integration requires that all relationships have an inverse, the following do not:"
        public static let ordered = "CloudKit integration does not support ordered relationships. The following relationships are marked ordered:"
        public static let deleteRule = "The following relationships are configured with unsupported delete rules:"
        public static let attributeType = "CloudKit integration does not support all attribute types. The following entities have attributes of an unsupported type:"
        public static let transformer = "CloudKit integration requires that the value transformers for transformable attributes are available via +[NSValueTransformer valueTransformerForName:] and allow reverse transformation:"
        public static let unsynced = "CloudKit integration does not allow relationships to objects that aren't sync'd."
        public static let recordSize = "CloudKit integration requires that all entities can be materialized in a CKRecord of less than 700000 bytes."
    }

    /// The size a mirrored record may have before values move to assets (reference §5: 0xaae60).
    public static let recordSizeLimit = 700_000

    /// Transformers the system registers, which are reversible.
    package static let systemTransformers: Set<String> = ["", "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer"]

    /// Every rule violation of the synced entities, with the reader's own findings, in file order.
    public static func check(_ model: DataModel, synced: Set<String>) -> [ModelFinding] {
        var out = model.findings
        for e in model.entities where synced.contains(e.name) {
            out += check(e, in: model, synced: synced)
        }
        out += recordSizes(model, synced: synced)
        return out.sorted(by: ModelFinding.ordered)
    }

    private static func check(_ e: ModelEntity, in model: DataModel, synced: Set<String>) -> [ModelFinding] {
        var out: [ModelFinding] = []
        let swift = e.source == .swiftData
        for u in e.uniqueConstraints {
            out.append(ModelFinding(.error, "unique-constraint", at: u.location, subject: e.name,
                summary: "\(e.name) has a uniqueness constraint (\(u.text)), which CloudKit can't enforce",
                message: Message.unique + " " + e.name,
                fix: swift ? "remove `\(u.text)` and de-duplicate in code after sync (CloudKit can't enforce uniqueness)"
                           : "remove the constraint on \(u.text) (Data Model inspector → Constraints) and de-duplicate in code"))
        }
        if let error = nameError("CD_" + e.name, record: true) {
            out.append(ModelFinding(.error, "name", at: e.location, subject: e.name, summary: "record type CD_\(e.name) breaks CloudKit's naming rules: \(error)",
                                    fix: "rename the \(swift ? "class" : "entity") with ASCII letters, digits and '_'"))
        }
        for a in e.attributes {
            let subject = "\(e.name).\(a.name)"
            if let u = a.uniqueLocation {
                out.append(ModelFinding(.error, "unique-constraint", at: u, subject: subject,
                    summary: "\(subject) is marked unique, which CloudKit can't enforce",
                    message: Message.unique + " " + e.name,
                    fix: "remove `.unique` from `@Attribute(…)` and de-duplicate in code after sync"))
            }
            if !a.isOptional && !a.hasDefault {
                out.append(ModelFinding(.error, "attribute-optional-or-default", at: a.location, subject: subject,
                    summary: "\(subject) is neither optional nor given a default value",
                    message: Message.attributeOptional + " " + subject,
                    fix: swift ? "give it a default in its declaration: `var \(a.name): \(a.typeText) = \(defaultLiteral(a))`, or make it optional: `var \(a.name): \(a.typeText)?` (a value set in init() does not count)"
                               : "tick Optional for \(a.name), or give it a Default Value"))
            }
            if a.kind == .undefined || a.kind == .objectID {
                out.append(ModelFinding(.error, "unsupported-attribute-type", at: a.location, subject: subject,
                    summary: "\(subject) has the type \(a.typeText), which CloudKit can't store",
                    message: Message.attributeType + " " + subject,
                    fix: "give \(a.name) a concrete type (String, Binary Data, Transformable, …)"))
            }
            if a.kind == .transformable, let name = a.transformerName, !(e.source == .coreData && systemTransformers.contains(name)) {
                out.append(ModelFinding(.warning, "value-transformer", at: a.location, subject: subject,
                    summary: "\(subject) uses the value transformer \(name.isEmpty ? "(none named)" : name), which a source reader can't check",
                    message: Message.transformer + " " + subject,
                    fix: "register \(name.isEmpty ? "the transformer" : name) with ValueTransformer.setValueTransformer(_:forName:) before the container loads, and let it allow reverse transformation"))
            }
            if let error = nameError("CD_" + a.name, record: false) {
                out.append(ModelFinding(.error, "name", at: a.location, subject: subject, summary: "field CD_\(a.name) breaks CloudKit's naming rules: \(error)",
                                        fix: "rename \(a.name) with ASCII letters, digits and '_'"))
            }
        }
        for r in e.relationships {
            let subject = "\(e.name).\(r.name)"
            guard let dest = model.entity(r.destination) else {
                out.append(ModelFinding(.error, "unknown-destination", at: r.location, subject: subject,
                                        summary: "\(subject) points to \(r.destination), which the model doesn't declare"))
                continue
            }
            if !r.isOptional {
                out.append(ModelFinding(.error, "relationship-optional", at: r.location, subject: subject,
                    summary: r.isToMany ? "\(subject) is a non-optional to-many relationship (a default of [] does not make it optional)"
                                        : "\(subject) is a non-optional relationship",
                    message: Message.relationshipOptional + " " + subject,
                    fix: swift ? (r.isToMany ? "make \(r.name) optional: `var \(r.name): [\(r.destination)]? = []`" : "make \(r.name) optional: `var \(r.name): \(r.destination)?`")
                               : "tick Optional for the relationship \(r.name)"))
            }
            let inverse = model.inverse(of: r, in: e)
            if let name = r.inverse, inverse == nil {
                out.append(ModelFinding(.error, "relationship-inverse", at: r.location, subject: subject,
                    summary: "\(subject) names the inverse \(name), which \(dest.name) doesn't have",
                    message: Message.inverse + " " + subject,
                    fix: "name a relationship \(dest.name) declares"))
            } else if inverse == nil {
                out.append(ModelFinding(swift ? .warning : .error, "relationship-inverse", at: r.location, subject: subject,
                    summary: swift ? "\(subject) has no inverse that ck can find; the validator requires one, though SwiftData apps are seen syncing inverse-less to-one relationships"
                                   : "\(subject) has no inverse",
                    message: Message.inverse + " " + subject,
                    fix: swift ? "name the inverse on one side: `@Relationship(inverse: \\\(dest.name).<property>) var \(r.name): \(r.typeText)`"
                               : "add a relationship in \(dest.name) back to \(e.name) and set it as the Inverse of \(r.name)"))
            }
            if r.isOrdered {
                out.append(ModelFinding(.error, "ordered-relationship", at: r.location, subject: subject,
                    summary: "\(subject) is ordered, which CloudKit mirroring doesn't support",
                    message: Message.ordered + " " + subject,
                    fix: "untick Ordered for \(r.name) and sort by an attribute instead"))
            }
            if r.deleteRule?.lowercased() == "deny" {
                out.append(ModelFinding(.error, "delete-rule", at: r.deleteRuleLocation ?? r.location, subject: subject,
                    summary: "\(subject) uses the Deny delete rule, which CloudKit can't enforce",
                    message: Message.deleteRule + " " + subject,
                    fix: swift ? "use `.nullify` or `.cascade`: `@Relationship(deleteRule: .nullify)`" : "set the Delete Rule of \(r.name) to Nullify or Cascade"))
            }
            if !synced.contains(dest.name) {
                out.append(ModelFinding(.error, "unsynced-relationship", at: r.location, subject: subject,
                    summary: "\(subject) points to \(dest.name), which is not synced with CloudKit",
                    message: Message.unsynced + " " + subject,
                    fix: swift ? "add \(dest.name) to the synced models (--models), or remove the relationship"
                               : "add \(dest.name) to the configuration used with CloudKit, or remove the relationship"))
            }
            if let error = nameError("CD_" + r.name, record: false), !r.isToMany {
                out.append(ModelFinding(.error, "name", at: r.location, subject: subject, summary: "field CD_\(r.name) breaks CloudKit's naming rules: \(error)",
                                        fix: "rename \(r.name) with ASCII letters, digits and '_'"))
            }
        }
        return out
    }

    private static func nameError(_ name: String, record: Bool) -> String? {
        do throws(CKError) {
            if record { try Names.validateRecordType(name) } else { try Names.validateFieldName(name) }
            return nil
        } catch {
            return error.reason
        }
    }

    /// A default to suggest for an attribute of this kind.
    package static func defaultLiteral(_ a: ModelAttribute) -> String {
        switch a.kind {
        case .integer16, .integer32, .integer64, .double, .float, .decimal: return "0"
        case .boolean: return "false"
        case .date: return "Date.now"
        case .string: return "\"\""
        case .uuid: return "UUID()"
        case .binary: return "Data()"
        case .encoded where a.typeText.hasPrefix("["): return a.typeText.contains(":") ? "[:]" : "[]"
        default: return "<value>"
        }
    }

    /// Fixed-size values and declared maximum lengths of each record type; over 700,000 bytes is a warning.
    /// Values without a maximum are moved to an asset when large, so they don't count.
    private static func recordSizes(_ model: DataModel, synced: Set<String>) -> [ModelFinding] {
        var sizes: [String: (Int, ModelEntity)] = [:]
        for e in model.entities where synced.contains(e.name) {
            let root = model.root(of: e.name)
            var size = 0
            for a in e.attributes {
                switch a.kind {
                case .string, .binary, .transformable, .encoded, .uri: size += a.maxLength ?? 0
                case .uuid: size += 36
                case .undefined, .objectID: break
                default: size += 8
                }
            }
            size += e.relationships.filter { !$0.isToMany }.count * 36
            let previous = sizes[root]
            sizes[root] = ((previous?.0 ?? e.name.utf8.count) + size, previous?.1 ?? model.entity(root) ?? e)
        }
        return sizes.keys.sorted().compactMap { root in
            guard let (size, e) = sizes[root], size > recordSizeLimit else { return nil }
            return ModelFinding(.warning, "record-size", at: e.location, subject: root,
                summary: "a CD_\(root) record with every value at its maximum length is \(size) bytes, over \(recordSizeLimit)",
                message: Message.recordSize + " " + root,
                fix: "lower the maximum lengths, or move large values to another entity")
        }
    }
}
