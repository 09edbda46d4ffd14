import Foundation
import Testing

/// The module map in docs/architecture.md against what the sources import and what Package.swift declares: an
/// arrow the map doesn't allow fails here even where the compiler's import check would let it through (a
/// dependency declared in Package.swift but not in the map, a `@testable` import in the public API tests).
@Suite struct ArchitectureTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    /// A row of the map.
    struct Row {
        var name: String
        var kind: String
        var allowed: Set<String>
        /// Test targets and the test-support library live under Tests/.
        var underTests: Bool { kind == "test" || kind == "public API test" || kind == "test support" }
        var folder: String { (underTests ? "Tests/" : "Sources/") + name }
    }

    static let kinds: Set<String> = ["library", "system library", "umbrella", "executable", "test", "public API test", "test support"]

    /// One import line of a Swift file.
    struct Import: Equatable {
        var module: String
        var testable: Bool
        var line: Int
    }

    // MARK: Reading the map, the sources and Package.swift

    static func read(_ relative: String) throws -> String {
        try String(contentsOfFile: root + "/" + relative, encoding: .utf8)
    }

    /// The names in backticks in a cell of the map.
    static func names(in cell: Substring) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The rows between the module-map markers of docs/architecture.md.
    static func map() throws -> [String: Row] {
        let text = try read("docs/architecture.md")
        guard let start = text.range(of: "<!-- module-map"), let end = text.range(of: "<!-- /module-map -->") else {
            Issue.record("docs/architecture.md has no module-map markers")
            return [:]
        }
        var rows: [String: Row] = [:]
        for line in text[start.upperBound..<end.lowerBound].split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 4, let name = names(in: Substring(cells[0])).first else {
                Issue.record("docs/architecture.md: a map row that is not `| Target | Kind | May import | Owns |`: \(line)")
                continue
            }
            #expect(!rows.keys.contains(name), "docs/architecture.md lists \(name) twice")
            #expect(kinds.contains(cells[1]), "docs/architecture.md: \(name) has kind '\(cells[1])', not one of \(kinds.sorted())")
            rows[name] = Row(name: name, kind: cells[1], allowed: Set(names(in: Substring(cells[2]))))
        }
        return rows
    }

    /// Every import of a Swift source, in any form; lines inside multi-line string literals are not code.
    static func imports(in text: String) -> [Import] {
        let pattern = /^\s*((?:@\w+(?:\([^)]*\))?\s+)*)(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?(\w+)/
        var found: [Import] = []
        var inString = false
        for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let quotes = line.ranges(of: "\"\"\"").count
            defer { if quotes % 2 == 1 { inString.toggle() } }
            guard !inString, let m = line.firstMatch(of: pattern) else { continue }
            found.append(Import(module: String(m.output.2), testable: m.output.1.contains("@testable"), line: n + 1))
        }
        return found
    }

    /// The Swift files under a folder of the package, relative to the package root.
    static func swiftFiles(under folder: String) -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: root + "/" + folder) else { return [] }
        return walk.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }.sorted().map { folder + "/" + $0 }
    }

    /// Each target of Package.swift with the dependencies it declares, from `layer("Name", [...])` lines and
    /// `.target(name:` / `.executableTarget(name:` / `.testTarget(name:` / `.systemLibrary(name:` lines; a named
    /// list (`let layers: [Target.Dependency] = [...]`) used in a dependency list counts as its names.
    static func packageTargets() throws -> [String: Set<String>] {
        let text = try read("Package.swift")
        let quoted = /"(\w+)"/
        var lists: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            if let m = line.firstMatch(of: /^let (\w+): \[Target\.Dependency\] = \[(.*)\]/) {
                lists[String(m.output.1)] = m.output.2.matches(of: quoted).map { String($0.output.1) }
            }
        }
        var targets: [String: Set<String>] = [:]
        for line in text.split(separator: "\n") {
            // `layer("Name", [deps])` or `layer("Name", [deps],` with more arguments on the next lines.
            if let m = line.firstMatch(of: /^\s*layer\("(\w+)", \[([^\]]*)\]/) {
                targets[String(m.output.1)] = Set(m.output.2.matches(of: quoted).map { String($0.output.1) })
            } else if let m = line.firstMatch(of: /^\s*\.(?:target|executableTarget|testTarget|systemLibrary)\(name: "(\w+)"/) {
                var dependencies: Set<String> = []
                if let from = line.range(of: "dependencies:") {
                    // The dependency list ends where the next labelled argument starts.
                    var list = line[from.upperBound...]
                    if let next = list.firstMatch(of: /, \w+:/) { list = list[..<next.range.lowerBound] }
                    dependencies.formUnion(list.matches(of: quoted).map { String($0.output.1) })
                    for word in list.matches(of: /\b(\w+)\b/) { dependencies.formUnion(lists[String(word.output.1)] ?? []) }
                }
                targets[String(m.output.1)] = dependencies
            }
        }
        return targets
    }


    // MARK: The checks

    @Test func everyTargetFolderHasARowAndEveryRowAFolder() throws {
        let rows = try Self.map()
        #expect(rows.count >= 17, "docs/architecture.md's map has \(rows.count) rows")
        var folders: Set<String> = []
        for top in ["Sources", "Tests"] {
            for name in try FileManager.default.contentsOfDirectory(atPath: Self.root + "/" + top) {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: Self.root + "/\(top)/\(name)", isDirectory: &isDirectory), isDirectory.boolValue {
                    folders.insert(top + "/" + name)
                }
            }
        }
        let mapped = Set(rows.values.map(\.folder))
        #expect(folders.subtracting(mapped).isEmpty, "target folders missing from docs/architecture.md's map: \(folders.subtracting(mapped).sorted())")
        #expect(mapped.subtracting(folders).isEmpty, "docs/architecture.md maps folders that don't exist: \(mapped.subtracting(folders).sorted())")
    }

    @Test func everyImportOfOurModulesIsAllowedByTheMap() throws {
        let rows = try Self.map()
        let ours = Set(rows.keys)
        var checked = 0
        for row in rows.values {
            let allowed = row.allowed
            for file in Self.swiftFiles(under: row.folder) {
                for i in Self.imports(in: try Self.read(file)) where ours.contains(i.module) && i.module != row.name {
                    checked += 1
                    #expect(allowed.contains(i.module), "\(file):\(i.line) imports \(i.module), which docs/architecture.md does not allow \(row.name) to import")
                }
            }
        }
        // The walk found the sources: the umbrella alone has six imports.
        #expect(checked > 100)
    }

    @Test func packageSwiftDeclaresWhatTheMapAllows() throws {
        let rows = try Self.map()
        let package = try Self.packageTargets()
        #expect(Set(package.keys) == Set(rows.keys), "Package.swift's targets and docs/architecture.md's rows differ: only in Package.swift \(Set(package.keys).subtracting(rows.keys).sorted()), only in the map \(Set(rows.keys).subtracting(package.keys).sorted())")
        for (name, declared) in package {
            guard let row = rows[name] else { continue }
            let allowed = row.allowed
            #expect(declared.subtracting(allowed).isEmpty, "Package.swift lets \(name) depend on \(declared.subtracting(allowed).sorted()), which docs/architecture.md does not allow")
            #expect(row.allowed.subtracting(declared).isEmpty, "docs/architecture.md lets \(name) import \(row.allowed.subtracting(declared).sorted()), which Package.swift does not declare")
        }
    }

    @Test func theServerMayNotTouchTheDisk() throws {
        let rows = try Self.map()
        #expect(rows["CKServer"]?.allowed.contains("CKFiles") == false)
        #expect(rows["CKServer"]?.allowed.contains("CKStorage") == true)
        #expect(rows["CKSync"]?.allowed.contains("CKStorage") == false)
    }

    @Test func publicAPITestsUseNoTestableImport() throws {
        let rows = try Self.map()
        let publicTests = rows.values.filter { $0.kind == "public API test" }
        #expect(!publicTests.isEmpty)
        for row in publicTests {
            let files = Self.swiftFiles(under: row.folder)
            #expect(!files.isEmpty, "\(row.folder) has no Swift files")
            for file in files {
                for i in Self.imports(in: try Self.read(file)) {
                    #expect(!i.testable, "\(file):\(i.line) uses @testable import \(i.module); the public API is tested as a program sees it")
                }
            }
        }
    }

    @Test func importsAreFoundInEveryForm() {
        let source = """
            import Foundation
            @_exported import CKModel
            internal import CckSQLite
            @testable import CKServer
            @preconcurrency public import CKSync
            import struct CKQuery.QueryRequest
            // import CKFiles
            let text = \"\"\"
            import CKStorage
            \"\"\"
            func f() {}
            """
        #expect(Self.imports(in: source) == [
            Import(module: "Foundation", testable: false, line: 1),
            Import(module: "CKModel", testable: false, line: 2),
            Import(module: "CckSQLite", testable: false, line: 3),
            Import(module: "CKServer", testable: true, line: 4),
            Import(module: "CKSync", testable: false, line: 5),
            Import(module: "CKQuery", testable: false, line: 6),
        ])
    }
}
