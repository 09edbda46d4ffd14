import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKDataModel

@Suite struct DataModelRulesTests {
    static let shelves = """
    import SwiftData
    @Model final class Shelf {
        @Attribute(.unique) var code: String = ""
        var label: String
        var books: [Book] = []
        @Relationship(deleteRule: .deny) var owner: Owner?
        var lonely: Lamp?
        @Attribute(.transformable(by: ColorTransformer.self)) var tint: NSObject?
        init() { label = "" }
    }
    @Model final class Book {
        #Unique<Book>([\\.isbn])
        var isbn: String = ""
        var shelf: Shelf?
        init() {}
    }
    @Model final class Owner {
        var shelves: [Shelf]? = []
        init() {}
    }
    @Model final class Lamp {
        var watts: Int = 0
        var a: Shelf?
        var b: Shelf?
        init() {}
    }
    """

    @Test func everySwiftDataRuleIsReportedWhereItIsBroken() throws {
        let f = try ModelFolder(["Shelf.swift": Self.shelves])
        let findings = try f.check()
        #expect(findings.brief == [
            "error unique-constraint Shelf.code 3:16",
            "error attribute-optional-or-default Shelf.label 4:9",
            "error relationship-optional Shelf.books 5:9",
            "error delete-rule Shelf.owner 6:19",
            "warning relationship-inverse Shelf.lonely 7:9",
            "warning value-transformer Shelf.tint 8:63",
            "error unique-constraint Book 12:5",
            "warning relationship-inverse Lamp.a 23:9",
            "warning relationship-inverse Lamp.b 24:9",
        ])
        let byRule = Dictionary(findings.map { ($0.rule + " " + $0.subject, $0) }) { a, _ in a }
        #expect(byRule["attribute-optional-or-default Shelf.label"]?.message ==
                "CloudKit integration requires that all attributes be optional, or have a default value set. The following attributes are marked non-optional but do not have a default value: Shelf.label")
        #expect(byRule["attribute-optional-or-default Shelf.label"]?.fix?.hasPrefix("give it a default in its declaration: `var label: String = \"\"`, or make it optional: `var label: String?`") == true)
        #expect(byRule["relationship-optional Shelf.books"]?.fix == "make books optional: `var books: [Book]? = []`")
        #expect(byRule["relationship-optional Shelf.books"]?.message == "CloudKit integration requires that all relationships be optional, the following are not: Shelf.books")
        #expect(byRule["unique-constraint Book"]?.message == "CloudKit integration does not support unique constraints. The following entities are constrained: Book")
        #expect(byRule["delete-rule Shelf.owner"]?.message == "The following relationships are configured with unsupported delete rules: Shelf.owner")
        #expect(byRule["relationship-inverse Lamp.a"]?.message == "CloudKit integration requires that all relationships have an inverse, the following do not: Lamp.a")
        #expect(byRule["value-transformer Shelf.tint"]?.summary.contains("ColorTransformer") == true)
    }

    @Test func modelsLeftOutOfTheSyncedSetBreakRelationshipsToThem() throws {
        let f = try ModelFolder(["Shelf.swift": Self.shelves])
        let findings = try f.check(models: ["Shelf", "Book", "Lamp"])
        #expect(findings.brief.contains("error unsynced-relationship Shelf.owner 6:42"))
        #expect(!findings.contains { $0.subject.hasPrefix("Owner") })
        #expect(findings.first { $0.rule == "unsynced-relationship" }?.message
                == "CloudKit integration does not allow relationships to objects that aren't sync'd. Shelf.owner")
        let unknown = ckError { _ = try f.check(models: ["Shelf", "Nope"]) }
        #expect(unknown?.reason == "--models names Nope, which the files don't declare")
        #expect(unknown?.hint == "models found: Book, Lamp, Owner, Shelf")
    }

    @Test func aNamedInverseMustExistAndNamesMustSuitCloudKit() throws {
        let f = try ModelFolder(["A.swift": """
            @Model final class Crate {
                @Relationship(inverse: \\Apple.nothing) var apples: [Apple]? = []
                var café: String = ""
                init() {}
            }
            @Model final class Apple {
                var crate: Crate?
                init() {}
            }
            """])
        let findings = try f.check()
        #expect(findings.brief == ["error relationship-inverse Crate.apples 2:48", "error name Crate.café 3:9", "warning relationship-inverse Apple.crate 7:9"])
        #expect(findings.first?.summary == "Crate.apples names the inverse nothing, which Apple doesn't have")
    }

    @Test func aCleanModelHasNoFindings() throws {
        let f = try ModelFolder(["A.swift": """
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
            """])
        #expect(try f.check().isEmpty)
    }

    static let coreData = """
    <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
    <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
        <entity name="Note" representedClassName="Note" syncable="YES">
            <attribute name="title" attributeType="String"/>
            <attribute name="count" attributeType="Integer 64" defaultValueString="0" usesScalarValueType="YES"/>
            <attribute name="blob" optional="YES" attributeType="Undefined"/>
            <attribute name="ref" optional="YES" attributeType="Object ID"/>
            <attribute name="colors" optional="YES" attributeType="Transformable" valueTransformerName="ColorTransformer"/>
            <attribute name="tags" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData"/>
            <attribute name="body" optional="YES" attributeType="String" maxValueString="700001"/>
            <attribute name="mood" optional="YES" attributeType="Fancy"/>
            <relationship name="folder" maxCount="1" deletionRule="Deny" destinationEntity="Folder" inverseName="notes" inverseEntity="Folder"/>
            <relationship name="links" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Local"/>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="title"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="Folder" representedClassName="Folder" syncable="YES">
            <relationship name="notes" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Note" inverseName="folder" inverseEntity="Note"/>
        </entity>
        <entity name="Local" representedClassName="Local" syncable="YES">
            <attribute name="x" optional="YES" attributeType="Double" defaultValueString="0.0" usesScalarValueType="YES"/>
        </entity>
        <configuration name="Cloud" usedWithCloudKit="YES">
            <memberEntity name="Note"/>
            <memberEntity name="Folder"/>
        </configuration>
        <configuration name="Local">
            <memberEntity name="Local"/>
        </configuration>
    </model>
    """

    @Test func everyCoreDataRuleIsReportedAtItsElement() throws {
        let f = try ModelFolder(["Notes.xcdatamodel/contents": Self.coreData])
        let findings = try f.check()
        let file = "./Notes.xcdatamodel/contents"
        #expect(findings.allSatisfy { $0.location.file == file })
        #expect(findings.brief == [
            "warning record-size Note 3:5",
            "error attribute-optional-or-default Note.title 4:9",
            "error unsupported-attribute-type Note.blob 6:9",
            "error unsupported-attribute-type Note.ref 7:9",
            "warning value-transformer Note.colors 8:9",
            "error unknown-attribute-type Note.mood 11:9",
            "error delete-rule Note.folder 12:9",
            "error relationship-optional Note.folder 12:9",
            "error ordered-relationship Note.links 13:9",
            "error relationship-inverse Note.links 13:9",
            "error unsynced-relationship Note.links 13:9",
            "error unique-constraint Note 15:13",
        ])
        let size = try #require(findings.first)
        #expect(size.summary == "a CD_Note record with every value at its maximum length is 700049 bytes, over 700000")
        #expect(findings.first { $0.rule == "ordered-relationship" }?.message
                == "CloudKit integration does not support ordered relationships. The following relationships are marked ordered: Note.links")
        #expect(findings.first { $0.rule == "unsupported-attribute-type" }?.message
                == "CloudKit integration does not support all attribute types. The following entities have attributes of an unsupported type: Note.blob")
    }
}
