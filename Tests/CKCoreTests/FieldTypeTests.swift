import Testing
import CKCore
@testable import CKModel

/// The type names are spelled out for speed; they must stay those derived from the cases.
@Suite struct FieldTypeTests {
    @Test func everyBaseIsSpelledAsItsCaseAndReadBack() {
        for base in FieldType.Base.allCases {
            #expect(base.schemaName == base.rawValue.uppercased())
            #expect(FieldType.base(schemaOrWS: base.schemaName) == base)
            #expect(FieldType.base(schemaOrWS: base.wsName) == base)
            #expect(FieldType(name: base.schemaName) == FieldType(base))
            #expect(FieldType(name: "LIST<\(base.schemaName)>") == FieldType(base, list: true))
            #expect(FieldType(name: base.schemaName + "_LIST") == FieldType(base, list: true))
        }
        #expect(FieldType.base(schemaOrWS: "string") == nil)
        #expect(FieldType.base(schemaOrWS: "ASSETID") == .asset)
        #expect(FieldType(name: "NUMBER") == nil)
    }
}
