import Foundation
import CKFiles
import CKModel

extension DataModel {
    /// Reads every model file under `paths` (Swift sources with `@Model` classes, `.xcdatamodeld` bundles,
    /// `.xcdatamodel` folders, `contents` XML). A file that can't be read becomes a finding; the rest are still read.
    public static func load(paths: [String], workingDirectory: String) -> DataModel {
        var model = DataModel()
        var swift: [SwiftDeclarations] = []
        var coreData = CoreDataModelReader()
        func full(_ p: String) -> String { p.hasPrefix("/") ? p : workingDirectory + "/" + p }
        func swiftFile(_ path: String, label: String) {
            model.files.append(label)
            let at = ModelLocation(file: label, line: 1, column: 1)
            let bytes: [UInt8]
            do throws(CKError) {
                guard let b = try FileIO.read(path) else {
                    model.findings.append(ModelFinding(.error, "unreadable", at: at, subject: label, summary: "no such file or directory"))
                    return
                }
                bytes = b
            } catch {
                model.findings.append(ModelFinding(.error, "unreadable", at: at, subject: label, summary: error.reason))
                return
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                model.findings.append(ModelFinding(.error, "unparseable", at: at, subject: label, summary: "not UTF-8 text"))
                return
            }
            do throws(ModelReadFailure) {
                swift.append(try SwiftDeclarationParser.parse(text, file: label))
            } catch {
                model.findings.append(ModelFinding(.error, "unparseable", at: ModelLocation(file: label, line: error.line, column: error.column),
                                                   subject: label, summary: "can't read this Swift source: \(error.message)",
                                                   fix: "make the file compile; ck reads declarations, not a half-written file"))
            }
        }
        func visit(_ path: String, label: String, explicit: Bool) {
            if path.hasSuffix(".xcdatamodeld") && FileIO.isDirectory(path) {
                model.files.append(label)
                coreData.bundle(path: path, label: label)
            } else if path.hasSuffix(".xcdatamodel") && FileIO.isDirectory(path) {
                model.files.append(label)
                coreData.file(path: path + "/contents", label: label + "/contents")
            } else if FileIO.isDirectory(path) {
                let names = FileIO.list(path).filter { !$0.hasPrefix(".") && $0 != "Package.swift" }
                    .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                for n in names {
                    let child = path + "/" + n
                    // Symbolic links are not followed: a walk stays inside the folders given.
                    if (try? FileManager.default.destinationOfSymbolicLink(atPath: child)) != nil { continue }
                    if FileIO.isDirectory(child) || n.hasSuffix(".swift") || n == "contents" {
                        visit(child, label: label + "/" + n, explicit: false)
                    }
                }
            } else if path.hasSuffix(".swift") {
                swiftFile(path, label: label)
            } else if PathName.last(path) == "contents" || path.hasSuffix(".xml") {
                model.files.append(label)
                coreData.file(path: path, label: label)
            } else if !FileIO.exists(path) {
                model.findings.append(ModelFinding(.error, "unreadable", at: ModelLocation(file: label, line: 1, column: 1), subject: label,
                                                   summary: "no such file or directory"))
            } else if explicit {
                model.findings.append(ModelFinding(.warning, "not-a-model", at: ModelLocation(file: label, line: 1, column: 1), subject: label,
                                                   summary: "not a Swift file, .xcdatamodeld, .xcdatamodel or contents file; skipped"))
            }
        }
        for p in paths { visit(full(p), label: p, explicit: true) }
        var resolver = SwiftModelResolver(swift)
        model.entities = resolver.entities(order: swift) + coreData.entities
        model.findings += swift.flatMap(\.findings) + resolver.findings + coreData.findings
        let cloud = coreData.configurations.filter(\.usedWithCloudKit)
        if !cloud.isEmpty { model.cloudKitConfigurationEntities = Set(cloud.flatMap(\.members)) }
        // Two entities with one name are one CD_ type. A Core Data mirror of a SwiftData model (same fields, same
        // types) is how apps share a store between the two, and syncs: only entities that differ are an error.
        var seen: [String: ModelEntity] = [:]
        for e in model.entities {
            if let first = seen[e.name] {
                let differences = first.cloudKitDifferences(from: e)
                guard !differences.isEmpty else { continue }
                model.findings.append(ModelFinding(.error, "duplicate-entity", at: e.location, subject: e.name,
                                                   summary: "a second entity named \(e.name) (the first is at \(first.location)) differs from it: "
                                                       + differences.joined(separator: "; ") + "; both would be CD_\(e.name)",
                                                   fix: "declare \(e.name) once, or make both declare the same fields with the same types"))
            } else {
                seen[e.name] = e
            }
        }
        if model.entities.isEmpty && !model.findings.contains(where: { $0.severity == .error }) {
            model.findings.append(ModelFinding(.error, "no-models", at: ModelLocation(file: paths.first ?? ".", line: 1, column: 1), subject: paths.joined(separator: " "),
                                               summary: "no @Model classes or Core Data entities in the paths given"))
        }
        return model
    }

    /// The entities that sync: those `--models` names (else the Core Data configurations used with CloudKit,
    /// else all). An unknown name is an error listing the models found.
    public func syncedEntities(models names: [String]?) throws(CKError) -> Set<String> {
        let all = Set(entities.map(\.name))
        guard let names, !names.isEmpty else { return cloudKitConfigurationEntities.map { $0.intersection(all) } ?? all }
        let unknown = names.filter { !all.contains($0) }
        if !unknown.isEmpty {
            throw CKError(.invalidArguments, "--models names \(unknown.joined(separator: ", ")), which the files don't declare",
                          hint: "models found: \(all.sorted().joined(separator: ", "))")
        }
        // A sub-entity shares its root's record type, so it syncs with it.
        var synced = Set(names)
        for e in entities where synced.contains(root(of: e.name)) { synced.insert(e.name) }
        return synced
    }
}

extension ModelEntity {
    /// The CloudKit fields this entity gives its `CD_` type, by field name: the type, and what else changes the
    /// record (encryption, an asset companion, a to-many relationship's destination, the parent entity).
    var cloudKitShape: [String: String] {
        var shape: [String: String] = [:]
        for a in attributes {
            guard let base = a.kind.fieldBase else { continue }
            // A UUID or URI is a STRING with no CD_<name>_ckAsset companion under initializeCloudKitSchema.
            let companion = a.kind.hasAssetCompanion || (base != .string && base != .bytes) ? "" : " without an asset companion"
            shape["CD_" + a.name] = (a.isEncrypted ? "ENCRYPTED " : "") + base.schemaName + companion
        }
        for r in relationships {
            shape["CD_" + r.name] = r.isToMany ? "a to-many relationship to \(r.destination)" : "STRING (a to-one relationship to \(r.destination))"
        }
        if let parent { shape["parent entity"] = parent }
        return shape
    }

    /// How `other`, an entity of the same name, would make a different `CD_` type: one line per field that only
    /// one declares or that the two type differently; empty when both make the same type.
    func cloudKitDifferences(from other: ModelEntity) -> [String] {
        let mine = cloudKitShape, theirs = other.cloudKitShape
        var out: [String] = []
        for key in Set(mine.keys).union(theirs.keys).sorted() {
            switch (mine[key], theirs[key]) {
            case let (a?, b?) where a != b: out.append("\(key) is \(b) here but \(a) there")
            case (nil, let b?): out.append("\(key) (\(b)) only here")
            case (let a?, nil): out.append("\(key) (\(a)) only there")
            default: break
            }
        }
        return out
    }
}
