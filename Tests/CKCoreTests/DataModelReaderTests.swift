import Foundation
import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKSchema
@testable import CKServer
@testable import CKDataModel

@Suite struct DataModelReaderTests {
    @Test func tokenizerSkipsCommentsAndStringsAndKeepsPositions() throws {
        let source = """
        /* outer /* nested */ still comment */ let a = "x \\(f("y")) z"
        let b = #"raw "quoted" \\(not)"#
        let c = \"\"\"
            multi "line"
            \"\"\"
        // done
        var d = 1.5e3
        """
        let tokens = try SwiftTokenizer.tokenize(source)
        let words = tokens.compactMap(\.identifier)
        #expect(words == ["let", "a", "let", "b", "let", "c", "var", "d"])
        let d = try #require(tokens.first { $0.isWord("d") })
        #expect(d.line == 7 && d.column == 5 && d.newlineBefore == false)
        #expect(tokens.first { $0.isWord("var") }?.newlineBefore == true)
        #expect(tokens.contains { $0.kind == .number("1.5e3") })
        #expect(tokens.contains { $0.kind == .string("raw \"quoted\" \\(not)") })
    }

    @Test func tokenizerReportsUnterminatedConstructsWithPosition() {
        for (source, line, column, message) in [
            ("let a = 1\n/* open", 2, 1, "unterminated /* comment"),
            ("let s = \"abc\nlet t = 1", 1, 9, "unterminated string literal"),
            ("let s = \"\"\"\nabc", 1, 9, "unterminated string literal"),
        ] {
            #expect(throws: ModelReadFailure.self) { try SwiftTokenizer.tokenize(source) }
            do { _ = try SwiftTokenizer.tokenize(source) } catch {
                #expect(error.line == line && error.column == column && error.message == message, "\(source)")
            }
        }
    }

    static let versioned = """
    import SwiftData

    enum SchemaV1: VersionedSchema {
        static var versionIdentifier = Schema.Version(1, 0, 0)
        static var models: [any PersistentModel.Type] { [Item.self] }
        @Model final class Item {
            var old: Int = 0
            init() {}
        }
    }

    enum SchemaV2: VersionedSchema {
        static var versionIdentifier = Schema.Version(2, 0, 0)
        static var models: [any PersistentModel.Type] { [Item.self] }
        @Model
        public final class Item {
            public private(set) var name: String = ""
            var count = 0
            var ratio = 0.5
            var done = false
            var stamp = Date(timeIntervalSince1970: 0)
            var key = UUID()
            var mood: Mood = Mood.calm
            var status: Status?
            var total: Int { count * 2 }
            var watched: String? {
                didSet { print(watched ?? "") }
            }
            static var shared = 1
            class var other: Int { 1 }
            @Transient var cache: [String] = []
            func bump() { count += 1 }
            enum Status: Int, Codable { case open, closed }
            init() {}
        }
    }

    enum Mood: String, Codable { case calm, busy }
    """

    @Test func readsTheCurrentVersionOfANestedModelAndItsStoredProperties() throws {
        let f = try ModelFolder(["Models.swift": Self.versioned])
        let m = f.load()
        #expect(m.findings.brief == [])
        #expect(m.entities.map(\.qualifiedName) == ["SchemaV2.Item"])
        let item = try #require(m.entity("Item"))
        #expect(item.attributes.map(\.name) == ["name", "count", "ratio", "done", "stamp", "key", "mood", "status", "watched"])
        #expect(item.attributes.map(\.kind) == [.string, .integer64, .double, .boolean, .date, .uuid, .encoded, .encoded, .string])
        #expect(item.attributes.map(\.isOptional) == [false, false, false, false, false, false, false, true, true])
        #expect(item.attributes.map(\.hasDefault) == [true, true, true, true, true, true, true, false, false])
        let name = try #require(item.attributes.first)
        #expect(name.location == ModelLocation(file: "./Models.swift", line: 17, column: 33))
    }

    @Test func aTypealiasPicksTheVersionWithoutVersionIdentifiers() throws {
        let f = try ModelFolder(["A.swift": """
            enum V1 { @Model final class Note { var a: String = ""; init() {} } }
            enum V2 { @Model final class Note { var b: String = ""; init() {} } }
            typealias Note = V1.Note
            """])
        let m = f.load()
        #expect(m.entity("Note")?.attributes.map(\.name) == ["a"])
        #expect(m.findings.isEmpty)
    }

    @Test func anAmbiguousModelNameIsAWarningNamingBoth() throws {
        let f = try ModelFolder(["A.swift": """
            enum V1 { @Model final class Note { var a: String = ""; init() {} } }
            enum V2 { @Model final class Note { var b: String = ""; init() {} } }
            """])
        let m = f.load()
        #expect(m.findings.brief == ["warning duplicate-model Note 2:30"])
        #expect(m.findings.first?.summary.contains("V1.Note, V2.Note") == true)
    }

    @Test func whatCantBeResolvedIsAWarningNeverAGuess() throws {
        let f = try ModelFolder(["A.swift": """
            import SwiftData
            @Model final class Place {
                var coordinate: CLLocationCoordinate2D?
                var mystery = makeValue()
                @Sparkle var shiny: Int = 0
                #Glitter
                var pair: (Int, Int)?
                let fixed: String = ""
                @Attribute(originalName: "title") var name: String = ""
                init() {}
            }
            """])
        let m = f.load()
        #expect(m.findings.brief.sorted() == [
            "warning unresolved-type Place.coordinate 3:9",
            "warning unresolved-type Place.mystery 4:9",
            "warning unknown-attribute Place.shiny 5:5",
            "warning unknown-macro Place 6:5",
            "warning unresolved-type Place.pair 7:9",
            "warning let-property Place.fixed 8:9",
            "warning original-name Place.name 9:16",
        ].sorted())
        #expect(m.findings.contains { $0.summary.contains("CLLocationCoordinate2D") })
        #expect(m.entity("Place")?.attributes.map(\.name) == ["shiny", "fixed", "name"])
    }

    @Test func aTopLevelCommaInADefaultIsNotASecondBinding() throws {
        let f = try ModelFolder(["A.swift": """
            @Model final class Tally {
                var counts = Dictionary<String, Int>()
                var a: Int = 0, b: String = ""
                init() {}
            }
            """])
        let m = f.load()
        #expect(m.entity("Tally")?.attributes.map(\.name) == ["a", "b"])
        #expect(m.findings.brief == ["warning unresolved-type Tally.counts 2:9"])
    }

    @Test func anUnparseableFileIsReportedAndTheOthersAreStillRead() throws {
        let f = try ModelFolder([
            "Bad.swift": "@Model final class Bad {\n    var a: String = \"open\n}\n",
            "Unbalanced.swift": "@Model final class Half {\n    func f() {\n        (1\n    }\n}\n",
            "Good.swift": "@Model final class Good { var a: String = \"\"; init() {} }",
            "notes.txt": "not a model",
        ])
        let m = f.load()
        #expect(m.entities.map(\.name) == ["Good"])
        #expect(m.findings.brief == ["error unparseable ./Bad.swift 2:21", "error unparseable ./Unbalanced.swift 4:5"])
        #expect(m.findings.first?.summary == "can't read this Swift source: unterminated string literal")
        #expect(m.findings.last?.summary == "can't read this Swift source: found '}', expected ')' to close '(' at 3:9")
        // A file given by name that is not a model is a warning; in a walked folder it is not looked at.
        let named = f.load(["notes.txt", "Good.swift"])
        #expect(named.findings.brief == ["warning not-a-model notes.txt 1:1"])
    }

    static let coreData = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <!-- a comment -->
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="title" optional="YES" attributeType="String" defaultValueString="A &amp; B"/>
            <attribute name="count" attributeType="Integer 32" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="scratch" optional="YES" transient="YES" attributeType="String"/>
            <attribute name="local" optional="YES" attributeType="String">
                <userInfo>
                    <entry key="NSCloudKitMirroringDelegateIgnoredPropertyKey" value="YES"/>
                </userInfo>
            </attribute>
            <relationship name="folder" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
        </entity>
        <entity name="Folder" representedClassName="Folder" syncable="YES">
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
        </entity>
        <configuration name="Cloud" usedWithCloudKit="YES">
            <memberEntity name="Note"/>
        </configuration>
    </model>
    """

    @Test func readsACoreDataBundleAtItsCurrentVersion() throws {
        let f = try ModelFolder([
            "App.xcdatamodeld/App.xcdatamodel/contents": "<model><entity name=\"Old\"/></model>",
            "App.xcdatamodeld/App 2.xcdatamodel/contents": Self.coreData,
            "App.xcdatamodeld/.xccurrentversion": """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0"><dict><key>_XCCurrentVersionName</key><string>App 2.xcdatamodel</string></dict></plist>
                """,
        ])
        let m = f.load(["App.xcdatamodeld"])
        #expect(m.findings.isEmpty)
        #expect(m.entities.map(\.name) == ["Note", "Folder"])
        let note = try #require(m.entity("Note"))
        #expect(note.attributes.map(\.name) == ["title", "count"])
        #expect(note.attributes.map(\.kind) == [.string, .integer32])
        #expect(note.location == ModelLocation(file: "App.xcdatamodeld/App 2.xcdatamodel/contents", line: 4, column: 5))
        #expect(note.relationships.first?.inverse == "notes")
        #expect(m.cloudKitConfigurationEntities == ["Note"])
        #expect(try m.syncedEntities(models: nil) == ["Note"])
    }

    @Test func malformedXMLIsReportedWithItsPosition() throws {
        for (text, line, column, message) in [
            ("<model>\n  <entity name=\"A\">\n</model>", 3, 3, "found </model>, expected </entity> to close <entity> at 2:3"),
            ("<model>\n  <entity name=\"A\" x=1/>\n</model>", 2, 22, "expected a quoted value for attribute x"),
            ("<model>&bogus;</model>", 1, 8, "unknown entity &bogus;"),
            ("", 1, 1, "empty document: expected an XML element"),
        ] {
            let f = try ModelFolder(["M.xcdatamodel/contents": text])
            let m = f.load(["M.xcdatamodel"])
            #expect(m.findings.brief == ["error unparseable M.xcdatamodel/contents \(line):\(column)"], "\(text)")
            #expect(m.findings.first?.summary == "not well-formed XML: " + message)
        }
    }

    @Test func xmlReaderDecodesEntitiesCDATAAndNesting() throws {
        let root = try XMLReader.parse("<?xml version=\"1.0\"?>\n<a k='1 &lt; 2'><b>x &#65;&#x42;<![CDATA[<c>]]></b><b/></a>")
        #expect(root.name == "a" && root.attributes["k"] == "1 < 2")
        #expect(root.children("b").count == 2)
        #expect(root.child("b")?.text == "x AB<c>")
        #expect(root.line == 2 && root.column == 1)
    }
}

@Suite struct DataModelHostileInputTests {
    /// Every prefix of the fixtures and seeded random edits of them: the readers report or read, never crash or hang.
    @Test func truncatedAndMutatedSourcesNeverCrash() throws {
        var rng = SeededRNG(seed: 17)
        let sources = [DataModelReaderTests.versioned, DataModelRulesTests.shelves, DataModelSchemaTests.relationships]
        let alphabet = Array("{}()[]<>\"#@/*\\:=?,.\n `'")
        for source in sources {
            let chars = Array(source)
            for cut in stride(from: 0, to: chars.count, by: 7) {
                _ = try? SwiftDeclarationParser.parse(String(chars[..<cut]), file: "t.swift")
            }
            for _ in 0..<300 {
                var m = chars
                for _ in 0..<(1 + rng.below(4)) {
                    m[rng.below(m.count)] = alphabet[rng.below(alphabet.count)]
                }
                _ = try? SwiftDeclarationParser.parse(String(m), file: "t.swift")
            }
        }
        let xml = Array(DataModelRulesTests.coreData)
        for cut in stride(from: 0, to: xml.count, by: 5) { _ = try? XMLReader.parse(String(xml[..<cut])) }
        for _ in 0..<300 {
            var m = xml
            m[rng.below(m.count)] = alphabet[rng.below(alphabet.count)]
            _ = try? XMLReader.parse(String(m))
        }
    }

    @Test func deepNestingIsRefusedNotRecursedInto() throws {
        let types = String(repeating: "class A {", count: 100_000) + String(repeating: "}", count: 100_000)
        #expect(throws: ModelReadFailure.self) { try SwiftDeclarationParser.parse(types, file: "t.swift") }
        let brackets = "@Model class A { var x: " + String(repeating: "[", count: 100_000) + "Int" + String(repeating: "]", count: 100_000) + "\n init() {} }"
        let m = try SwiftDeclarationParser.parse(brackets, file: "t.swift")
        #expect(m.types.first?.properties.count == 1)
        let f = try ModelFolder(["A.swift": brackets])
        #expect(f.load().findings.brief == ["warning unresolved-type A.x 1:22"])
        let xml = String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000)
        #expect(throws: ModelReadFailure.self) { try XMLReader.parse(xml) }
    }
}
