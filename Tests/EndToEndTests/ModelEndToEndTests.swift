import Foundation
import Testing

/// `ck model` run as a user would: model sources written for the tests, the built binary, a temporary store.
@Suite struct ModelEndToEndTests {
    static let trips = """
    import SwiftData

    @Model final class Trip {
        var name: String = ""
        var start: Date?
        @Relationship(deleteRule: .cascade, inverse: \\Stop.trip) var stops: [Stop]? = []
        init() {}
    }

    @Model final class Stop {
        var title: String = ""
        var trip: Trip?
        init() {}
    }
    """

    /// The system fields and default grants every generated type ends with (ckdb.md §1.5).
    static let systemFieldsAndGrants = """
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE,
            GRANT WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world"
        );
    """

    static let tripSchema = """
    DEFINE SCHEMA

        RECORD TYPE CD_Stop (
            CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_title        STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_trip         STRING QUERYABLE SEARCHABLE SORTABLE,
    \(Self.systemFieldsAndGrants)

        RECORD TYPE CD_Trip (
            CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_name         STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_start        TIMESTAMP QUERYABLE SORTABLE,
    \(Self.systemFieldsAndGrants)

    \(SchemaEndToEndTests.usersBlock)
    """

    static let broken = """
    import SwiftData
    @Model final class Item {
        @Attribute(.unique) var code: String = ""
        var title: String
        var tags: [Tag] = []
        init(title: String) { self.title = title }
    }
    @Model final class Tag {
        var name: String = ""
        var items: [Item]? = []
        init() {}
    }
    """

    @Test func aCleanModelChecksWithExitZero() throws {
        let s = try Sandbox()
        try FileManager.default.createDirectory(atPath: s.dir + "/Models", withIntermediateDirectories: true)
        try s.write(Self.trips, to: "Models/Trip.swift")
        let r = try s.ck("model", "check", "Models", "-o", "table")
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout == "No problems: 2 models in 1 file.\n")
        let json = try s.ck("model", "check", "Models", "-o", "json")
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(o["errors"] as? Int == 0 && o["warnings"] as? Int == 0)
        #expect(o["models"] as? [String] == ["Trip", "Stop"])
        #expect(o["files"] as? [String] == ["Models/Trip.swift"])
    }

    @Test func violationsPrintWithPositionRuleMessageAndFixAndExitEight() throws {
        let s = try Sandbox()
        try s.write(Self.broken, to: "Item.swift")
        let r = try s.ck("model", "check", "Item.swift", "-o", "table")
        #expect(r.status == 8)
        #expect(r.stdout == """
            Item.swift:3:16: error: Item.code is marked unique, which CloudKit can't enforce [unique-constraint]
              CloudKit: CloudKit integration does not support unique constraints. The following entities are constrained: Item
              fix: remove `.unique` from `@Attribute(…)` and de-duplicate in code after sync
            Item.swift:4:9: error: Item.title is neither optional nor given a default value [attribute-optional-or-default]
              CloudKit: CloudKit integration requires that all attributes be optional, or have a default value set. The following attributes are marked non-optional but do not have a default value: Item.title
              fix: give it a default in its declaration: `var title: String = ""`, or make it optional: `var title: String?` (a value set in init() does not count)
            Item.swift:5:9: error: Item.tags is a non-optional to-many relationship (a default of [] does not make it optional) [relationship-optional]
              CloudKit: CloudKit integration requires that all relationships be optional, the following are not: Item.tags
              fix: make tags optional: `var tags: [Tag]? = []`
            3 errors, 0 warnings: 2 models in 1 file.

            """)
        let json = try s.ck("model", "check", "Item.swift", "-o", "json")
        #expect(json.status == 8)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let findings = try #require(o["findings"] as? [[String: Any]])
        #expect(findings.map { "\($0["rule"] ?? "") \($0["line"] ?? ""):\($0["column"] ?? "")" }
                == ["unique-constraint 3:16", "attribute-optional-or-default 4:9", "relationship-optional 5:9"])
        #expect(findings.first?["file"] as? String == "Item.swift")
        #expect(findings.first?["severity"] as? String == "error")
        #expect(o["errors"] as? Int == 3)
        // Scripts get one tab-separated line per finding.
        let plain = try s.ck("model", "check", "Item.swift")
        #expect(plain.stdout.split(separator: "\n").first?.split(separator: "\t").prefix(4)
                == ["Item.swift:3:16", "error", "unique-constraint", "Item.code"])
    }

    /// A Core Data mirror of a SwiftData model (as Xcode keeps one marked usedWithSwiftData).
    static func mirror(count: String = "Integer 64", extra: String = "") -> String {
        """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" usedWithSwiftData="YES">
            <entity name="Note" representedClassName="Note" syncable="YES">
                <attribute name="title" optional="YES" attributeType="String" defaultValueString=""/>
                <attribute name="count" optional="YES" attributeType="\(count)" defaultValueString="0" usesScalarValueType="YES"/>
                <attribute name="created" optional="YES" attributeType="Date" usesScalarValueType="NO"/>\(extra)
            </entity>
        </model>
        """
    }

    /// Two declarations of one entity are one CD_ type: identical ones pass, ones that differ are named with how
    /// they differ (docs/model.md §1, issue 27).
    @Test func aCoreDataMirrorOfASwiftDataModelIsOneModel() throws {
        let s = try Sandbox()
        try FileManager.default.createDirectory(atPath: s.dir + "/Models/Notes.xcdatamodeld/Notes.xcdatamodel", withIntermediateDirectories: true)
        try s.write("""
            import SwiftData

            @Model final class Note {
                var title: String = ""
                var count: Int = 0
                var created: Date?
                init() {}
            }
            """, to: "Models/Note.swift")
        try s.write(Self.mirror(), to: "Models/Notes.xcdatamodeld/Notes.xcdatamodel/contents")
        let same = try s.ck("model", "check", "Models", "-o", "table")
        #expect(same.status == 0, "\(same.stdout)\(same.stderr)")
        #expect(same.stdout == "No problems: 1 model in 2 files.\n")
        let schema = try s.ck("model", "schema", "Models")
        #expect(schema.status == 0, "\(schema.stderr)")
        #expect(schema.stdout.hasPrefix("""
            DEFINE SCHEMA

                RECORD TYPE CD_Note (
                    CD_count        INT64 QUERYABLE SORTABLE,
                    CD_created      TIMESTAMP QUERYABLE SORTABLE,
                    CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
                    CD_title        STRING QUERYABLE SEARCHABLE SORTABLE,
                    "___createTime" TIMESTAMP,
            """), "\(schema.stdout)")

        // A mirror that types count as Double and adds body would make another CD_Note: an error saying so.
        try s.write(Self.mirror(count: "Double", extra: "\n        <attribute name=\"body\" optional=\"YES\" attributeType=\"String\"/>"),
                    to: "Models/Notes.xcdatamodeld/Notes.xcdatamodel/contents")
        let differs = try s.ck("model", "check", "Models", "-o", "table")
        #expect(differs.status == 8)
        #expect(differs.stdout == """
            Models/Notes.xcdatamodeld/Notes.xcdatamodel/contents:3:5: error: a second entity named Note (the first is at Models/Note.swift:3:20) differs from it: CD_body (STRING) only here; CD_count is DOUBLE here but INT64 there; both would be CD_Note [duplicate-entity]
              fix: declare Note once, or make both declare the same fields with the same types
            1 error, 0 warnings: 1 model in 2 files.

            """)
    }

    @Test func unparseableFilesAreReportedAndTheRestIsStillChecked() throws {
        let s = try Sandbox()
        try FileManager.default.createDirectory(atPath: s.dir + "/App/Old.xcdatamodel", withIntermediateDirectories: true)
        try s.write("@Model final class Half {\n    var a: String = \"open\n}\n", to: "App/Half.swift")
        try s.write("<model>\n  <entity name=\"A\">\n</model>\n", to: "App/Old.xcdatamodel/contents")
        try s.write(Self.broken, to: "App/Item.swift")
        let r = try s.ck("model", "check", "App", "-o", "table")
        #expect(r.status == 8)
        let heads = r.stdout.split(separator: "\n").filter { !$0.hasPrefix("  ") }
        #expect(heads == [
            "App/Half.swift:2:21: error: can't read this Swift source: unterminated string literal [unparseable]",
            "App/Item.swift:3:16: error: Item.code is marked unique, which CloudKit can't enforce [unique-constraint]",
            "App/Item.swift:4:9: error: Item.title is neither optional nor given a default value [attribute-optional-or-default]",
            "App/Item.swift:5:9: error: Item.tags is a non-optional to-many relationship (a default of [] does not make it optional) [relationship-optional]",
            "App/Old.xcdatamodel/contents:3:3: error: not well-formed XML: found </model>, expected </entity> to close <entity> at 2:3 [unparseable]",
            "5 errors, 0 warnings: 2 models in 3 files.",
        ])
        #expect(r.stderr.isEmpty)
        let missing = try s.ck("model", "check", "Nope.swift", "-o", "table")
        #expect(missing.status == 8)
        #expect(missing.stdout.hasPrefix("Nope.swift:1:1: error: no such file or directory [unreadable]\n"))
        #expect(try s.ck("model", "check").status == 64)
    }

    @Test func schemaImportThenSchemaDiffAndDeploy() throws {
        let s = try Sandbox()
        try s.write(Self.trips, to: "Trip.swift")
        let printed = try s.ck("model", "schema", "Trip.swift")
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout == Self.tripSchema)
        let imported = try s.ck("model", "schema", "Trip.swift", "--import", "-o", "table")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout.hasPrefix("+ record type CD_Stop\n"))
        #expect(imported.stderr == "ck: created zone com.apple.coredata.cloudkit.zone in the private database of default\n")
        // The development schema is now the model's, exactly as printed.
        #expect(try s.ck("schema", "export").stdout == Self.tripSchema)
        let diff = try s.ck("schema", "diff")
        #expect(diff.stdout.contains("+ field CD_Trip.CD_start TIMESTAMP QUERYABLE SORTABLE\n"))
        // Core Data's zone exists, and a mirrored record saves there.
        let saved = try s.ck("record", "save", "CD_Trip", "-z", "com.apple.coredata.cloudkit.zone", "--name", "T1",
                             "CD_entityName=Trip", "CD_name=Lisbon", "-o", "plain")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try s.ck("model", "schema", "Trip.swift", "--import", "-o", "table").stdout == "Schema unchanged.\n")
        #expect(try s.ck("schema", "deploy", "-y").status == 0)
        #expect(try s.ck("-e", "production", "schema", "export").stdout == Self.tripSchema)
    }

    @Test func modelsLimitsWhatSyncsAndNamesWhatItCantFind() throws {
        let s = try Sandbox()
        try s.write(Self.trips, to: "Trip.swift")
        // Trip alone syncs: its relationship to Stop reaches a model outside the synced set.
        let r = try s.ck("model", "check", "Trip.swift", "--models", "Trip", "-o", "table")
        #expect(r.status == 8)
        #expect(r.stdout.hasPrefix("Trip.swift:6:66: error: Trip.stops points to Stop, which is not synced with CloudKit [unsynced-relationship]\n"))
        let schema = try s.ck("model", "schema", "Trip.swift", "--models", "Stop")
        #expect(schema.status == 8)
        #expect(schema.stdout.contains("RECORD TYPE CD_Stop (") && !schema.stdout.contains("CD_Trip"))
        let unknown = try s.ck("model", "check", "Trip.swift", "--models", "Trip,Nope")
        #expect(unknown.status == 8)
        #expect(unknown.stderr == "ck: invalidArguments (12): --models names Nope, which the files don't declare\nhint: models found: Stop, Trip\n")
    }

    @Test func importIsRefusedWhenTheModelBreaksTheRules() throws {
        let s = try Sandbox()
        try s.write(Self.broken, to: "Item.swift")
        let r = try s.ck("model", "schema", "Item.swift", "--import")
        #expect(r.status == 8)
        #expect(r.stderr.contains("ck: Item.swift:4:9: error: Item.title is neither optional nor given a default value [attribute-optional-or-default]\n"))
        #expect(r.stderr.contains("the model breaks CloudKit's rules (listed above); nothing imported"))
        #expect(try s.ck("schema", "show", "-o", "plain").stdout.isEmpty)
    }

    @Test func diffAgainstProductionAndAnExportShowsWhatCantChange() throws {
        let s = try Sandbox()
        try s.write(Self.trips, to: "Trip.swift")
        #expect(try s.ck("model", "schema", "Trip.swift", "--import").status == 0)
        #expect(try s.ck("schema", "deploy", "-y").status == 0)
        #expect(try s.ck("model", "diff", "Trip.swift", "--against", "production", "-o", "table").stdout
                == "No differences: production has the model's schema.\n")
        // The next release retypes start, drops Stop.title and adds a note.
        try s.write(Self.trips.replacingOccurrences(of: "var start: Date?", with: "var start: String?\n    var note: String?")
                        .replacingOccurrences(of: "    var title: String = \"\"\n", with: ""), to: "Trip.swift")
        let r = try s.ck("model", "diff", "Trip.swift", "--against", "production", "-o", "table")
        #expect(r.status == 8)
        #expect(r.stdout == """
            + field CD_Trip.CD_note STRING QUERYABLE SEARCHABLE SORTABLE
            ! field CD_Trip.CD_start type TIMESTAMP -> STRING
            - field CD_Stop.CD_title STRING QUERYABLE SEARCHABLE SORTABLE

            """)
        #expect(r.stderr.contains("1 field marked ! production has with another type; CloudKit can't change a field's type"))
        #expect(r.stderr.contains("1 thing marked - production keeps though the model no longer has it: schemas are additive"))
        // The same against an exported file.
        try s.write(try s.ck("-e", "production", "schema", "export").stdout, to: "prod.ckdb")
        let file = try s.ck("model", "diff", "Trip.swift", "--against", "prod.ckdb", "-o", "json")
        #expect(file.status == 8)
        let o = try #require(try JSONSerialization.jsonObject(with: Data(file.stdout.utf8)) as? [String: Any])
        #expect((o["conflicts"] as? [[String: Any]])?.first?["field"] as? String == "CD_start")
        #expect((o["additions"] as? [[String: Any]])?.count == 1)
        #expect(try s.ck("model", "diff", "Trip.swift").status == 64)
    }
}
