import Testing
import CKCore
@testable import CKModel
@testable import CKSQLite
@testable import CKSchema
@testable import CKQuery
@testable import CKServer
@testable import CKDataModel

/// Generated schemas compared with .ckdb text written by hand from swiftdata-cloudkit.md §2–§7 and ckdb.md §1.5.
@Suite struct DataModelSchemaTests {
    /// Every export ends with the Users type (ckdb.md §1.7 a).
    static let users = CKDBFixtures.usersBlock

    static let types = """
    import Foundation
    import SwiftData

    enum Kind: String, Codable { case a, b }
    struct Point: Codable { var x: Double = 0; var y: Double = 0 }

    @Model final class Sample {
        var i: Int = 0
        var i16: Int16 = 0
        var i32: Int32 = 0
        var i64: Int64 = 0
        var flag: Bool = false
        var d: Double = 0
        var f: Float = 0
        var dec: Decimal = 0
        var when: Date = Date.now
        var s: String = ""
        var id = UUID()
        var link: URL?
        var blob: Data?
        @Attribute(.externalStorage) var photo: Data?
        var words: [String] = []
        var kind: Kind = .a
        var point: Point?
        var counts: [String: Int] = [:]
        @Attribute(.allowsCloudEncryption) var secret: String?
        @Attribute(.transformable(by: ColorTransformer.self)) var color: NSObject?
        init() {}
    }
    """

    @Test func everyAttributeTypeMapsToItsFieldType() throws {
        let f = try ModelFolder(["Types.swift": Self.types])
        let expected = """
        DEFINE SCHEMA

            RECORD TYPE CD_Sample (
                CD_blob         BYTES QUERYABLE SORTABLE,
                CD_color        BYTES QUERYABLE SORTABLE,
                CD_counts       BYTES QUERYABLE SORTABLE,
                CD_d            DOUBLE QUERYABLE SORTABLE,
                CD_dec          DOUBLE QUERYABLE SORTABLE,
                CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
                CD_f            DOUBLE QUERYABLE SORTABLE,
                CD_flag         INT64 QUERYABLE SORTABLE,
                CD_i            INT64 QUERYABLE SORTABLE,
                CD_i16          INT64 QUERYABLE SORTABLE,
                CD_i32          INT64 QUERYABLE SORTABLE,
                CD_i64          INT64 QUERYABLE SORTABLE,
                CD_id           STRING QUERYABLE SEARCHABLE SORTABLE,
                CD_kind         BYTES QUERYABLE SORTABLE,
                CD_link         STRING QUERYABLE SEARCHABLE SORTABLE,
                CD_photo        BYTES QUERYABLE SORTABLE,
                CD_point        BYTES QUERYABLE SORTABLE,
                CD_s            STRING QUERYABLE SEARCHABLE SORTABLE,
                CD_secret       ENCRYPTED STRING,
                CD_when         TIMESTAMP QUERYABLE SORTABLE,
                CD_words        BYTES QUERYABLE SORTABLE,
        \(ModelExpected.systemFields)
        \(ModelExpected.grants)

        \(Self.users)
        """
        let text = try f.schema()
        #expect(text == expected)
        #expect(CKDB.print(try CKDB.parse(text, file: "generated.ckdb")) == text, "the generated text round-trips byte for byte")
    }

    static let relationships = """
    @Model final class Author {
        var name: String = ""
        @Relationship(deleteRule: .cascade, inverse: \\Book.author) var books: [Book]? = []
        var profile: Profile?
        init() {}
    }
    @Model final class Book {
        var title: String = ""
        var author: Author?
        var genres: [Genre]? = []
        init() {}
    }
    @Model final class Genre {
        var name: String = ""
        @Relationship(inverse: \\Book.genres) var books: [Book]? = []
        init() {}
    }
    @Model final class Profile {
        var bio: String?
        @Relationship(inverse: \\Author.profile) var author: Author?
        init() {}
    }
    @Model class Media {
        var title: String = ""
        init() {}
    }
    @Model final class Podcast: Media {
        var minutes: Int = 0
    }
    """

    static let relationshipsSchema = """
    DEFINE SCHEMA

        RECORD TYPE CDMR (
            CD_entityNames   STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_recordNames   STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_relationships STRING QUERYABLE SEARCHABLE SORTABLE,
            "___createTime"  TIMESTAMP,
            "___createdBy"   REFERENCE,
            "___etag"        STRING,
            "___modTime"     TIMESTAMP,
            "___modifiedBy"  REFERENCE,
            "___recordID"    REFERENCE,
            GRANT WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world"
        );

        RECORD TYPE CD_Author (
            CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_name         STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_profile      STRING QUERYABLE SEARCHABLE SORTABLE,
    \(ModelExpected.systemFields)
    \(ModelExpected.grants)

        RECORD TYPE CD_Book (
            CD_author       STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_title        STRING QUERYABLE SEARCHABLE SORTABLE,
    \(ModelExpected.systemFields)
    \(ModelExpected.grants)

        RECORD TYPE CD_Genre (
            CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_name         STRING QUERYABLE SEARCHABLE SORTABLE,
    \(ModelExpected.systemFields)
    \(ModelExpected.grants)

        RECORD TYPE CD_Media (
            CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_minutes      INT64 QUERYABLE SORTABLE,
            CD_title        STRING QUERYABLE SEARCHABLE SORTABLE,
    \(ModelExpected.systemFields)
    \(ModelExpected.grants)

        RECORD TYPE CD_Profile (
            CD_author       STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_bio          STRING QUERYABLE SEARCHABLE SORTABLE,
            CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
    \(ModelExpected.systemFields)
    \(ModelExpected.grants)

    \(users)
    """

    @Test func relationshipsOfEachKindAndInheritanceMapAsCoreDataMirrorsThem() throws {
        // One-to-many: only the to-one side (Book.author) has a field. One-to-one: both sides. Many-to-many:
        // no field, CDMR link records. A sub-entity (Podcast) is stored in its root's type (CD_Media).
        let f = try ModelFolder(["Library.swift": Self.relationships])
        #expect(try f.check().isEmpty)
        let text = try f.schema()
        #expect(text == Self.relationshipsSchema)
        #expect(CKDB.print(try CKDB.parse(text, file: "generated.ckdb")) == text)
    }

    @Test func modelsLimitsTheSchemaToTheSyncedClasses() throws {
        let f = try ModelFolder(["Library.swift": Self.relationships])
        let text = try f.schema(models: ["Media"])
        #expect(text == """
            DEFINE SCHEMA

                RECORD TYPE CD_Media (
                    CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
                    CD_minutes      INT64 QUERYABLE SORTABLE,
                    CD_title        STRING QUERYABLE SEARCHABLE SORTABLE,
            \(ModelExpected.systemFields)
            \(ModelExpected.grants)

            \(Self.users)
            """)
    }

    @Test func initializeModeAddsAssetCompanionsAndMoveReceipts() throws {
        let f = try ModelFolder(["Trip.swift": """
            @Model final class Trip {
                var name: String = ""
                var start: Date?
                var id: UUID = UUID()
                var link: URL?
                var photo: Data?
                var tags: [String] = []
                init() {}
            }
            """])
        let expected = """
        DEFINE SCHEMA

            RECORD TYPE CD_Trip (
                CD_entityName          STRING QUERYABLE SEARCHABLE SORTABLE,
                CD_id                  STRING QUERYABLE SEARCHABLE SORTABLE,
                CD_link                STRING QUERYABLE SEARCHABLE SORTABLE,
                CD_moveReceipt         BYTES QUERYABLE SORTABLE,
                CD_moveReceipt_ckAsset ASSET,
                CD_name                STRING QUERYABLE SEARCHABLE SORTABLE,
                CD_name_ckAsset        ASSET,
                CD_photo               BYTES QUERYABLE SORTABLE,
                CD_photo_ckAsset       ASSET,
                CD_start               TIMESTAMP QUERYABLE SORTABLE,
                CD_tags                BYTES QUERYABLE SORTABLE,
                CD_tags_ckAsset        ASSET,
                "___createTime"        TIMESTAMP,
                "___createdBy"         REFERENCE,
                "___etag"              STRING,
                "___modTime"           TIMESTAMP,
                "___modifiedBy"        REFERENCE,
                "___recordID"          REFERENCE,
        \(ModelExpected.grants)

        \(Self.users)
        """
        let text = try f.schema(mode: .initialize)
        #expect(text == expected)
        #expect(CKDB.print(try CKDB.parse(text, file: "generated.ckdb")) == text)
    }

    @Test func coreDataSubEntitiesShareTheirRootRecordType() throws {
        let f = try ModelFolder(["Items.xcdatamodel/contents": """
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Item" isAbstract="YES"><attribute name="created" optional="YES" attributeType="Date"/></entity>
                <entity name="Photo" parentEntity="Item">
                    <attribute name="image" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES"/>
                    <attribute name="uri" optional="YES" attributeType="URI"/>
                </entity>
                <entity name="Memo" parentEntity="Item">
                    <attribute name="text" optional="YES" attributeType="String"/>
                    <attribute name="price" optional="YES" attributeType="Decimal"/>
                    <attribute name="level" optional="YES" attributeType="Integer 16" defaultValueString="0"/>
                    <attribute name="ratio" optional="YES" attributeType="Float" defaultValueString="0"/>
                    <attribute name="ok" optional="YES" attributeType="Boolean"/>
                </entity>
            </model>
            """])
        #expect(try f.check().isEmpty)
        #expect(try f.schema() == """
            DEFINE SCHEMA

                RECORD TYPE CD_Item (
                    CD_created      TIMESTAMP QUERYABLE SORTABLE,
                    CD_entityName   STRING QUERYABLE SEARCHABLE SORTABLE,
                    CD_image        BYTES QUERYABLE SORTABLE,
                    CD_level        INT64 QUERYABLE SORTABLE,
                    CD_ok           INT64 QUERYABLE SORTABLE,
                    CD_price        DOUBLE QUERYABLE SORTABLE,
                    CD_ratio        DOUBLE QUERYABLE SORTABLE,
                    CD_text         STRING QUERYABLE SEARCHABLE SORTABLE,
                    CD_uri          STRING QUERYABLE SEARCHABLE SORTABLE,
            \(ModelExpected.systemFields)
            \(ModelExpected.grants)

            \(Self.users)
            """)
    }

    @Test func aDiffSortsAdditionsConflictsAndWhatProductionKeeps() throws {
        let production = try CKDB.parse("""
            DEFINE SCHEMA
                RECORD TYPE CD_Trip (
                    CD_entityName STRING QUERYABLE SEARCHABLE SORTABLE,
                    CD_start STRING QUERYABLE SEARCHABLE SORTABLE,
                    CD_legacy BYTES QUERYABLE SORTABLE,
                    GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world"
                );
            """, file: "prod.ckdb")
        let f = try ModelFolder(["Trip.swift": "@Model final class Trip { var start: Date?; var name: String?; init() {} }"])
        let m = f.load()
        let d = ModelSchemaDiff(model: ModelSchemaMapper.schema(m, synced: try m.syncedEntities(models: nil), mode: .jit), against: production)
        #expect(d.additions.map(\.summary) == ["+ field CD_Trip.CD_name STRING QUERYABLE SEARCHABLE SORTABLE"])
        #expect(d.conflicts.map(\.summary) == ["! field CD_Trip.CD_start type STRING -> TIMESTAMP"])
        #expect(d.kept.map(\.summary) == ["- field CD_Trip.CD_legacy BYTES QUERYABLE SORTABLE"])
        #expect(d.other.isEmpty)
    }
}
