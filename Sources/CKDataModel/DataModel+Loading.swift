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
        var seen: [String: ModelLocation] = [:]
        for e in model.entities {
            if let first = seen[e.name] {
                model.findings.append(ModelFinding(.error, "duplicate-entity", at: e.location, subject: e.name,
                                                   summary: "a second entity named \(e.name) (the first is at \(first)); both would be CD_\(e.name)"))
            } else {
                seen[e.name] = e.location
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
