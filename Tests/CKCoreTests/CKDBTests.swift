import Testing
import CKCore
import CKTestSupport
@testable import CKModel
@testable import CKSQLite
@testable import CKSchema
@testable import CKServer
@testable import CKDataModel

/// Fixture texts: Apple's sample exports (ckdb.md §1.7) verbatim, and hand-written styles (§1.6, §7).
enum CKDBFixtures {
    static let usersBlock = #"""
        RECORD TYPE Users (
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE,
            roles           LIST<INT64>,
            GRANT WRITE TO "_creator",
            GRANT READ TO "_world"
        );

    """#

    /// apple/sample-cloudkit-tooling CKTool-JS/travis-ci/schemas/empty.ckdb.
    static let empty = "DEFINE SCHEMA\n\n" + usersBlock

    /// apple/sample-cloudkit-tooling CKTool-JS/schema-mgmt/schemas/coins_v1.ckdb.
    static let coins = #"""
    DEFINE SCHEMA

        RECORD TYPE Coins (
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE QUERYABLE,
            composition     LIST<REFERENCE>,
            currencyCode    STRING QUERYABLE SORTABLE,
            issueYear       INT64,
            nominalValue    DOUBLE QUERYABLE SORTABLE,
            GRANT WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world"
        );

        RECORD TYPE Components (
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE QUERYABLE,
            material        STRING QUERYABLE SORTABLE,
            percentage      DOUBLE,
            GRANT WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world"
        );

        RECORD TYPE Currencies (
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE,
            countryCode     STRING SORTABLE,
            currencyCode    STRING QUERYABLE SORTABLE,
            name            STRING,
            GRANT WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world"
        );


    """# + usersBlock

    /// Hand-written: quoted names, all comment styles, blank lines, options out of order and repeated, partial
    /// system fields, repeated grants, a type with no grants, 2-space indent, column-0 RECORD TYPE, tabs,
    /// unsorted types, `LIST < … >`, a trailing comma, lowercase keywords and trailing blank lines.
    static let handWritten = """
    // Feeds, in the style of CelestraCloud / BushelCloud / Arterious.
    DEFINE SCHEMA

    RECORD TYPE Feed (
      "___recordID" REFERENCE QUERYABLE,
      "feedURL" STRING QUERYABLE SORTABLE,   // quoted user field
      "title" STRING SEARCHABLE, // Feed title

      -- SQL-style comment
      lastFetched TIMESTAMP SORTABLE QUERYABLE SORTABLE,
      /* a block
         comment */
      tags LIST < STRING > QUERYABLE,
      GRANT CREATE TO "_icloud",
      GRANT WRITE TO "_icloud",
      GRANT READ TO "_world",
      GRANT WRITE TO "_creator"
    );

        record type Article (
            "___createTime" timestamp sortable,
    \tbody\tSTRING,
            "grant" INT64,
            feed REFERENCE Queryable,
            Type STRING,
        );

    RECORD TYPE ScheduleState ( payload ENCRYPTED BYTES );



    """

    /// The canonical export of `handWritten`.
    static let handWrittenCanonical = #"""
    DEFINE SCHEMA

        RECORD TYPE Article (
            Type            STRING,
            "___createTime" TIMESTAMP SORTABLE,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE,
            body            STRING,
            feed            REFERENCE QUERYABLE,
            "grant"         INT64
        );

        RECORD TYPE Feed (
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE QUERYABLE,
            feedURL         STRING QUERYABLE SORTABLE,
            lastFetched     TIMESTAMP QUERYABLE SORTABLE,
            tags            LIST<STRING> QUERYABLE,
            title           STRING SEARCHABLE,
            GRANT WRITE TO "_creator",
            GRANT CREATE, WRITE TO "_icloud",
            GRANT READ TO "_world"
        );

        RECORD TYPE ScheduleState (
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE,
            payload         ENCRYPTED BYTES
        );


    """# + usersBlock

    /// Apple's documented example style (custom role, declared order, no padding).
    static let appleExample = """
    DEFINE SCHEMA
        CREATE ROLE DeptManager;
        RECORD TYPE Department (
            "___recordID" REFERENCE QUERYABLE,
            name STRING SEARCHABLE QUERYABLE,
            employees LIST<REFERENCE>,
            GRANT WRITE, CREATE, READ TO DeptManager,
            GRANT READ TO "_world"
        );
        RECORD TYPE Employee (
            name STRING,
            phone LIST<STRING>,
            department REFERENCE QUERYABLE,
            GRANT WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world"
        );
    """

    /// A schema using every data type, custom roles and indexed system fields, in canonical form.
    static let rich: Schema = {
        var everything = RecordTypeSchema(name: "Everything")
        for base in FieldType.Base.allCases {
            everything.fields["v" + base.rawValue] = FieldSchema(type: FieldType(base))
            everything.fields["l" + base.rawValue] = FieldSchema(type: FieldType(base, list: true))
        }
        for base in [FieldType.Base.bytes, .string, .double, .int64, .location, .timestamp] {
            everything.fields["e" + base.rawValue] = FieldSchema(type: FieldType(base), encrypted: true)
        }
        everything.fields["eList"] = FieldSchema(type: FieldType(.string, list: true), encrypted: true)
        everything.fields["num"] = FieldSchema(type: .double, isNumber: true)
        everything.fields["numInt"] = FieldSchema(type: .int64, isNumber: true, preferred: .int64)
        everything.fields["numDouble"] = FieldSchema(type: .double, queryable: true, sortable: true, isNumber: true, preferred: .double)
        everything.fields["Title"] = FieldSchema(type: .string, queryable: true, sortable: true, searchable: true)
        everything.fields["queryable"] = FieldSchema(type: .string, searchable: true)
        everything.fields["Grant"] = FieldSchema(type: .int64)
        everything.fields["___createTime"] = FieldSchema(type: .timestamp, sortable: true)
        everything.fields["___recordID"] = FieldSchema(type: .reference, queryable: true)
        everything.grants = [
            Grant(role: "_creator", permissions: [.read, .create, .write]),
            Grant(role: "_icloud", permissions: [.create]),
            Grant(role: "_world", permissions: [.read]),
            Grant(role: "Admin", permissions: [.write]),
            Grant(role: "moderator", permissions: [.create, .write]),
            Grant(role: "test role", permissions: [.read]),
        ]
        let users = RecordTypeSchema(name: "Users", fields: [
            "roles": FieldSchema(type: FieldType(.int64, list: true)),
            "nickname": FieldSchema(type: .string, queryable: true),
            "___recordID": FieldSchema(type: .reference, queryable: true),
        ], grants: [Grant(role: "_creator", permissions: [.read, .write]), Grant(role: "moderator", permissions: [.read])])
        let bare = RecordTypeSchema(name: "Bare")
        return Schema(roles: ["Admin", "moderator", "test role"],
                      recordTypes: ["Everything": everything, "Users": users, "Bare": bare])
    }()

    static let richCanonical = #"""
    DEFINE SCHEMA

        CREATE ROLE Admin;
        CREATE ROLE moderator;
        CREATE ROLE "test role";

        RECORD TYPE Bare (
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE
        );

        RECORD TYPE Everything (
            "Grant"         INT64,
            Title           STRING QUERYABLE SEARCHABLE SORTABLE,
            "___createTime" TIMESTAMP SORTABLE,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE QUERYABLE,
            eList           LIST<ENCRYPTED STRING>,
            ebytes          ENCRYPTED BYTES,
            edouble         ENCRYPTED DOUBLE,
            eint64          ENCRYPTED INT64,
            elocation       ENCRYPTED LOCATION,
            estring         ENCRYPTED STRING,
            etimestamp      ENCRYPTED TIMESTAMP,
            lasset          LIST<ASSET>,
            lbytes          LIST<BYTES>,
            ldouble         LIST<DOUBLE>,
            lint64          LIST<INT64>,
            llocation       LIST<LOCATION>,
            lreference      LIST<REFERENCE>,
            lstring         LIST<STRING>,
            ltimestamp      LIST<TIMESTAMP>,
            num             NUMBER,
            numDouble       NUMBER PREFERRED AS DOUBLE QUERYABLE SORTABLE,
            numInt          NUMBER PREFERRED AS INT64,
            "queryable"     STRING SEARCHABLE,
            vasset          ASSET,
            vbytes          BYTES,
            vdouble         DOUBLE,
            vint64          INT64,
            vlocation       LOCATION,
            vreference      REFERENCE,
            vstring         STRING,
            vtimestamp      TIMESTAMP,
            GRANT READ, CREATE, WRITE TO "_creator",
            GRANT CREATE TO "_icloud",
            GRANT READ TO "_world",
            GRANT WRITE TO Admin,
            GRANT CREATE, WRITE TO moderator,
            GRANT READ TO "test role"
        );

        RECORD TYPE Users (
            "___createTime" TIMESTAMP,
            "___createdBy"  REFERENCE,
            "___etag"       STRING,
            "___modTime"    TIMESTAMP,
            "___modifiedBy" REFERENCE,
            "___recordID"   REFERENCE QUERYABLE,
            nickname        STRING QUERYABLE,
            roles           LIST<INT64>,
            GRANT READ, WRITE TO "_creator",
            GRANT READ TO moderator
        );

    """#
}

/// The CKError `CKDB.parse` throws for `text`, or nil when it parses.
private func parseError(_ text: String) -> CKError? {
    do throws(CKError) {
        _ = try CKDB.parse(text, file: "schema.ckdb")
        return nil
    } catch {
        return error
    }
}


@Suite struct CKDBTests {
    // MARK: Apple's exports round-trip byte for byte

    @Test func emptyExportRoundTrips() throws {
        let schema = try CKDB.parse(CKDBFixtures.empty, file: "empty.ckdb")
        #expect(schema.roles.isEmpty)
        #expect(schema.recordTypes.keys.sorted() == ["Users"])
        let users = try #require(schema.recordTypes["Users"])
        #expect(users.fields == ["roles": FieldSchema(type: FieldType(.int64, list: true))])
        #expect(users.grants == [Grant(role: "_creator", permissions: [.write]), Grant(role: "_world", permissions: [.read])])
        #expect(CKDB.print(schema) == CKDBFixtures.empty)
        // The empty schema prints the same default Users block.
        #expect(CKDB.print(Schema()) == CKDBFixtures.empty)
    }

    @Test func coinsExportRoundTrips() throws {
        let schema = try CKDB.parse(CKDBFixtures.coins, file: "coins_v1.ckdb")
        #expect(schema.recordTypes.keys.sorted() == ["Coins", "Components", "Currencies", "Users"])
        let coins = try #require(schema.recordTypes["Coins"])
        #expect(coins.fields.keys.sorted() == ["___recordID", "composition", "currencyCode", "issueYear", "nominalValue"])
        #expect(coins.fields["___recordID"] == FieldSchema(type: .reference, queryable: true))
        #expect(coins.fields["composition"] == FieldSchema(type: FieldType(.reference, list: true)))
        #expect(coins.fields["nominalValue"] == FieldSchema(type: .double, queryable: true, sortable: true))
        #expect(coins.grants == RecordTypeSchema.defaultGrants)
        #expect(schema.recordTypes["Currencies"]?.fields["countryCode"] == FieldSchema(type: .string, sortable: true))
        #expect(CKDB.print(schema) == CKDBFixtures.coins)
    }

    @Test func bytesOverloadParsesUTF8() throws {
        let schema = try CKDB.parse(Array(CKDBFixtures.coins.utf8), file: "coins_v1.ckdb")
        #expect(CKDB.print(schema) == CKDBFixtures.coins)
    }

    // MARK: Every type, custom roles, quoting

    @Test func richSchemaPrintsCanonically() throws {
        let printed = CKDB.print(CKDBFixtures.rich)
        #expect(printed == CKDBFixtures.richCanonical)
        let reparsed = try CKDB.parse(printed, file: "rich.ckdb")
        #expect(reparsed == CKDBFixtures.rich)
        #expect(CKDB.print(reparsed) == printed)
    }

    @Test func typesParseToTheModel() throws {
        let text = """
        DEFINE SCHEMA
        RECORD TYPE T (
            a NUMBER PREFERRED AS INT64, b number, c LIST<ENCRYPTED STRING>, d ENCRYPTED LOCATION,
            e list<number preferred as double>, f ASSET, "g" LIST<  ASSET  > SORTABLE
        );
        """
        let t = try #require(try CKDB.parse(text, file: "t.ckdb").recordTypes["T"])
        #expect(t.fields["a"] == FieldSchema(type: .int64, isNumber: true, preferred: .int64))
        #expect(t.fields["b"] == FieldSchema(type: .double, isNumber: true))
        #expect(t.fields["c"] == FieldSchema(type: FieldType(.string, list: true), encrypted: true))
        #expect(t.fields["d"] == FieldSchema(type: .location, encrypted: true))
        #expect(t.fields["e"] == FieldSchema(type: FieldType(.double, list: true), isNumber: true, preferred: .double))
        #expect(t.fields["f"] == FieldSchema(type: .asset))
        #expect(t.fields["g"] == FieldSchema(type: FieldType(.asset, list: true), sortable: true))
        #expect(t.grants.isEmpty)
        for (name, f) in t.fields { #expect(FieldSchema(schemaTypeName: f.schemaTypeName) != nil, "\(name)") }
    }

    // MARK: Hand-written styles

    @Test func handWrittenPrintsCanonically() throws {
        let schema = try CKDB.parse(CKDBFixtures.handWritten, file: "hand.ckdb")
        let feed = try #require(schema.recordTypes["Feed"])
        #expect(feed.grants == [Grant(role: "_creator", permissions: [.write]),
                                Grant(role: "_icloud", permissions: [.create, .write]),
                                Grant(role: "_world", permissions: [.read])])
        #expect(feed.fields["lastFetched"] == FieldSchema(type: .timestamp, queryable: true, sortable: true))
        // Unindexed system fields are implicit; indexed ones are kept.
        #expect(schema.recordTypes["Article"]?.fields["___createTime"] == FieldSchema(type: .timestamp, sortable: true))
        #expect(schema.recordTypes["ScheduleState"]?.grants == [])
        #expect(schema.recordTypes["Users"] == nil)
        let printed = CKDB.print(schema)
        #expect(printed == CKDBFixtures.handWrittenCanonical)
        #expect(CKDB.print(try CKDB.parse(printed, file: "again.ckdb")) == printed)
    }

    @Test func appleDocumentedExampleParses() throws {
        let schema = try CKDB.parse(CKDBFixtures.appleExample, file: "apple.ckdb")
        #expect(schema.roles == ["DeptManager"])
        let dept = try #require(schema.recordTypes["Department"])
        #expect(dept.grants == [Grant(role: "_world", permissions: [.read]),
                                Grant(role: "DeptManager", permissions: [.read, .create, .write])])
        #expect(dept.fields["name"] == FieldSchema(type: .string, queryable: true, searchable: true))
        let printed = CKDB.print(schema)
        #expect(printed.contains("    CREATE ROLE DeptManager;\n\n    RECORD TYPE Department (\n"))
        #expect(printed.contains("        GRANT READ TO \"_world\",\n        GRANT READ, CREATE, WRITE TO DeptManager\n    );"))
        #expect(CKDB.print(try CKDB.parse(printed, file: "again.ckdb")) == printed)
    }

    @Test func lenientInputs() throws {
        // CRLF line endings, a byte-order mark, role declared after its use, no whitespace at all.
        let crlf = "\u{FEFF}DEFINE SCHEMA\r\n  RECORD TYPE A (\r\n    x STRING,\r\n    GRANT READ TO r\r\n  );\r\n  CREATE ROLE r;\r\n"
        let a = try CKDB.parse(crlf, file: "crlf.ckdb")
        #expect(a.recordTypes["A"]?.grants == [Grant(role: "r", permissions: [.read])])
        let dense = #"DEFINE SCHEMA RECORD TYPE A(x STRING,GRANT READ,READ TO"_world",);CREATE ROLE"a b";"#
        let b = try CKDB.parse(dense, file: "dense.ckdb")
        #expect(b.roles == ["a b"])
        #expect(b.recordTypes["A"]?.grants == [Grant(role: "_world", permissions: [.read])])
        // Keywords may be field names; an empty record type is allowed.
        let keywords = "define schema record type List ( type STRING, list LIST<INT64>, string STRING, \"to\" INT64 ); RECORD TYPE E ();"
        let c = try CKDB.parse(keywords, file: "kw.ckdb")
        #expect(c.recordTypes["List"]?.fields.keys.sorted() == ["list", "string", "to", "type"])
        #expect(c.recordTypes["E"] == RecordTypeSchema(name: "E"))
    }

    // MARK: Errors

    struct ErrorCase: Sendable, CustomTestStringConvertible {
        var name: String
        var text: String
        var line: Int
        var column: Int
        var words: [String]
        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(name: "unknown type", text: "DEFINE SCHEMA\n\n    RECORD TYPE Item (\n        name    BADTYPE,\n        GRANT READ TO \"_world\"\n    );\n",
                  line: 4, column: 17, words: ["unknown type 'BADTYPE'", "expected a data type (ASSET, BYTES"]),
        ErrorCase(name: "missing ; before next type", text: "DEFINE SCHEMA\n    RECORD TYPE A (\n        x STRING\n    )\n    RECORD TYPE B (\n        y STRING\n    );\n",
                  line: 5, column: 5, words: ["found 'RECORD'", "expected ';' after the record type"]),
        ErrorCase(name: "missing ; at end", text: "DEFINE SCHEMA\nRECORD TYPE A (x STRING)\n\n",
                  line: 2, column: 25, words: ["end of file", "expected ';' after the record type"]),
        ErrorCase(name: "missing ) before ;", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  x STRING,\n  y INT64\n;\n",
                  line: 5, column: 1, words: ["expected ')' to close record type 'A'"]),
        ErrorCase(name: "missing ) before next type", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  x STRING\nRECORD TYPE B (y STRING);\n",
                  line: 4, column: 1, words: ["found 'RECORD'", "expected ')'"]),
        ErrorCase(name: "unterminated comment", text: "DEFINE SCHEMA\n  /* never closed\nRECORD TYPE A (x STRING);\n",
                  line: 2, column: 3, words: ["unterminated comment", "expected '*/'"]),
        ErrorCase(name: "unterminated quoted name", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  \"title STRING\n);\n",
                  line: 3, column: 3, words: ["unterminated quoted name", "expected a closing '\"'"]),
        ErrorCase(name: "reserved word as field", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  sortable STRING\n);\n",
                  line: 3, column: 3, words: ["reserved word 'sortable'", "expected a field name"]),
        ErrorCase(name: "reserved word as role", text: "DEFINE SCHEMA\nCREATE ROLE Preferred;\n",
                  line: 2, column: 13, words: ["reserved word 'Preferred'", "expected a role name"]),
        ErrorCase(name: "ENCRYPTED REFERENCE", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  owner ENCRYPTED REFERENCE\n);\n",
                  line: 3, column: 19, words: ["ENCRYPTED REFERENCE is not allowed"]),
        ErrorCase(name: "ENCRYPTED ASSET", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  f LIST<ENCRYPTED ASSET>\n);\n",
                  line: 3, column: 20, words: ["ENCRYPTED ASSET is not allowed"]),
        ErrorCase(name: "duplicate field", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  x STRING,\n  x INT64\n);\n",
                  line: 4, column: 3, words: ["duplicate field 'x'", "first declared at 3:3"]),
        ErrorCase(name: "system field retyped", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  \"___etag\" INT64 QUERYABLE\n);\n",
                  line: 3, column: 13, words: ["declared as INT64, expected STRING", "can't change the type of these system fields"]),
        ErrorCase(name: "grant to unknown role", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  x STRING,\n  GRANT READ TO editors\n);\n",
                  line: 4, column: 17, words: ["unknown role 'editors'", "CREATE ROLE"]),
        ErrorCase(name: "two roles in one GRANT", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  GRANT CREATE TO \"_creator\", \"_icloud\"\n);\n",
                  line: 3, column: 31, words: ["'\"_icloud\"'", "one role per GRANT"]),
        ErrorCase(name: "reserved CKRecord property", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  recordID STRING\n);\n",
                  line: 3, column: 3, words: ["field name 'recordID' is reserved"]),
        ErrorCase(name: "underscore field", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  \"_private\" STRING\n);\n",
                  line: 3, column: 3, words: ["'_private' is reserved"]),
        ErrorCase(name: "unquoted system field", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  ___recordID REFERENCE QUERYABLE\n);\n",
                  line: 3, column: 3, words: ["found '___recordID'", "expected a field name"]),
        ErrorCase(name: "duplicate record type", text: "DEFINE SCHEMA\nRECORD TYPE A (x STRING);\nRECORD TYPE A (y STRING);\n",
                  line: 3, column: 13, words: ["duplicate record type 'A'"]),
        ErrorCase(name: "duplicate role", text: "DEFINE SCHEMA\nCREATE ROLE r;\nCREATE ROLE \"r\";\n",
                  line: 3, column: 13, words: ["duplicate role", "first created at 2:13"]),
        ErrorCase(name: "built-in role created", text: "DEFINE SCHEMA\nCREATE ROLE \"_world\";\n",
                  line: 2, column: 13, words: ["expected a new role name"]),
        ErrorCase(name: "invalid record type name", text: "DEFINE SCHEMA\nRECORD TYPE \"My Type\" (x STRING);\n",
                  line: 2, column: 13, words: ["invalid record type 'My Type'"]),
        ErrorCase(name: "list of lists", text: "DEFINE SCHEMA\nRECORD TYPE A (x LIST<LIST<INT64>>);\n",
                  line: 2, column: 23, words: ["list inside a list"]),
        ErrorCase(name: "unknown option", text: "DEFINE SCHEMA\nRECORD TYPE A (x STRING INDEXED);\n",
                  line: 2, column: 25, words: ["unknown field option 'INDEXED'", "QUERYABLE, SORTABLE, SEARCHABLE"]),
        ErrorCase(name: "missing comma", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  x STRING QUERYABLE\n  y INT64\n);\n",
                  line: 4, column: 3, words: ["found 'y'", "expected ',' before the next item"]),
        ErrorCase(name: "missing type", text: "DEFINE SCHEMA\nRECORD TYPE A (\n  x\n);\n",
                  line: 4, column: 1, words: ["found ')'", "expected a data type"]),
        ErrorCase(name: "bad PREFERRED AS", text: "DEFINE SCHEMA\nRECORD TYPE A (x NUMBER PREFERRED AS STRING);\n",
                  line: 2, column: 38, words: ["expected INT64 or DOUBLE"]),
        ErrorCase(name: "missing DEFINE SCHEMA", text: "RECORD TYPE A (x STRING);\n",
                  line: 1, column: 1, words: ["found 'RECORD'", "expected DEFINE SCHEMA"]),
        ErrorCase(name: "empty file", text: "", line: 1, column: 1, words: ["end of file", "expected DEFINE SCHEMA"]),
        ErrorCase(name: "stray character", text: "DEFINE SCHEMA\nRECORD TYPE A (x STRING = 1);\n",
                  line: 2, column: 25, words: ["unexpected character '='"]),
        ErrorCase(name: "control character", text: "DEFINE SCHEMA\n\u{1}",
                  line: 2, column: 1, words: ["unexpected character U+0001"]),
        ErrorCase(name: "replacement character", text: "DEFINE SCHEMA\nCREATE ROLE \"a\u{FFFD}b\";\n",
                  line: 2, column: 15, words: ["not valid UTF-8"]),
        ErrorCase(name: "missing permission", text: "DEFINE SCHEMA\nRECORD TYPE A (GRANT TO \"_world\");\n",
                  line: 2, column: 22, words: ["found 'TO'", "expected READ, CREATE or WRITE"]),
        ErrorCase(name: "garbage after statements", text: "DEFINE SCHEMA\nRECORD TYPE A (x STRING);\n;\n",
                  line: 3, column: 1, words: ["found ';'", "expected CREATE ROLE, RECORD TYPE or the end of the file"]),
    ]

    @Test(arguments: errorCases)
    func errors(_ c: ErrorCase) throws {
        let e = try #require(parseError(c.text))
        #expect(e.code == .invalidArguments)
        #expect(e.reason.hasPrefix("schema.ckdb:\(c.line):\(c.column): "), "\(e.reason)")
        #expect(e.details["line"]?.int64Value == Int64(c.line))
        #expect(e.details["column"]?.int64Value == Int64(c.column))
        #expect(e.details["path"]?.stringValue == "schema.ckdb")
        #expect(e.hint != nil)
        for w in c.words { #expect(e.reason.contains(w), "\(e.reason) lacks \(w)") }
    }

    @Test func invalidUTF8Bytes() throws {
        let bytes = Array("DEFINE SCHEMA\nRECORD TYPE A (\n  na".utf8) + [0xFF, 0xC3] + Array("me STRING\n);\n".utf8)
        do throws(CKError) {
            _ = try CKDB.parse(bytes, file: "bad.ckdb")
            Issue.record("invalid UTF-8 parsed")
        } catch {
            #expect(error.reason.hasPrefix("bad.ckdb:3:5: "), "\(error.reason)")
            #expect(error.reason.contains("not valid UTF-8"))
        }
    }

    // MARK: Fuzz

    @Test func mutatedInputsNeverCrash() throws {
        var rng = SeededRNG(seed: 0x00C0_FFEE_5EED_2026)
        let seeds = [CKDBFixtures.empty, CKDBFixtures.coins, CKDBFixtures.handWritten, CKDBFixtures.appleExample,
                     CKDBFixtures.richCanonical].map { Array($0.utf8) }
        // Bytes that steer mutations toward the grammar's interesting corners.
        let interesting = Array("\"(),;<>/*-_ \n\tAZaz09".utf8) + [0x00, 0x80, 0xC3, 0xE2, 0xEF, 0xFF]
        var parsed = 0, failed = 0
        for _ in 0..<2_000 {
            var bytes = seeds[rng.below(seeds.count)]
            for _ in 0...rng.below(4) {
                let at = rng.below(bytes.count + 1)
                switch rng.below(4) {
                case 0 where at < bytes.count: bytes[at] ^= UInt8(truncatingIfNeeded: 1 << rng.below(8))
                case 1: bytes.insert(rng.below(2) == 0 ? interesting[rng.below(interesting.count)] : UInt8(truncatingIfNeeded: rng.next()), at: at)
                case 2 where at < bytes.count: bytes.removeSubrange(at..<min(bytes.count, at + 1 + rng.below(12)))
                default:
                    // Duplicate a chunk elsewhere (repeats fields, grants, types).
                    let from = rng.below(bytes.count), len = rng.below(40)
                    bytes.insert(contentsOf: bytes[from..<min(bytes.count, from + len)], at: at)
                }
            }
            do throws(CKError) {
                let schema = try CKDB.parse(bytes, file: "fuzz.ckdb")
                let printed = CKDB.print(schema)
                let again = try CKDB.parse(printed, file: "printed.ckdb")
                #expect(CKDB.print(again) == printed)
                parsed += 1
            } catch {
                #expect(error.code == .invalidArguments)
                #expect((error.details["line"]?.int64Value ?? 0) >= 1, "\(error.reason)")
                #expect((error.details["column"]?.int64Value ?? 0) >= 1, "\(error.reason)")
                #expect(error.reason.hasPrefix("fuzz.ckdb:"), "\(error.reason)")
                failed += 1
            }
        }
        #expect(parsed + failed == 2_000)
        // Both outcomes must be exercised, or the mutations are too weak or too strong.
        #expect(parsed > 50 && failed > 50, "parsed \(parsed), failed \(failed)")
    }
}
