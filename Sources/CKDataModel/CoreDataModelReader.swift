import CKFiles
import CKModel

/// Reads Core Data models: a `.xcdatamodel/contents` XML file, or a `.xcdatamodeld` bundle (its current version).
package struct CoreDataModelReader {
    /// A `<configuration>`: its name, whether it is "Used with CloudKit", and its entities.
    package struct Configuration: Sendable {
        package var name: String
        package var usedWithCloudKit: Bool
        package var members: [String]
    }

    package var entities: [ModelEntity] = []
    package var configurations: [Configuration] = []
    package var findings: [ModelFinding] = []

    package static let attributeKinds: [String: ModelAttributeKind] = [
        "Integer 16": .integer16, "Integer 32": .integer32, "Integer 64": .integer64, "Boolean": .boolean,
        "Double": .double, "Float": .float, "Decimal": .decimal, "Date": .date, "String": .string, "UUID": .uuid,
        "URI": .uri, "Binary": .binary, "Transformable": .transformable, "Composite": .encoded,
        "Undefined": .undefined, "Object ID": .objectID, "ObjectID": .objectID,
    ]

    /// The model version a `.xcdatamodeld` bundle marks current (`.xccurrentversion`), else its only version.
    package mutating func bundle(path full: String, label: String) {
        let versions = FileIO.list(full).filter { $0.hasSuffix(".xcdatamodel") }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let at = ModelLocation(file: label, line: 1, column: 1)
        guard let last = versions.last else {
            findings.append(ModelFinding(.error, "unreadable", at: at, subject: label, summary: "\(label) holds no .xcdatamodel version"))
            return
        }
        var chosen = versions.count == 1 ? last : nil
        let marker = full + "/.xccurrentversion"
        if let bytes = try? FileIO.read(marker), let text = String(validating: bytes, as: UTF8.self) {
            do throws(ModelReadFailure) {
                let plist = try XMLReader.parse(text)
                let items = plist.child("dict")?.children ?? []
                if let k = items.firstIndex(where: { $0.name == "key" && $0.text == "_XCCurrentVersionName" }),
                   let v = items[safe: k + 1], v.name == "string" {
                    if versions.contains(v.text) {
                        chosen = v.text
                    } else {
                        findings.append(ModelFinding(.error, "unreadable", at: ModelLocation(file: label + "/.xccurrentversion", line: v.line, column: v.column),
                                                     subject: label, summary: "the current version \(v.text) is not in the bundle"))
                    }
                }
            } catch {
                findings.append(ModelFinding(.error, "unparseable", at: ModelLocation(file: label + "/.xccurrentversion", line: error.line, column: error.column),
                                             subject: label, summary: "not well-formed XML: \(error.message)"))
            }
        }
        guard let version = chosen ?? versions.last else { return }
        if chosen == nil {
            findings.append(ModelFinding(.warning, "model-version", at: at, subject: label,
                summary: "\(versions.count) model versions and no .xccurrentversion naming the current one; ck reads \(version), the last by name",
                fix: "set the current model version in Xcode (File inspector → Model Version)"))
        }
        file(path: full + "/" + version + "/contents", label: label + "/" + version + "/contents")
    }

    /// Reads one `contents` file.
    package mutating func file(path full: String, label: String) {
        let bytes: [UInt8]
        do throws(CKError) {
            guard let b = try FileIO.read(full) else {
                findings.append(ModelFinding(.error, "unreadable", at: ModelLocation(file: label, line: 1, column: 1), subject: label, summary: "no such file or directory"))
                return
            }
            bytes = b
        } catch {
            findings.append(ModelFinding(.error, "unreadable", at: ModelLocation(file: label, line: 1, column: 1), subject: label, summary: error.reason))
            return
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            findings.append(ModelFinding(.error, "unparseable", at: ModelLocation(file: label, line: 1, column: 1), subject: label, summary: "not UTF-8 text"))
            return
        }
        read(text, label: label)
    }

    /// Reads the XML text of a `contents` file.
    package mutating func read(_ text: String, label: String) {
        let root: XMLElement
        do throws(ModelReadFailure) {
            root = try XMLReader.parse(text)
        } catch {
            findings.append(ModelFinding(.error, "unparseable", at: ModelLocation(file: label, line: error.line, column: error.column),
                                         subject: label, summary: "not well-formed XML: \(error.message)"))
            return
        }
        func at(_ e: XMLElement) -> ModelLocation { ModelLocation(file: label, line: e.line, column: e.column) }
        guard root.name == "model" else {
            findings.append(ModelFinding(.error, "not-a-model", at: at(root), subject: label,
                                         summary: "the root element is <\(root.name)>, not a Core Data <model>"))
            return
        }
        for c in root.children("configuration") {
            configurations.append(Configuration(name: c.attributes["name"] ?? "", usedWithCloudKit: c.attributes["usedWithCloudKit"] == "YES",
                                                members: c.children("memberEntity").compactMap { $0.attributes["name"] }))
        }
        for x in root.children("entity") {
            guard let name = x.attributes["name"] else {
                findings.append(ModelFinding(.error, "unparseable", at: at(x), subject: label, summary: "an <entity> without a name"))
                continue
            }
            var e = ModelEntity(name: name, qualifiedName: name, location: at(x), source: .coreData, parent: x.attributes["parentEntity"])
            for u in x.child("uniquenessConstraints")?.children("uniquenessConstraint") ?? [] {
                let names = u.children("constraint").compactMap { $0.attributes["value"] }
                e.uniqueConstraints.append(ModelUniqueConstraint(location: at(u), text: names.joined(separator: ", ")))
            }
            for a in x.children("attribute") { attribute(a, into: &e, at: at(a)) }
            for r in x.children("relationship") {
                guard let rn = r.attributes["name"] else { continue }
                if Self.ignored(r) { continue }
                let toMany = r.attributes["toMany"] == "YES"
                let dest = r.attributes["destinationEntity"] ?? ""
                var rel = ModelRelationship(name: rn, location: at(r), destination: dest, isToMany: toMany,
                                            isOptional: r.attributes["optional"] == "YES", typeText: toMany ? "to-many \(dest)" : "to-one \(dest)")
                rel.inverse = r.attributes["inverseName"]
                rel.deleteRule = r.attributes["deletionRule"]
                rel.deleteRuleLocation = at(r)
                rel.isOrdered = r.attributes["ordered"] == "YES"
                if dest.isEmpty {
                    findings.append(ModelFinding(.error, "unparseable", at: at(r), subject: "\(name).\(rn)", summary: "a relationship without a destinationEntity"))
                    continue
                }
                e.relationships.append(rel)
            }
            entities.append(e)
        }
    }

    /// Transient, derived and `NSCloudKitMirroringDelegateIgnoredPropertyKey` properties are not mirrored.
    private static func ignored(_ x: XMLElement) -> Bool {
        if x.attributes["transient"] == "YES" || x.attributes["derived"] == "YES" { return true }
        return x.child("userInfo")?.children("entry").contains { $0.attributes["key"] == "NSCloudKitMirroringDelegateIgnoredPropertyKey" } ?? false
    }

    private mutating func attribute(_ x: XMLElement, into e: inout ModelEntity, at: ModelLocation) {
        guard let name = x.attributes["name"] else {
            findings.append(ModelFinding(.error, "unparseable", at: at, subject: e.name, summary: "an <attribute> without a name"))
            return
        }
        if Self.ignored(x) { return }
        let typeName = x.attributes["attributeType"] ?? "Undefined"
        guard let kind = Self.attributeKinds[typeName] else {
            findings.append(ModelFinding(.error, "unknown-attribute-type", at: at, subject: "\(e.name).\(name)",
                                         summary: "attributeType \"\(typeName)\" is not a Core Data attribute type",
                                         fix: "use one of \(Self.attributeKinds.keys.sorted().joined(separator: ", "))"))
            return
        }
        var a = ModelAttribute(name: name, location: at, kind: kind, typeText: typeName,
                               isOptional: x.attributes["optional"] == "YES", hasDefault: x.attributes["defaultValueString"] != nil)
        a.isEncrypted = x.attributes["allowsCloudEncryption"] == "YES"
        if kind == .transformable { a.transformerName = x.attributes["valueTransformerName"] ?? "" }
        if kind == .string || kind == .binary, let m = x.attributes["maxValueString"].flatMap(Int.init) { a.maxLength = m }
        e.attributes.append(a)
    }
}
